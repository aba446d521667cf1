"""An exact Hamming-ball index over 64-bit fingerprints (multi-index hashing, Manku et al. 2007).

The 64 bits are cut into k + 1 disjoint bit ranges. Two fingerprints within k bits agree on at
least one range (pigeonhole), so each range gets a table of fingerprints sorted by that range;
a query looks up the equal-range run in each table with ``searchsorted`` and checks the few
candidates' Hamming distance. No pairwise scan, no missed match. Queries are vectorised over
batches. New fingerprints wait in a small pending buffer that single queries scan directly; the
tables are rebuilt when the buffer outgrows 1/32 of the index (amortised O(log n) per insert).
``save``/``load`` persist the fingerprints and keys as one ``.npz`` file.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from grist.checks import check_choice, check_number, check_whole
from grist.errors import ConfigError, DatasetError
from grist.io.atomic import write_atomically

BITS = 64
DEFAULT_K = 3  # max differing bits of near-duplicate fingerprints (seed 001)


def _ranges(k: int) -> list[tuple[int, int]]:
    """k + 1 (shift, width) bit ranges that tile the 64 bits."""
    parts = k + 1
    widths = [BITS // parts + (1 if i < BITS % parts else 0) for i in range(parts)]
    shifts = np.cumsum([0, *widths[:-1]])
    return [(int(s), w) for s, w in zip(shifts, widths, strict=True)]


def _dtype(width: int) -> type:
    """The smallest unsigned integer type holding ``width`` bits."""
    return np.uint16 if width <= 16 else np.uint32 if width <= 32 else np.uint64


# what reading an index file with np.load raises when the file is missing, damaged or not one
INDEX_FILE_ERRORS = (OSError, EOFError, KeyError, ValueError, zipfile.BadZipFile)
LEVELS = (None, "document", "block")  # what an index's texts are (None: not said)


def write_index(path: str | Path, arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` as the ``.npz`` file ``path``, replacing it whole (``write_atomically``):
    a full disk or a kill mid-save leaves the old index, never a broken one. ``np.savez`` writes
    into memory, so it adds no ``.npz`` to any name."""
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    write_atomically(Path(path), buffer.getvalue())


def unreadable_index(path: str | Path, exc: Exception) -> DatasetError:
    """The error for an index file that is missing, damaged or not an index."""
    if isinstance(exc, OSError):
        return DatasetError(f"cannot read the index {path}: {exc.strerror or exc}")
    detail = "not a NumPy .npz file" if "pickled" in str(exc) else str(exc) or type(exc).__name__
    return DatasetError(f"{path} is not an index written by grist dedup --save-index, or it is "
                        f"damaged ({detail})")


READERS = {"MinHash": "grist.dedup.documents.MinHashGroups.load",
           "simhash": "FingerprintIndex.load"}


def other_kind(path: str | Path, files: list[str], wanted: str) -> DatasetError | None:
    """The error for a MinHash index given where a simhash one is wanted, or the reverse."""
    kind = "MinHash" if "settings" in files else "simhash" if "k" in files else None
    if kind is None or kind == wanted:
        return None
    return DatasetError(f"{path} is a {kind} index, not a {wanted} one: read it with "
                        f"{READERS[kind]}")


def first_ids(keys: Iterable[str]) -> dict[str, int]:
    """The id of each key's first entry (a file saved before keys were kept once may repeat a
    key): how a finder tells a key it already holds."""
    ids: dict[str, int] = {}
    for ident, key in enumerate(keys):
        ids.setdefault(key, ident)
    return ids


def saved_texts(**texts: str | None) -> dict[str, np.ndarray]:
    """The text fields of an index file that are set, as arrays ``np.savez`` writes."""
    return {name: np.array(text) for name, text in texts.items() if text}


def saved_text(data: Any, name: str) -> str | None:
    """A text field of a loaded index file; None when it has none (written before the field
    was saved: not known)."""
    return str(data[name]) if name in data.files else None


