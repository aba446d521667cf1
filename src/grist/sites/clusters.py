"""The clusters of an agglomerative template clustering, and the cost of merging them.

Each cluster keeps, as a sparse vector, how many of its documents have each path as a
non-content path; from that vector alone follow its template and its M_DELTA entries
(``grist.sites.mdl``). ``merge_effects`` computes, for one cluster against many others at once,
how the clustering's totals would change if they merged: NumPy over the others' concatenated
vectors, so comparing a cluster with every other one costs one pass over their entries.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grist.sites.mdl import CostModel, template_cost
from grist.sites.pathsets import SparseRows


@dataclass(frozen=True)
class Effects:
    """Changes of the totals (template entries, M_DELTA +1s and -1s) per candidate merge."""

    ones: np.ndarray
    plus: np.ndarray
    minus: np.ndarray


class ClusterStore:
    """Clusters by id (0..n-1 the singletons of the documents, then one new id per merge)."""

    def __init__(self, non_content: SparseRows, n_paths: int, reading: str = "delta") -> None:
        n = len(non_content)
        self.cost_model = CostModel(n_paths, n, reading)
        self.ids: list[np.ndarray | None] = [non_content.row(d) for d in range(n)]
        self.counts: list[np.ndarray | None] = [np.ones(len(r), dtype=np.int64) for r in self.ids]
        self.members: list[list[int] | None] = [[d] for d in range(n)]
        self.parents: dict[int, tuple[int, int]] = {}
        capacity = max(2 * n - 1, 1)  # n singletons and at most n - 1 merges
        self.size = np.zeros(capacity, dtype=np.int64)
        self.total = np.zeros(capacity, dtype=np.int64)
        self.ones = np.zeros(capacity, dtype=np.int64)
        self.plus = np.zeros(capacity, dtype=np.int64)
        self.minus = np.zeros(capacity, dtype=np.int64)
        self.alive = np.zeros(capacity, dtype=bool)
        self.size[:n] = 1
        self.total[:n] = non_content.lengths()
        self.ones[:n] = self.total[:n]  # a singleton's template is its whole NC set (CalcMDLval)
        self.alive[:n] = True
        self.n_alive = n
        self.sum_ones, self.sum_plus, self.sum_minus = int(self.ones.sum()), 0, 0
        self._scratch = np.zeros(max(n_paths, 1), dtype=np.int64)

    def cost(self) -> float:
        """MDv of the current clustering (Eq. 3)."""
        return float(self.cost_model.cost(self.n_alive, self.sum_ones, self.sum_plus,
                                          self.sum_minus))

    def costs_after(self, effects: Effects) -> np.ndarray:
        """MDv of the clustering after each candidate merge."""
        return self.cost_model.cost(self.n_alive - 1, self.sum_ones + effects.ones,
                                    self.sum_plus + effects.plus, self.sum_minus + effects.minus)

    def alive_ids(self) -> np.ndarray:
        return np.flatnonzero(self.alive[: len(self.ids)])

    def merge(self, i: int, j: int) -> int:
        """Merge clusters i and j into a new cluster; returns its id."""
        ids = np.concatenate([self.ids[i], self.ids[j]])
        counts = np.concatenate([self.counts[i], self.counts[j]])
        merged, inverse = np.unique(ids, return_inverse=True)
        summed = np.bincount(inverse.reshape(-1), weights=counts, minlength=len(merged))
        k = len(self.ids)
        self.parents[k] = (i, j)
        self.ids.append(merged)
        self.counts.append(summed.astype(np.int64))
        self.members.append(self.members[i] + self.members[j])
        self.size[k] = self.size[i] + self.size[j]
        self.total[k] = self.total[i] + self.total[j]
        entries = template_cost(self.counts[k], int(self.size[k]))
        self.ones[k], self.plus[k], self.minus[k] = entries.ones, entries.plus, entries.minus
        self.sum_ones += entries.ones - int(self.ones[i] + self.ones[j])
        self.sum_plus += entries.plus - int(self.plus[i] + self.plus[j])
        self.sum_minus += entries.minus - int(self.minus[i] + self.minus[j])
        for gone in (i, j):
            self.ids[gone] = self.counts[gone] = self.members[gone] = None
        self.alive[[i, j]] = False
        self.alive[k] = True
        self.n_alive -= 1
        return k

    def merge_effects(self, k: int, others: np.ndarray) -> Effects:
        """How the totals change if cluster k merged with each of ``others`` (alive, not k).

        With s_k, s_x the non-content count vectors and m = m_k + m_x, a path is in the merged
        template when 2 (s_k + s_x) > m. Over the paths of x this is checked directly; the paths
        only k has are counted from k's sorted counts (how many, and their sum, exceed m / 2).
        """
        others = np.asarray(others, dtype=np.int64)
        n = len(others)
        if n == 0:
            empty = np.empty(0, dtype=np.int64)
            return Effects(empty, empty, empty)
        ids_k, counts_k = self.ids[k], self.counts[k]
        scratch = self._scratch
        scratch[ids_k] = counts_k
        lengths = np.fromiter((len(self.ids[x]) for x in others), dtype=np.int64, count=n)
        ids = np.concatenate([self.ids[x] for x in others])
        counts = np.concatenate([self.counts[x] for x in others])
        row = np.repeat(np.arange(n), lengths)
        merged_size = self.size[k] + self.size[others]
        limit = merged_size[row]
        from_k = scratch[ids]
        scratch[ids_k] = 0
        both = from_k + counts
        in_merged = 2 * both > limit
        k_alone = 2 * from_k > limit  # k's paths over the bar, counted below from k's own counts
        ones = np.bincount(row, weights=in_merged, minlength=n)
        covered = np.bincount(row, weights=both * in_merged, minlength=n)
        ones -= np.bincount(row, weights=k_alone, minlength=n)
        covered -= np.bincount(row, weights=from_k * k_alone, minlength=n)
        # paths of k over the bar, whether x has them or not
        ordered = np.sort(counts_k)
        suffix = np.concatenate([np.cumsum(ordered[::-1])[::-1], [0]])
        first = np.searchsorted(ordered, merged_size // 2 + 1, side="left")
        ones += len(ordered) - first
        covered += suffix[first]
        ones = ones.astype(np.int64)
        covered = covered.astype(np.int64)
        plus = self.total[k] + self.total[others] - covered
        minus = ones * merged_size - covered
        return Effects(ones - self.ones[k] - self.ones[others],
                       plus - self.plus[k] - self.plus[others],
                       minus - self.minus[k] - self.minus[others])
