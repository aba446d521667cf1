"""64-bit simhash fingerprints (Charikar) with xxHash64 term hashes: seed 001's modified simhash
(TWC-PFM weights, §3.3.3) and the plain frequency-weighted variant, plus the Hamming distance."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

import numpy as np
import xxhash

from grist.features.tokens import terms
from grist.dedup.twcpfm import twc_pfm_weights

BITS = 64
_SHIFTS = np.arange(BITS, dtype=np.uint64)


def term_hashes(keys: list[str]) -> np.ndarray:
    """xxHash64 (seed 0) of each term, as uint64."""
    return np.fromiter((xxhash.xxh64_intdigest(k.encode()) for k in keys), dtype=np.uint64, count=len(keys))


def simhash(weights: Mapping[str, float]) -> int | None:
    """Fingerprint bit i is 1 when the weights of terms whose hash has bit i set outweigh the rest.

    Returns None for an empty term set: a block without terms has no fingerprint (and must not be
    taken for a duplicate of every other empty block).
    """
    if not weights:
        return None
    keys = list(weights)
    bits = (term_hashes(keys)[:, None] >> _SHIFTS) & np.uint64(1)
    signs = bits.astype(np.float64) * 2.0 - 1.0
    totals = np.fromiter(weights.values(), dtype=np.float64, count=len(keys)) @ signs
    return int(((totals > 0).astype(np.uint64) << _SHIFTS).sum())


def modified_simhash(text: str) -> int | None:
    """Seed 001's block fingerprint: pre-processed terms weighted by TWC-PFM."""
    return simhash(twc_pfm_weights(terms(text)))


def frequency_simhash(text: str) -> int | None:
    """Charikar's simhash with term frequencies as weights (seed 001's 'Simhash' baseline)."""
    return simhash(Counter(terms(text)))


def hamming(a: int, b: int) -> int:
    """Number of differing bits of two fingerprints."""
    return (a ^ b).bit_count()