class FingerprintIndex:
    """Stores (fingerprint, key) pairs; ``query`` returns every stored entry within ``k`` bits.

    ``fingerprint`` names the function the fingerprints come from and ``level`` what they
    fingerprint (``document`` or ``block``, as ``grist dedup --level``), saved with them so that
    a later run adds comparable ones (None: not said, as in files written before they were
    saved).
    """

    def __init__(self, k: int = DEFAULT_K, fingerprint: str | None = None,
                 level: str | None = None) -> None:
        self.k = k
        self.fingerprint = fingerprint
        self.level = level
        check_whole(self, "k", 0)
        check_number(self, "k", 0, BITS - 1)
        check_choice(self, "level", LEVELS)
        self._ranges = _ranges(k)
        self._fps = np.empty(0, dtype=np.uint64)
        self._keys: list[str] = []
        self._pending = np.empty(1024, dtype=np.uint64)
        self._npending = 0
        self._tables: list[tuple[np.ndarray, np.ndarray]] = []

    def __len__(self) -> int:
        return len(self._fps) + self._npending

    def add(self, fingerprint: int, key: str = "") -> int:
        """Store one fingerprint; returns its id (insertion order)."""
        if self._npending == len(self._pending):
            self._pending = np.concatenate([self._pending, np.empty_like(self._pending)])
        self._pending[self._npending] = fingerprint
        self._npending += 1
        self._keys.append(key)
        if self._npending > max(1024, len(self._fps) // 32):
            self._build()
        return len(self) - 1

    def add_many(self, fingerprints: Iterable[int] | np.ndarray, keys: Iterable[str] | None = None) -> None:
        """Store many fingerprints at once (keys default to the empty string)."""
        fps = np.asarray(list(fingerprints) if not isinstance(fingerprints, np.ndarray) else fingerprints,
                         dtype=np.uint64)
        self._flush()
        self._fps = np.concatenate([self._fps, fps])
        self._keys.extend(keys if keys is not None else [""] * len(fps))
        self._tables = []

    def key(self, ident: int) -> str:
        return self._keys[ident]

    def keys(self) -> list[str]:
        """The key of every stored fingerprint, in insertion order."""
        return self._keys

    def stored(self, ident: int) -> int:
        """The fingerprint stored under id ``ident`` (the pending ones read where they wait, so
        the lookup tables stay built)."""
        settled = len(self._fps)
        return int(self._fps[ident] if ident < settled else self._pending[ident - settled])

    def _flush(self) -> None:
        if self._npending:
            self._fps = np.concatenate([self._fps, self._pending[: self._npending]])
            self._npending = 0
            self._tables = []

    def _build(self) -> None:
        self._flush()
        if self._tables or len(self._fps) == 0:
            return
        for shift, width in self._ranges:
            part = ((self._fps >> np.uint64(shift)) & np.uint64((1 << width) - 1)).astype(_dtype(width))
            order = np.argsort(part, kind="stable").astype(np.int64)  # radix sort on small ints
            self._tables.append((part[order], order))

    def query_many(self, queries: Iterable[int] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """All (query position, stored id) pairs within k bits, sorted by query then id."""
        self._build()
        q = np.asarray(list(queries) if not isinstance(queries, np.ndarray) else queries, dtype=np.uint64)
        if len(q) == 0 or len(self._fps) == 0:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
        found_q, found_id = [], []
        for (shift, width), (sorted_part, order) in zip(self._ranges, self._tables, strict=True):
            part = ((q >> np.uint64(shift)) & np.uint64((1 << width) - 1)).astype(sorted_part.dtype)
            lo = np.searchsorted(sorted_part, part, side="left")
            hi = np.searchsorted(sorted_part, part, side="right")
            counts = hi - lo
            total = int(counts.sum())
            if total == 0:
                continue
            qpos = np.repeat(np.arange(len(q)), counts)
            offsets = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
            ids = order[np.repeat(lo, counts) + offsets]
            close = np.bitwise_count(self._fps[ids] ^ q[qpos]) <= self.k
            found_q.append(qpos[close])
            found_id.append(ids[close])
        if not found_q:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
        size = np.int64(len(self._fps))
        pairs = np.unique(np.concatenate(found_q) * size + np.concatenate(found_id))
        return pairs // size, pairs % size

    def query(self, fingerprint: int) -> list[int]:
        """Ids of the stored fingerprints within k bits of ``fingerprint``, in insertion order."""
        q = np.uint64(fingerprint)
        found: set[int] = set()
        if self._fps.size and not self._tables:
            self._build()
        for (shift, width), (sorted_part, order) in zip(self._ranges, self._tables):
            part = sorted_part.dtype.type((fingerprint >> shift) & ((1 << width) - 1))
            lo = int(sorted_part.searchsorted(part, "left"))
            hi = int(sorted_part.searchsorted(part, "right"))
            if hi > lo:
                ids = order[lo:hi]
                found.update(ids[np.bitwise_count(self._fps[ids] ^ q) <= self.k].tolist())
        if self._npending:
            near = np.flatnonzero(np.bitwise_count(self._pending[: self._npending] ^ q) <= self.k)
            found.update((near + len(self._fps)).tolist())
        return sorted(found)

    def memory_bytes(self) -> int:
        """Bytes held by the fingerprint array and the lookup tables (keys not counted)."""
        self._build()
        return self._fps.nbytes + sum(p.nbytes + o.nbytes for p, o in self._tables)

    def save(self, path: str | Path) -> None:
        """Write the fingerprints, keys, k, fingerprint function and level to ``path`` (NumPy
        ``.npz``)."""
        self._flush()
        write_index(path, {"fps": self._fps, "keys": np.array(self._keys, dtype=str),
                           "k": np.int64(self.k),
                           **saved_texts(fingerprint=self.fingerprint, level=self.level)})

    @classmethod
    def load(cls, path: str | Path, k: int | None = None) -> FingerprintIndex:
        """Read an index written by ``save`` (``k``: another distance to query it with)."""
        try:
            with np.load(path, allow_pickle=False) as data:
                if mismatch := other_kind(path, data.files, "simhash"):
                    raise mismatch
                index = cls(int(data["k"]) if k is None else k, saved_text(data, "fingerprint"),
                            saved_text(data, "level"))
                index.add_many(data["fps"], data["keys"].tolist())
        except ConfigError:  # a k out of range (the one given, or the file's)
            raise
        except INDEX_FILE_ERRORS as exc:
            raise unreadable_index(path, exc) from None
        return index
