"""MinHash signatures (Broder) in NumPy and their Jaccard estimate.

Each term shingle is hashed once (the low 32 bits of xxHash64); the ``num_perm`` hash functions
are the universal family h(x) = (a x + b) mod p over the Mersenne prime p = 2^61 - 1, with fixed
seeded a, b < 2^31, so a x + b stays inside 64 bits.
"""

from __future__ import annotations

import numpy as np
import xxhash

from grist.dedup.similarity import shingles
from grist.features.tokens import terms

_PRIME = np.uint64((1 << 61) - 1)
_EMPTY = _PRIME
_LOW32 = np.uint64(0xFFFFFFFF)


class MinHasher:
    """Computes ``num_perm``-value MinHash signatures of texts (term ``shingle``-grams)."""

    def __init__(self, num_perm: int = 128, shingle: int = 1, seed: int = 1) -> None:
        rng = np.random.default_rng(seed)
        self.shingle = shingle
        self.a = rng.integers(1, (1 << 31) - 1, size=num_perm, dtype=np.uint64)
        self.b = rng.integers(0, (1 << 31) - 1, size=num_perm, dtype=np.uint64)

    def signature(self, text: str) -> np.ndarray:
        """The signature: per hash function, the smallest hash over the text's shingles."""
        grams = shingles(terms(text), self.shingle)
        if not grams:
            return np.full(len(self.a), _EMPTY, dtype=np.uint64)
        keys = np.fromiter(
            (xxhash.xxh64_intdigest("\x1f".join(g).encode()) for g in grams), dtype=np.uint64, count=len(grams)
        ) & _LOW32
        values = (self.a[:, None] * keys[None, :] + self.b[:, None]) % _PRIME
        return values.min(axis=1)


def estimate_jaccard(sig_a: np.ndarray, sig_b: np.ndarray) -> float:
    """Share of equal signature positions: an unbiased estimate of the Jaccard similarity."""
    return float(np.mean(sig_a == sig_b))
