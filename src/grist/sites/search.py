"""TEXT-MDL, TEXT-HASH and LSH: three ways to choose which merges the clustering prices.

- ``mdl`` (TEXT-MDL, FindBestCluster): every pair of clusters, every round. O(n^2) pairs are
  priced once and each merge prices the new cluster against all others.
- ``hash`` (TEXT-HASH): clusters with equal MinHash signatures are merged first; then each
  cluster is paired only with the clusters of maximal estimated Jaccard similarity
  (GetInitBestPair), and a new cluster only with its own most similar ones (GetHashBestPair).
- ``lsh``: the same, with the similar clusters proposed by banded MinHash buckets instead of a
  scan of all clusters: no step compares a cluster with all others.

In ``hash`` and ``lsh`` a new cluster also inherits the candidate pairs of the two clusters it
replaces, so a cluster whose only candidate merged away is not stranded. A merge is priced
exactly (GetHashMDLcost's role) from the two clusters' path counts: that costs about as much as
reading their signatures, and the seed does not define the estimate ε(D_k, l) it would use.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from grist.dedup.lsh import LSHIndex, candidate_pairs, choose_bands
from grist.dedup.minhash import MinHasher, similarities
from grist.checks import check_choice
from grist.sites.clusters import ClusterStore
from grist.sites.mdl import READINGS, template_of
from grist.sites.pathsets import SparseRows
from grist.sites.pool import PairPool, agglomerate

METHODS = ("mdl", "hash", "lsh")


@dataclass(frozen=True)
class ClusterConfig:
    """How pages are clustered.

    method:         ``mdl``, ``hash`` or ``lsh`` (module doc).
    reading:        the MDL cost, ``delta`` or ``literal`` (``grist.sites.mdl``).
    num_perm:       MinHash signature length (``hash``, ``lsh``).
    neighbours:     ``hash``: 1 pairs a cluster with every cluster of maximal similarity (the
                    seed's N); k > 1 with its k most similar ones.
    lsh_threshold:  ``lsh``: the Jaccard similarity the bands and rows are chosen for.
    max_candidates: ``lsh``: how many of a cluster's bucket-mates (the most similar) it is
                    paired with.
    seed:           of the MinHash functions.
    """

    method: str = "lsh"
    reading: str = "delta"
    num_perm: int = 128
    neighbours: int = 1
    lsh_threshold: float = 0.3
    max_candidates: int = 4
    seed: int = 1

    def __post_init__(self) -> None:
        check_choice(self, "method", METHODS)
        check_choice(self, "reading", READINGS)


@dataclass
class Clustering:
    """The result: a cluster number per document (clusters numbered by their first document),
    each cluster's template paths (dense ids, TEMP_k), the cost before and after."""

    labels: np.ndarray
    templates: list[np.ndarray]
    cost_before: float
    cost_after: float
    merges: int
    priced: int = 0
    members: list[list[int]] = field(default_factory=list)


def _top(candidates: np.ndarray, sims: np.ndarray, count: int, ties: bool) -> np.ndarray:
    """The ``count`` most similar candidates (by id on ties), or all of maximal similarity."""
    if len(candidates) == 0:
        return candidates
    if ties:
        best = sims.max()
        return candidates[sims == best] if best > 0 else candidates[:0]
    order = np.lexsort((candidates, -sims))
    return candidates[order[:count]]


class _Signatures:
    """MinHash signatures of the clusters, by cluster id (a merged cluster's is the minimum)."""

    def __init__(self, store: ClusterStore, hashes: np.ndarray, config: ClusterConfig) -> None:
        n = len(store.ids)
        hasher = MinHasher(config.num_perm, seed=config.seed)
        self.values = np.empty((max(2 * n - 1, 1), config.num_perm), dtype=np.uint64)
        self.values[:n] = hasher.signatures([hashes[ids] for ids in store.ids])

    def merged(self, k: int, i: int, j: int) -> None:
        self.values[k] = np.minimum(self.values[i], self.values[j])


def _merge_equal_signatures(store: ClusterStore, sigs: _Signatures) -> None:
    """Merge all clusters with the same signature (GetInitBestPair's first line)."""
    alive = store.alive_ids()
    _, group = np.unique(sigs.values[alive], axis=0, return_inverse=True)
    group = group.reshape(-1)
    for g in np.unique(group[np.bincount(group)[group] > 1]):
        members = alive[group == g]
        current = int(members[0])
        for other in members[1:]:
            k = store.merge(current, int(other))
            sigs.merged(k, current, int(other))
            current = k


def _add_pairs(store: ClusterStore, pool: PairPool, first: np.ndarray, second: np.ndarray) -> None:
    """Price and add the distinct pairs (first[i], second[i]), grouped by their first cluster."""
    if len(first) == 0:
        return
    span = np.int64(len(store.alive))
    chosen = np.unique(first.astype(np.int64) * span + second)
    first, second = chosen // span, chosen % span
    starts = np.flatnonzero(np.concatenate([[True], np.diff(first) != 0]))
    for start, stop in zip(starts, [*starts[1:], len(first)], strict=True):
        pool.add(store, int(first[start]), second[start:stop])


def _run_mdl(store: ClusterStore, pool: PairPool) -> int:
    alive = store.alive_ids()
    for position, i in enumerate(alive):
        pool.add(store, int(i), alive[position + 1:])

    def propose(k: int, _partners: np.ndarray) -> None:
        pool.add(store, k, store.alive_ids())

    return agglomerate(store, pool, propose)


def _run_hash(store: ClusterStore, pool: PairPool, sigs: _Signatures,
              config: ClusterConfig) -> int:
    ties = config.neighbours <= 1

    def similar(k: int) -> np.ndarray:
        alive = store.alive_ids()
        alive = alive[alive != k]
        return _top(alive, similarities(sigs.values[k], sigs.values[alive]), config.neighbours,
                    ties)

    alive = store.alive_ids()
    firsts, seconds = [], []
    for i in alive:
        neighbours = similar(int(i))
        firsts.append(np.minimum(neighbours, i))
        seconds.append(np.maximum(neighbours, i))
    _add_pairs(store, pool, np.concatenate(firsts), np.concatenate(seconds))

    def propose(k: int, partners: np.ndarray) -> None:
        pool.add(store, k, np.union1d(similar(k), partners))

    return agglomerate(store, pool, _signature_updating(propose, store, sigs))


def _run_lsh(store: ClusterStore, pool: PairPool, sigs: _Signatures,
             config: ClusterConfig) -> int:
    bands, rows = choose_bands(config.lsh_threshold, config.num_perm)
    index = LSHIndex(bands, rows)
    alive = store.alive_ids()
    for i in alive:
        index.insert(int(i), sigs.values[i])
    left, right = candidate_pairs(sigs.values[alive], bands, rows,
                                  max_bucket=config.max_candidates + 1)
    left, right = alive[left], alive[right]
    sims = np.count_nonzero(sigs.values[left] == sigs.values[right], axis=1)
    # each cluster keeps its max_candidates most similar proposals (either side of the pair)
    ends = np.concatenate([left, right])
    other = np.concatenate([right, left])
    order = np.lexsort((other, -np.concatenate([sims, sims]), ends))
    ends, other = ends[order], other[order]
    rank = np.arange(len(ends)) - np.searchsorted(ends, ends, side="left")
    keep = rank < config.max_candidates
    _add_pairs(store, pool, np.minimum(ends[keep], other[keep]),
               np.maximum(ends[keep], other[keep]))

    def propose(k: int, partners: np.ndarray) -> None:
        index.insert(k, sigs.values[k])
        found = np.asarray([c for c in index.query(sigs.values[k]) if c != k], dtype=np.int64)
        near = _top(found, similarities(sigs.values[k], sigs.values[found]),
                    config.max_candidates, ties=False)
        pool.add(store, k, np.union1d(near, partners))

    def forget(i: int, j: int) -> None:
        index.remove(i)
        index.remove(j)

    return agglomerate(store, pool, _signature_updating(propose, store, sigs, forget))


def _signature_updating(propose, store: ClusterStore, sigs: _Signatures, forget=None):
    """Wrap ``propose`` so the new cluster's signature (and index entry) is set first."""

    def wrapped(k: int, partners: np.ndarray) -> None:
        i, j = store.parents[k]
        sigs.merged(k, i, j)
        if forget is not None:
            forget(i, j)
        propose(k, partners)

    return wrapped


def cluster(non_content: SparseRows, hashes: np.ndarray,
            config: ClusterConfig | None = None) -> Clustering:
    """Cluster documents by their non-content path sets (rows of dense path ids; ``hashes``
    maps a dense id to its 64-bit path hash, for MinHash)."""
    config = config or ClusterConfig()
    store = ClusterStore(non_content, len(hashes), config.reading)
    cost_before = store.cost()
    pool = PairPool()
    if len(non_content) < 2:
        merges = 0
    elif config.method == "mdl":
        merges = _run_mdl(store, pool)
    else:
        sigs = _Signatures(store, hashes, config)
        singletons = store.n_alive
        _merge_equal_signatures(store, sigs)
        merged_equal = singletons - store.n_alive
        runner = _run_hash if config.method == "hash" else _run_lsh
        merges = merged_equal + runner(store, pool, sigs, config)
    return _result(store, cost_before, merges, pool.evaluated)


def _result(store: ClusterStore, cost_before: float, merges: int, priced: int) -> Clustering:
    alive = sorted(store.alive_ids().tolist(), key=lambda k: min(store.members[k]))
    labels = np.empty(store.cost_model.docs, dtype=np.int64)
    templates, members = [], []
    for number, k in enumerate(alive):
        labels[store.members[k]] = number
        members.append(sorted(store.members[k]))
        templates.append(store.ids[k][template_of(store.counts[k], int(store.size[k]))])
    return Clustering(labels, templates, cost_before, store.cost(), merges, priced, members)
