"""Candidate merges of an agglomerative clustering and the loop that applies the best one.

The pool holds pairs of clusters with how each merge would change the clustering's totals. A
merge's change is local (it depends on the two clusters only) but its cost is not (the entropy
of Eq. 1 depends on the totals), so every round re-prices every pair in one vectorised pass and
applies the cheapest, as FindBestCluster does, until no merge lowers the cost.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from grist.sites.clusters import ClusterStore, Effects

# A merge must lower the cost by more than this many bits (float noise is not a gain).
_EPSILON = 1e-7


@dataclass(frozen=True)
class Merge:
    """The best merge of a round: the two clusters and the cost after merging them."""

    left: int
    right: int
    cost: float


class PairPool:
    """Growable arrays of candidate pairs (left, right) and their effects on the totals."""

    def __init__(self) -> None:
        self.n = 0
        self._cap = 1024
        self.left = np.empty(self._cap, dtype=np.int64)
        self.right = np.empty(self._cap, dtype=np.int64)
        self.ones = np.empty(self._cap, dtype=np.int64)
        self.plus = np.empty(self._cap, dtype=np.int64)
        self.minus = np.empty(self._cap, dtype=np.int64)
        self.evaluated = 0

    def __len__(self) -> int:
        return self.n

    def _arrays(self) -> tuple[np.ndarray, ...]:
        return self.left, self.right, self.ones, self.plus, self.minus

    def add(self, store: ClusterStore, k: int, others: np.ndarray) -> None:
        """Price the merges of cluster k with each of ``others`` and add them."""
        others = np.asarray(others, dtype=np.int64)
        others = others[others != k]
        if len(others) == 0:
            return
        effects = store.merge_effects(k, others)
        self.evaluated += len(others)
        needed = self.n + len(others)
        if needed > self._cap:
            self._cap = max(needed, 2 * self._cap)
            self.left, self.right, self.ones, self.plus, self.minus = (
                np.resize(a, self._cap) for a in self._arrays())
        end = self.n + len(others)
        self.left[self.n: end] = k
        self.right[self.n: end] = others
        self.ones[self.n: end] = effects.ones
        self.plus[self.n: end] = effects.plus
        self.minus[self.n: end] = effects.minus
        self.n = end

    def drop(self, i: int, j: int) -> np.ndarray:
        """Remove every pair involving cluster i or j; returns their other clusters (sorted)."""
        left, right = self.left[: self.n], self.right[: self.n]
        hit_left = (left == i) | (left == j)
        hit_right = (right == i) | (right == j)
        partners = np.union1d(right[hit_left], left[hit_right])
        keep = ~(hit_left | hit_right)
        kept = int(keep.sum())
        for array in self._arrays():
            array[:kept] = array[: self.n][keep]
        self.n = kept
        return partners[(partners != i) & (partners != j)]

    def best(self, store: ClusterStore) -> Merge | None:
        """The pair whose merge gives the lowest cost (the first such pair on ties)."""
        if self.n == 0:
            return None
        costs = store.costs_after(Effects(self.ones[: self.n], self.plus[: self.n],
                                          self.minus[: self.n]))
        at = int(np.argmin(costs))
        return Merge(int(self.left[at]), int(self.right[at]), float(costs[at]))


def agglomerate(store: ClusterStore, pool: PairPool,
                propose: Callable[[int, np.ndarray], None]) -> int:
    """Merge the best pair while that lowers the cost; ``propose(k, partners)`` adds the new
    cluster k's candidate pairs (``partners``: the clusters paired with the two it replaced).
    Returns the number of merges."""
    merges = 0
    while True:
        best = pool.best(store)
        if best is None or best.cost >= store.cost() - _EPSILON:
            return merges
        partners = pool.drop(best.left, best.right)
        k = store.merge(best.left, best.right)
        merges += 1
        propose(k, partners)
