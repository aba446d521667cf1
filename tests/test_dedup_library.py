"""The dedup library's finders and index files: settings refused where they are made, a key kept
once, and an index file replaced whole or not at all."""

from __future__ import annotations

import subprocess
import sys

import pytest

from grist.dedup.documents import MinHashConfig, MinHashGroups
from grist.dedup.groups import DuplicateGroups
from grist.dedup.index import FingerprintIndex
from grist.dedup.simhash import modified_simhash
from grist.errors import ConfigError
from test_dedup_cli import OTHER, STORY, small_files


@pytest.mark.parametrize(("settings", "field"), [
    ({"threshold": 5}, "MinHashConfig.threshold"), ({"threshold": 0}, "MinHashConfig.threshold"),
    ({"shingle": 0}, "MinHashConfig.shingle"), ({"num_perm": 0}, "MinHashConfig.num_perm"),
    ({"min_words": -1}, "MinHashConfig.min_words"), ({"max_bucket": 1}, "MinHashConfig.max_bucket"),
    ({"shingle": 2.5}, "MinHashConfig.shingle")])
def test_minhash_settings_are_refused_when_made(settings, field):
    """MinHashConfig(threshold=5) was accepted and failed later in the LSH banding."""
    with pytest.raises(ConfigError, match=field):
        MinHashConfig(**settings)


def test_fingerprint_index_settings_are_refused_when_made(tmp_path):
    """FingerprintIndex(k=99) raised a builtin ValueError."""
    for k in (99, 64, -1, 2.5):
        with pytest.raises(ConfigError, match="FingerprintIndex.k"):
            FingerprintIndex(k=k)
    with pytest.raises(ConfigError, match="FingerprintIndex.level"):
        FingerprintIndex(level="page")
    FingerprintIndex(3).save(tmp_path / "idx.npz")
    with pytest.raises(ConfigError, match="FingerprintIndex.k"):  # (not "damaged")
        FingerprintIndex.load(tmp_path / "idx.npz", k=99)
    MinHashGroups().save(tmp_path / "mh.npz")
    with pytest.raises(ConfigError, match="MinHashConfig.threshold"):
        MinHashGroups.load(tmp_path / "mh.npz", threshold=5)


def test_a_key_is_stored_once_and_never_matches_itself():
    """A text under a key already held was stored again and matched with its own copy."""
    groups = MinHashGroups(MinHashConfig(min_words=1))
    assert groups.add("a", STORY) == 0 and groups.add("b", OTHER) == 1
    assert groups.add("a", STORY) == 0 and groups.add("a", OTHER) == 0  # (the first text kept)
    assert len(groups) == 2 and groups.repeated == 2 and groups.groups() == []
    finder = DuplicateGroups(FingerprintIndex(3), modified_simhash)
    finder.add("a", STORY)
    finder.add("c", STORY)
    assert finder.add("a", STORY) == [1] and finder.add("c", OTHER) == [0]  # (c: still STORY)
    assert len(finder.index) == 2 and finder.repeated == 2 and finder.groups() == [[0, 1]]


def test_keys_of_a_loaded_index_are_known(tmp_path):
    """A re-run over the same pages added every key again (an index of 12, then 24, 36...)."""
    index = FingerprintIndex(3, "modified_simhash")
    index.add(modified_simhash(STORY), "a")
    index.add(modified_simhash(STORY), "b")
    index.save(tmp_path / "simhash.npz")
    finder = DuplicateGroups(FingerprintIndex.load(tmp_path / "simhash.npz"), modified_simhash)
    assert finder.add("a", STORY) == [1] and finder.add("b", STORY) == [0]
    assert len(finder.index) == 2 and finder.groups() == [[0, 1]]
    groups = MinHashGroups(MinHashConfig(min_words=1))
    groups.add("a", STORY)
    groups.save(tmp_path / "minhash.npz")
    again = MinHashGroups.load(tmp_path / "minhash.npz")
    assert again.add("a", STORY) == 0 and len(again) == 1 and again.repeated == 1


