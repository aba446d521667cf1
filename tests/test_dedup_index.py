"""The multi-index Hamming index is exact: it finds what a brute-force scan finds."""

import numpy as np
import pytest

from grist.dedup.documents import MinHashGroups
from grist.dedup.index import FingerprintIndex, _ranges
from grist.errors import DatasetError


def _flip(fp: int, bits: list[int]) -> int:
    for b in bits:
        fp ^= 1 << b
    return fp


def test_ranges_tile_64_bits():
    for k in (0, 1, 3, 6):
        ranges = _ranges(k)
        assert len(ranges) == k + 1
        assert sum(w for _, w in ranges) == 64
        assert ranges[-1][0] + ranges[-1][1] == 64


def test_query_matches_brute_force():
    rng = np.random.default_rng(3)
    base = rng.integers(0, 2**63, size=2000, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    index = FingerprintIndex(k=3)
    index.add_many(base, [f"id{i}" for i in range(len(base))])
    # Queries: stored values with 0..5 flipped bits (some inside, some outside the ball).
    queries, near = [], []
    for i in range(300):
        flips = rng.choice(64, size=i % 6, replace=False).tolist()
        queries.append(_flip(int(base[i]), flips))
        near.append(i)
    qpos, ids = index.query_many(np.array(queries, dtype=np.uint64))
    got = {(int(q), int(d)) for q, d in zip(qpos, ids)}
    dist = np.bitwise_count(base[None, :] ^ np.array(queries, dtype=np.uint64)[:, None])
    want = {(int(q), int(d)) for q, d in zip(*np.nonzero(dist <= 3))}
    assert got == want
    assert any(q == i for q, i in got) and len(got) >= 150


def test_add_query_save_load(tmp_path):
    index = FingerprintIndex(k=3)
    a = index.add(0b1011, "first")
    index.add(0b1011 ^ (1 << 40) ^ (1 << 2), "second")
    index.add(2**64 - 1, "far")
    assert index.query(0b1011) == [0, 1]
    assert index.key(a) == "first"
    path = tmp_path / "idx.npz"
    index.save(path)
    loaded = FingerprintIndex.load(path)
    assert len(loaded) == 3 and loaded.k == 3
    assert loaded.query(0b1011 ^ (1 << 63)) == [0, 1]
    assert loaded.key(2) == "far"
    assert loaded.memory_bytes() > 0
    (tmp_path / "bad.npz").write_bytes(b"not numpy")
    with pytest.raises(DatasetError):
        FingerprintIndex.load(tmp_path / "bad.npz")


def test_empty_index_and_bad_k():
    assert FingerprintIndex().query(5) == []
    with pytest.raises(ValueError):
        FingerprintIndex(k=64)


def test_the_level_is_saved_and_another_kind_of_index_is_named(tmp_path):
    path = tmp_path / "idx.npz"
    FingerprintIndex(3, "simhash", "block").save(path)
    assert FingerprintIndex.load(path).level == "block"
    FingerprintIndex(3).save(path)
    assert FingerprintIndex.load(path).level is None  # not said: not known
    MinHashGroups(level="document").save(path)
    assert MinHashGroups.load(path).level == "document"
    with pytest.raises(DatasetError, match="is a MinHash index, not a simhash one: read it with "
                       "grist.dedup.documents.MinHashGroups.load"):
        FingerprintIndex.load(path)
