"""Term weights by proximity and frequency (TWC-PFM, seed 001 §3.3.2, Algorithm 1, Eq. 1-3).

For every ordered pair of distinct terms (t_i, t_j), Algorithm 1 walks the two position vectors
with two pointers: when an occurrence p of t_i is followed by an occurrence q of t_j before the
next occurrence of t_i, it adds TP = 1 / (q - p) (Eq. 1-2) for the nearest such q; otherwise it
moves on. The weight is w(t_i) = (f(t_i) + sum of TP over all pairs) / N_t (Eq. 3), N_t being the
number of unique terms. The pseudocode also halves w; a factor shared by every term of a block
cannot change a simhash fingerprint, so Eq. 3 is followed as written.

Walking all pairs costs O(unique^2); the same sum is gathered in one pass per occurrence: for the
occurrence at p, every position r before the next occurrence of the same term whose term did not
occur in (p, r) is the nearest occurrence of a distinct t_j, and contributes 1 / (r - p).

That pass is still quadratic in the length of a block whose terms rarely repeat. Blocks of up to
``EXACT_TERMS`` terms (real ones have at most a few thousand) get the exact sums; longer ones
(a 4 MB text node) sum each occurrence's nearest ``max(8, 5e7 / n)`` positions only, the far
terms' 1 / (r - p) being the smallest parts of the sum, so the work stays under about 5e7 steps
up to 6 million terms (a 20 MiB block).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

EXACT_TERMS = 20_000
_WINDOW_WORK = 50_000_000
_MIN_WINDOW = 8


def twc_pfm_weights(seq: Sequence[str]) -> dict[str, float]:
    """Return w(t) of Eq. 3 for every unique term of the term sequence ``seq``."""
    n = len(seq)
    if n == 0:
        return {}
    index: dict[str, int] = {}  # term -> its first position (an id)
    ids = np.fromiter(map(index.setdefault, seq, itertools.count()), np.int64, n)
    order = np.argsort(ids, kind="stable")  # positions grouped by term, in order
    same = ids[order[1:]] == ids[order[:-1]]
    prev = np.full(n, -1, dtype=np.int64)  # previous position of the same term, -1 if none
    nxt = np.full(n, n, dtype=np.int64)  # next position of the same term, n if none
    prev[order[1:][same]] = order[:-1][same]
    nxt[order[:-1][same]] = order[1:][same]
    proximity = np.zeros(n)
    if n <= EXACT_TERMS:
        inverse = 1.0 / np.arange(1, n + 1, dtype=np.float64)
        for p in range(n - 1):
            end = int(nxt[p])
            window = prev[p + 1 : end] <= p  # first occurrences (after p) of other terms
            proximity[p] = inverse[: end - p - 1][window].sum()
    else:  # the nearest positions only, one array pass per distance
        positions = np.arange(n)
        for d in range(1, max(_MIN_WINDOW, _WINDOW_WORK // n) + 1):
            p = positions[: n - d]
            near = (p + d < nxt[: n - d]) & (prev[d:] <= p)
            proximity[: n - d] += near / d
    totals = np.bincount(ids, weights=1.0 + proximity, minlength=n)
    unique = len(index)
    return {term: float(totals[first]) / unique for term, first in index.items()}
