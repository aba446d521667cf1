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
(a 4 MB text node) sum each occurrence's nearest ``max(256, 5e7 / n)`` positions only, the far
terms' 1 / (r - p) being the smallest parts of the sum.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

EXACT_TERMS = 20_000
_WINDOW_WORK = 50_000_000


def twc_pfm_weights(seq: Sequence[str]) -> dict[str, float]:
    """Return w(t) of Eq. 3 for every unique term of the term sequence ``seq``."""
    n = len(seq)
    if n == 0:
        return {}
    prev = np.full(n, -1, dtype=np.int64)  # previous position of the same term, -1 if none
    nxt = np.full(n, n, dtype=np.int64)  # next position of the same term, n if none
    last: dict[str, int] = {}
    for pos, term in enumerate(seq):
        before = last.get(term)
        if before is not None:
            prev[pos] = before
            nxt[before] = pos
        last[term] = pos
    proximity = np.zeros(n)
    if n <= EXACT_TERMS:
        inverse = 1.0 / np.arange(1, n + 1, dtype=np.float64)
        for p in range(n - 1):
            end = int(nxt[p])
            window = prev[p + 1 : end] <= p  # first occurrences (after p) of other terms
            proximity[p] = inverse[: end - p - 1][window].sum()
    else:  # the nearest positions only, one array pass per distance
        positions = np.arange(n)
        for d in range(1, max(256, _WINDOW_WORK // n) + 1):
            p = positions[: n - d]
            near = (p + d < nxt[: n - d]) & (prev[d:] <= p)
            proximity[: n - d] += near / d
    weights: dict[str, float] = {}
    for term, tp in zip(seq, proximity, strict=True):
        weights[term] = weights.get(term, 0.0) + 1.0 + float(tp)
    unique = len(weights)
    return {term: w / unique for term, w in weights.items()}
