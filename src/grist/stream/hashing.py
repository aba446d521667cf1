"""Block and title hashes of seed 003: a text block is normalised (every non-letter removed, the
rest lower-cased) and hashed; the hash is the block's identity in the URL Tree.

Two hash families: ``md5`` (the paper's, its first 64 bits kept) and ``xxh3`` (the default,
several times faster; docs/benchmarks/stream.md). Both give an unsigned 64-bit integer per block,
so counters fit NumPy arrays; at 10^6 distinct blocks the chance of any collision is below 1e-7.
Titles (the ``_cid_`` of URL keys) get the full 128 bits, as the paper says.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

import numpy as np
import xxhash

HASHES = ("xxh3", "md5")
DEFAULT_HASH = "xxh3"
_NOT_LETTER = re.compile(r"[\W\d_]+")


def normalise_block(text: str) -> str:
    """The paper's block normalisation: non-alphabetic characters removed, lower-cased."""
    return _NOT_LETTER.sub("", text).lower()


def check_hash(name: str) -> str:
    if name not in HASHES:
        raise ValueError(f"unknown block hash {name!r}; choose one of {', '.join(HASHES)}")
    return name


def block_hashes(texts: Iterable[str], hash_name: str = DEFAULT_HASH) -> np.ndarray:
    """The 64-bit hash of each normalised text, in order (uint64)."""
    normalised = [normalise_block(t).encode("utf-8") for t in texts]
    if hash_name == "xxh3":
        values = [xxhash.xxh3_64_intdigest(n) for n in normalised]
    else:
        check_hash(hash_name)
        values = [int.from_bytes(hashlib.md5(n).digest()[:8], "big") for n in normalised]
    return np.array(values, dtype=np.uint64)


def title_hash(title: str, hash_name: str = DEFAULT_HASH) -> str:
    """The 128-bit hash of a title (whitespace collapsed) as 32 hex digits: the ``_cid_``."""
    data = " ".join(title.split()).encode("utf-8")
    if hash_name == "xxh3":
        return xxhash.xxh3_128_hexdigest(data)
    check_hash(hash_name)
    return hashlib.md5(data).hexdigest()
