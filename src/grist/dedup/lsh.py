"""Locality-sensitive hashing of MinHash signatures (banding; Indyk & Motwani 1998, Broder 1997).

A signature of ``bands * rows`` values is cut into ``bands`` bands of ``rows`` values; two sets
whose signatures agree on a whole band share that band's bucket. Sets of Jaccard similarity s
share at least one bucket with probability 1 - (1 - s^rows)^bands, an S-curve whose steep part
sits near (1/bands)^(1/rows); ``choose_bands`` picks bands and rows for a threshold by weighing
the false-positive and false-negative areas under that curve (the rule datasketch documents).

Two uses share this module: ``candidate_pairs`` proposes, for a whole batch, the pairs worth an
exact look (near-duplicate documents over word shingles, template clustering over path sets);
``LSHIndex`` keeps buckets of a changing collection (clusters that merge) and answers queries.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

_MIX = np.uint64(0x9E3779B97F4A7C15)


def collision_probability(similarity: float | np.ndarray, bands: int, rows: int) -> np.ndarray:
    """Probability that two sets of this Jaccard similarity share at least one bucket."""
    s = np.asarray(similarity, dtype=float)
    return 1.0 - (1.0 - s**rows) ** bands


def _area(y: np.ndarray, x: np.ndarray) -> float:
    """Trapezoid-rule integral of y over x."""
    return float(((y[1:] + y[:-1]) * np.diff(x)).sum() / 2)


def choose_bands(threshold: float, num_perm: int, false_positive_weight: float = 0.5,
                 false_negative_weight: float = 0.5) -> tuple[int, int]:
    """(bands, rows) with bands * rows <= num_perm minimising the weighted areas of false
    positives (similarity under ``threshold`` yet colliding) and false negatives (over it,
    missed), integrated over similarity with the trapezoid rule."""
    if not 0.0 < threshold < 1.0:
        raise ValueError(f"the LSH threshold must be strictly between 0 and 1, got {threshold}")
    below = np.linspace(0.0, threshold, 201)
    above = np.linspace(threshold, 1.0, 201)
    best: tuple[float, int, int] | None = None
    for bands in range(1, num_perm + 1):
        for rows in range(1, num_perm // bands + 1):
            fp = _area(collision_probability(below, bands, rows), below)
            fn = _area(1.0 - collision_probability(above, bands, rows), above)
            error = false_positive_weight * fp + false_negative_weight * fn
            if best is None or error < best[0] - 1e-12:
                best = (error, bands, rows)
    assert best is not None
    return best[1], best[2]


def band_keys(signatures: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """One 64-bit bucket key per signature (rows) and band (columns): the band's values mixed
    with fixed odd multipliers (same values, same key; different values collide with
    probability about 2^-64)."""
    signatures = np.atleast_2d(signatures)
    if signatures.shape[1] < bands * rows:
        raise ValueError(f"signatures of {signatures.shape[1]} values cannot fill {bands} bands "
                         f"of {rows} rows")
    multipliers = (np.arange(1, rows + 1, dtype=np.uint64) * _MIX) | np.uint64(1)
    cut = signatures[:, : bands * rows].reshape(len(signatures), bands, rows)
    keys = (cut * multipliers).sum(axis=2, dtype=np.uint64)
    keys ^= keys >> np.uint64(31)
    return keys * _MIX + np.arange(bands, dtype=np.uint64)


def _runs(sorted_keys: np.ndarray) -> Iterator[int]:
    """Offsets d >= 1 such that some key equals the key d places after it."""
    d = 1
    while d < len(sorted_keys) and np.any(sorted_keys[d:] == sorted_keys[:-d]):
        yield d
        d += 1


def candidate_pairs(signatures: np.ndarray, bands: int, rows: int,
                    max_bucket: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (i, j), i < j, whose signatures share a bucket in at least one band, sorted.

    With ``max_bucket``, a member is paired with at most the ``max_bucket - 1`` members that
    follow it in its bucket (by row number), so a huge bucket of near-identical sets costs
    O(n * max_bucket) pairs instead of O(n^2), and every bucket stays connected.
    """
    keys = band_keys(signatures, bands, rows)
    found_a, found_b = [], []
    for band in range(bands):
        order = np.argsort(keys[:, band], kind="stable")
        ordered = keys[order, band]
        for d in _runs(ordered):
            if max_bucket is not None and d >= max_bucket:
                break
            same = np.flatnonzero(ordered[d:] == ordered[:-d])
            found_a.append(order[same])
            found_b.append(order[same + d])
    if not found_a:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    a, b = np.concatenate(found_a), np.concatenate(found_b)
    low, high = np.minimum(a, b).astype(np.int64), np.maximum(a, b).astype(np.int64)
    n = np.int64(max(len(signatures), 1))
    pairs = np.unique(low * n + high)
    return pairs // n, pairs % n


class LSHIndex:
    """Buckets of a changing set of signatures, by integer id: insert, remove, query."""

    def __init__(self, bands: int, rows: int) -> None:
        self.bands, self.rows = bands, rows
        self._buckets: dict[int, set[int]] = {}
        self._keys: dict[int, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self._keys)

    def insert(self, ident: int, signature: np.ndarray) -> None:
        """Put ``ident`` into the buckets of its signature (replacing an earlier insert)."""
        if ident in self._keys:
            self.remove(ident)
        keys = band_keys(signature, self.bands, self.rows)[0]
        self._keys[ident] = keys
        for key in keys.tolist():
            self._buckets.setdefault(key, set()).add(ident)

    def remove(self, ident: int) -> None:
        """Take ``ident`` out of its buckets (nothing happens for an unknown id)."""
        keys = self._keys.pop(ident, None)
        if keys is None:
            return
        for key in keys.tolist():
            members = self._buckets[key]
            members.discard(ident)
            if not members:
                del self._buckets[key]

    def query(self, signature: np.ndarray) -> list[int]:
        """Ids sharing at least one bucket with ``signature``, in increasing order."""
        found: set[int] = set()
        for key in band_keys(signature, self.bands, self.rows)[0].tolist():
            found.update(self._buckets.get(key, ()))
        return sorted(found)
