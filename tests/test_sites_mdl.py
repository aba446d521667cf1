"""The MDL cost (seed 002 Eq. 1-3) on a worked case, merge pricing, and the three clusterings."""

from __future__ import annotations

import math

import numpy as np
import pytest

from grist.errors import ConfigError
from grist.sites.clusters import ClusterStore
from grist.sites.mdl import CostModel, Template, description_length, template_cost
from grist.sites.pathsets import PathSets
from grist.sites.search import ClusterConfig, cluster


def _h(*probabilities: float) -> float:
    return -sum(p * math.log2(p) for p in probabilities if p)


def test_description_length_is_size_times_entropy() -> None:
    assert float(description_length(12, 6)) == pytest.approx(12.0)
    assert float(description_length(9, 3)) == pytest.approx(9 * _h(1 / 3, 2 / 3))
    assert float(description_length(12, 2, 2)) == pytest.approx(12 * _h(1 / 6, 1 / 6, 2 / 3))
    assert float(description_length(5, 0)) == 0.0 and float(description_length(5, 5)) == 0.0


# A worked case: three documents over four paths, NC(d0) = NC(d1) = {p0, p1}, NC(d2) = {p2, p3}.
WORKED = PathSets.build([np.array([10, 11], dtype=np.uint64), np.array([10, 11], dtype=np.uint64),
                         np.array([12, 13], dtype=np.uint64)])


def test_worked_case_costs_by_hand() -> None:
    cost = CostModel(paths=4, docs=3)
    # singletons: M_TEMP 4x3 with six 1s (12 bits), M_DOC 3x3 with three 1s, M_DELTA all 0
    singletons = 12 + 9 * _h(1 / 3, 2 / 3)
    assert float(cost.cost(3, 6, 0, 0)) == pytest.approx(singletons)
    # {d0, d1}, {d2}: M_TEMP 4x2 with four 1s (8 bits), M_DOC 2x3 with three 1s (6 bits)
    assert float(cost.cost(2, 4, 0, 0)) == pytest.approx(14.0)
    # one cluster: template {p0, p1} (on 2 of 3 > 3/2 documents); d2 adds two +1s and two -1s
    assert template_cost(np.array([2, 2, 1, 1]), 3) == Template(ones=2, plus=2, minus=2)
    assert float(cost.cost(1, 2, 2, 2)) == pytest.approx(4 + 12 * _h(1 / 6, 1 / 6, 2 / 3))
    literal = CostModel(paths=4, docs=3, reading="literal")
    assert float(literal.cost(1, 2, 2, 2)) == pytest.approx(4.0)


@pytest.mark.parametrize("method", ["mdl", "hash", "lsh"])
def test_worked_case_clustering_stops_where_no_merge_pays(method: str) -> None:
    found = cluster(WORKED.docs, WORKED.hashes, ClusterConfig(method=method))
    assert found.labels.tolist() == [0, 0, 1]
    assert found.cost_before == pytest.approx(12 + 9 * _h(1 / 3, 2 / 3))
    assert found.cost_after == pytest.approx(14.0)
    assert [WORKED.hashes[t].tolist() for t in found.templates] == [[10, 11], [12, 13]]


def test_the_literal_cost_merges_everything() -> None:
    found = cluster(WORKED.docs, WORKED.hashes, ClusterConfig(method="mdl", reading="literal"))
    assert found.labels.tolist() == [0, 0, 0] and found.cost_after == pytest.approx(4.0)


def test_merge_pricing_matches_recounting_the_merged_cluster() -> None:
    rng = np.random.default_rng(1)
    docs = [rng.choice(40, size=rng.integers(0, 25), replace=False).astype(np.uint64)
            for _ in range(12)]
    sets = PathSets.build(docs)
    store = ClusterStore(sets.docs, len(sets.hashes))
    a, b = store.merge(0, 1), store.merge(2, 3)
    c = store.merge(a, 4)
    others = np.array([b, 5, 6, 7, 8, 9, 10, 11])
    effects = store.merge_effects(c, others)
    for position, other in enumerate(others):
        counts = np.zeros(len(sets.hashes), dtype=np.int64)
        for k in (c, other):
            counts[store.ids[k]] += store.counts[k]
        size = int(store.size[c] + store.size[other])
        merged = template_cost(counts, size)
        assert effects.ones[position] == merged.ones - store.ones[c] - store.ones[other]
        assert effects.plus[position] == merged.plus - store.plus[c] - store.plus[other]
        assert effects.minus[position] == merged.minus - store.minus[c] - store.minus[other]


def planted(templates: int, pages: int, seed: int, keep: float = 0.9
            ) -> tuple[PathSets, np.ndarray]:
    """Pages of ``templates`` templates: 80 template paths each (a page has each with
    probability ``keep``), 30 paths of its own, and 20 paths every page has (html, body...)."""
    rng = np.random.default_rng(seed)
    common = rng.integers(0, 2**62, size=20, dtype=np.uint64)
    docs, truth = [], []
    for t in range(templates):
        paths = rng.integers(0, 2**62, size=80, dtype=np.uint64)
        for _ in range(pages):
            own = rng.integers(0, 2**62, size=30, dtype=np.uint64)
            docs.append(np.concatenate([common, paths[rng.random(80) < keep], own]))
            truth.append(t)
    order = rng.permutation(len(docs))
    return PathSets.build([docs[i] for i in order]), np.array(truth)[order]


def _same_partition(labels: np.ndarray, truth: np.ndarray) -> bool:
    pairs = {(int(a), int(b)) for a, b in zip(labels, truth, strict=True)}
    return len(pairs) == len(set(labels.tolist())) == len(set(truth.tolist()))


@pytest.mark.parametrize("method", ["mdl", "hash", "lsh"])
@pytest.mark.parametrize(("threshold", "keep"), [("shared", 0.9), ("mode-shared", 1.0)])
def test_clustering_recovers_planted_templates(method: str, threshold: str, keep: float) -> None:
    # (with a page keeping 90 % of its template, pathno spreads over several values and the mode
    # can land on the 20 paths of every page: "mode-shared" then splits templates)
    sets, truth = planted(templates=6, pages=15, seed=3, keep=keep)
    found = cluster(sets.non_content(threshold), sets.hashes, ClusterConfig(method=method))
    assert _same_partition(found.labels, truth)
    assert found.cost_after < found.cost_before


def test_lsh_prices_a_small_share_of_the_pairs() -> None:
    sets, _ = planted(templates=10, pages=20, seed=4)
    nc = sets.non_content("shared")
    every = cluster(nc, sets.hashes, ClusterConfig(method="mdl"))
    fast = cluster(nc, sets.hashes, ClusterConfig(method="lsh"))
    assert every.priced > 200 * 199 // 2
    assert fast.priced < every.priced / 20
    assert _same_partition(fast.labels, every.labels)


def test_unknown_settings_are_refused() -> None:
    with pytest.raises(ConfigError, match="ClusterConfig.method must be one of mdl, hash, lsh, "
                                          "not 'kmeans'"):
        ClusterConfig(method="kmeans")
    with pytest.raises(ValueError, match="unknown MDL reading"):
        CostModel(1, 1, reading="bits")
