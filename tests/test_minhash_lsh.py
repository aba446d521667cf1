"""MinHash signatures of many sets and LSH banding: the properties both of their users rely on."""

from __future__ import annotations

import numpy as np
import pytest

from grist.dedup.lsh import (LSHIndex, band_keys, candidate_pairs, choose_bands,
                             collision_probability)
from grist.dedup.minhash import (EMPTY, MinHasher, element_hashes, estimate_jaccard,
                                 similarities, text_hashes)


def _sets(rng: np.random.Generator, n: int, size: int) -> list[np.ndarray]:
    return [rng.integers(0, 2**63, size=size, dtype=np.uint64) for _ in range(n)]


def test_batch_signatures_equal_one_at_a_time_and_ignore_order_and_repeats() -> None:
    rng = np.random.default_rng(3)
    sets = _sets(rng, 5, 40) + [np.empty(0, dtype=np.uint64)] + _sets(rng, 2, 70_000)
    hasher = MinHasher(num_perm=64, seed=5)
    batch = hasher.signatures(sets)
    for row, keys in zip(batch, sets, strict=True):
        assert np.array_equal(row, hasher.signature_of(keys))
    shuffled = np.concatenate([sets[0][::-1], sets[0][:7]])
    assert np.array_equal(hasher.signature_of(shuffled), batch[0])
    assert np.all(batch[5] == EMPTY)
    assert not np.array_equal(batch[0], MinHasher(num_perm=64, seed=6).signature_of(sets[0]))


def test_the_minimum_of_two_signatures_is_the_signature_of_the_union() -> None:
    rng = np.random.default_rng(4)
    a, b = _sets(rng, 2, 100)
    hasher = MinHasher(num_perm=128)
    union = hasher.signature_of(np.concatenate([a, b]))
    assert np.array_equal(np.minimum(hasher.signature_of(a), hasher.signature_of(b)), union)


@pytest.mark.parametrize("shared", [0, 100, 300, 600])
def test_agreement_estimates_the_jaccard_similarity(shared: int) -> None:
    rng = np.random.default_rng(shared)
    common = rng.integers(0, 2**63, size=shared, dtype=np.uint64)
    only_a = rng.integers(0, 2**63, size=600 - shared, dtype=np.uint64)
    only_b = rng.integers(0, 2**63, size=600 - shared, dtype=np.uint64)
    exact = shared / (1200 - shared)
    hasher = MinHasher(num_perm=512, seed=2)
    sig_a = hasher.signature_of(np.concatenate([common, only_a]))
    sig_b = hasher.signature_of(np.concatenate([common, only_b]))
    # standard deviation sqrt(J(1-J)/512) <= 0.023: four of them
    assert abs(estimate_jaccard(sig_a, sig_b) - exact) < 0.09
    assert similarities(sig_a, np.stack([sig_a, sig_b]))[0] == 1.0


def test_no_bias_on_structured_keys() -> None:
    # consecutive keys: a linear (a x + b) mod p family with small a reads 1/3 as about 0.6
    a, b = np.arange(0, 600, dtype=np.uint64), np.arange(300, 900, dtype=np.uint64)
    estimates = [estimate_jaccard(MinHasher(128, seed=s).signature_of(a),
                                  MinHasher(128, seed=s).signature_of(b)) for s in range(8)]
    assert abs(float(np.mean(estimates)) - 1 / 3) < 0.04


def test_text_signatures_follow_word_shingles() -> None:
    hasher = MinHasher(num_perm=256, shingle=2)
    text = "the river rose in the night and the town woke to water in every street of it"
    assert estimate_jaccard(hasher.signature(text), hasher.signature(text.upper())) == 1.0
    other = "prices of copper fell for a third week as factories in the south slowed down"
    assert estimate_jaccard(hasher.signature(text), hasher.signature(other)) < 0.1
    assert len(text_hashes("river town river water", 1)) == 3
    assert element_hashes(["a", "a"]).tolist()[0] == element_hashes(["a"]).tolist()[0]