def test_min_words_of_a_loaded_minhash_index_may_change(tmp_path):
    MinHashGroups(MinHashConfig(min_words=10)).save(tmp_path / "idx.npz")
    assert MinHashGroups.load(tmp_path / "idx.npz").config.min_words == 10
    loaded = MinHashGroups.load(tmp_path / "idx.npz", min_words=1)
    assert loaded.config.min_words == 1
    loaded.add("short", "four words, no more")
    assert loaded.skipped == 0


SAVE = """
import sys
from grist.dedup.documents import MinHashConfig, MinHashGroups
from grist.dedup.index import FingerprintIndex
kind, path = sys.argv[1:]
if kind == "minhash":
    index = MinHashGroups(MinHashConfig(min_words=1))
else:
    index = FingerprintIndex(3)
for n in range(200):
    index.add(*((f"key {n}", f"text number {n}") if kind == "minhash" else (n, f"key {n}")))
try:
    index.save(path)
except OSError as exc:
    print(exc.strerror)
"""


@pytest.mark.parametrize("kind", ["minhash", "simhash"])
def test_a_save_that_fails_leaves_the_old_index_whole(tmp_path, kind):
    """save wrote straight into the file: a full disk left a broken index of the first KiBs."""
    path = tmp_path / "seen.npz"
    old = MinHashGroups(MinHashConfig(min_words=1)) if kind == "minhash" else FingerprintIndex(3)
    old.add(*(("kept", "an old text") if kind == "minhash" else (7, "kept")))
    old.save(path)
    before = path.read_bytes()
    done = subprocess.run([sys.executable, "-c", SAVE, kind, str(path)], capture_output=True,
                          text=True, preexec_fn=small_files, check=True)
    assert done.stdout.strip() == "File too large"
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == [
        "seen.npz"]  # (no temporary left beside it)
    loaded = MinHashGroups.load(path) if kind == "minhash" else FingerprintIndex.load(path)
    assert loaded.key(0) == "kept"


def test_save_writes_the_name_given(tmp_path):
    """np.savez adds .npz to a file name without it: the index is written under its name."""
    FingerprintIndex(3).save(tmp_path / "seen")
    MinHashGroups().save(tmp_path / "seen.index")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["seen", "seen.index"]
    assert len(FingerprintIndex.load(tmp_path / "seen")) == 0
    assert MinHashGroups.is_index(tmp_path / "seen.index")


INDEX_SAVER = """
import numpy as np
from grist.dedup.index import FingerprintIndex
small, large = FingerprintIndex(), FingerprintIndex()
small.add_many(np.arange(1_000, dtype=np.uint64), [f"s{{n}}" for n in range(1_000)])
large.add_many(np.arange(200_000, dtype=np.uint64), [f"l{{n}}" for n in range(200_000)])
print("ready", flush=True)
while True:
    small.save({path!r})
    large.save({path!r})
"""


def test_an_index_save_killed_at_any_moment_leaves_a_whole_index(tmp_path):
    """The index was written straight into its file: a kill mid-save left a broken one that the
    next --index run could not read (a rolling index lost its history)."""
    import os
    import signal
    import time

    path = tmp_path / "seen.npz"
    seen = set()
    for delay in (0.05, 0.13, 0.21, 0.29, 0.37):
        child = subprocess.Popen([sys.executable, "-c", INDEX_SAVER.format(path=str(path))],
                                 stdout=subprocess.PIPE)
        assert child.stdout is not None and child.stdout.readline() == b"ready\n"
        time.sleep(delay)
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        seen.add(len(FingerprintIndex.load(path)))  # whole, whichever save it is
    assert seen <= {1_000, 200_000}
    again = FingerprintIndex.load(path)
    again.save(path)  # a rerun writes over what was left, temporaries and all
    assert len(FingerprintIndex.load(path)) == len(again)