@pytest.mark.parametrize("threshold", [0.3, 0.5, 0.8])
def test_bands_and_rows_put_the_s_curve_at_the_threshold(threshold: float) -> None:
    bands, rows = choose_bands(threshold, 128)
    assert bands * rows <= 128
    assert collision_probability(threshold + 0.2, bands, rows) > 0.9
    assert collision_probability(threshold - 0.2, bands, rows) < 0.5
    assert collision_probability(threshold + 0.2, bands, rows) > collision_probability(
        threshold, bands, rows) > collision_probability(threshold - 0.2, bands, rows)


def test_stricter_thresholds_take_more_rows_per_band() -> None:
    rows = [choose_bands(t, 128)[1] for t in (0.3, 0.5, 0.7, 0.9)]
    assert rows == sorted(rows) and rows[0] < rows[-1]
    with pytest.raises(ValueError, match="between 0 and 1"):
        choose_bands(1.0, 128)


def _family(rng: np.random.Generator, base: np.ndarray, keep: float) -> np.ndarray:
    """A set sharing about ``keep`` of ``base``, padded with new elements."""
    kept = base[rng.random(len(base)) < keep]
    return np.concatenate([kept, rng.integers(0, 2**63, size=len(base) - len(kept),
                                              dtype=np.uint64)])


def test_candidate_pairs_find_near_duplicates_and_skip_strangers() -> None:
    rng = np.random.default_rng(9)
    bases = _sets(rng, 20, 200)
    sets = [_family(rng, base, 0.95) for base in bases for _ in range(2)]  # pairs 2i, 2i+1
    signatures = MinHasher(num_perm=128).signatures(sets)
    bands, rows = choose_bands(0.6, 128)
    left, right = candidate_pairs(signatures, bands, rows)
    found = set(zip(left.tolist(), right.tolist(), strict=True))
    assert {(2 * i, 2 * i + 1) for i in range(20)} <= found
    assert all(b == a + 1 and a % 2 == 0 for a, b in found)
    assert np.all(left < right)


def test_the_empirical_collision_rate_follows_the_formula() -> None:
    rng = np.random.default_rng(11)
    bands, rows = 16, 4
    hasher = MinHasher(num_perm=64, seed=3)
    pairs = [(base, _family(rng, base, 0.6)) for base in _sets(rng, 300, 100)]
    sims, hits = [], 0
    for a, b in pairs:
        sims.append(len(np.intersect1d(a, b)) / len(np.union1d(a, b)))
        keys = band_keys(hasher.signatures([a, b]), bands, rows)
        hits += bool(np.any(keys[0] == keys[1]))
    expected = float(np.mean(collision_probability(np.array(sims), bands, rows)))
    assert abs(hits / len(pairs) - expected) < 0.08


def test_a_capped_bucket_stays_connected_with_linear_pairs() -> None:
    signatures = np.tile(MinHasher(num_perm=32).signature_of(np.arange(10, dtype=np.uint64)),
                         (50, 1))
    left, right = candidate_pairs(signatures, 8, 4)
    assert len(left) == 50 * 49 // 2
    left, right = candidate_pairs(signatures, 8, 4, max_bucket=3)
    assert len(left) == 49 + 48
    parent = list(range(50))

    def root(x: int) -> int:
        while parent[x] != x:
            x = parent[x]
        return x

    for a, b in zip(left.tolist(), right.tolist(), strict=True):
        parent[root(a)] = root(b)
    assert len({root(x) for x in range(50)}) == 1


def test_the_index_inserts_removes_and_queries() -> None:
    rng = np.random.default_rng(5)
    hasher = MinHasher(num_perm=64)
    base = _sets(rng, 1, 300)[0]
    near, far = _family(rng, base, 0.97), _sets(rng, 1, 300)[0]
    index = LSHIndex(*choose_bands(0.5, 64))
    index.insert(1, hasher.signature_of(base))
    index.insert(2, hasher.signature_of(far))
    assert index.query(hasher.signature_of(near)) == [1]
    index.remove(1)
    assert index.query(hasher.signature_of(near)) == [] and len(index) == 1
    index.remove(1)  # unknown ids are ignored
    index.insert(2, hasher.signature_of(near))  # re-inserting replaces
    assert index.query(hasher.signature_of(base)) == [2] and len(index) == 1
