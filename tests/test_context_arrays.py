"""The array shortcuts of the context features give what the plain per-block definitions give."""

from __future__ import annotations

import re

import numpy as np

from grist.features.context import Runs, _title_overlap, common_prefixes


def test_stacked_run_queries_answer_each_level_as_alone():
    rng = np.random.default_rng(11)
    for _ in range(100):
        n = int(rng.integers(1, 15))
        runs = Runs(rng.integers(0, 5, n - 1).tolist())
        want = rng.integers(0, 6, (3, n))
        starts, ends = runs.starts(want), runs.ends(want)
        assert starts.shape == ends.shape == (3, n)
        for level in range(3):
            assert starts[level].tolist() == runs.starts(want[level]).tolist()
            assert ends[level].tolist() == runs.ends(want[level]).tolist()


def test_common_prefixes_count_shared_leading_components():
    paths = [("html", "body", "div", "p"), ("html", "body", "div", "p"), ("html", "body", "ul"),
             ("html", "body", "div", "p"), ("html", "body", "ul"), ("html",), ()]
    assert common_prefixes(paths) == [4, 2, 2, 2, 1, 0]


def test_title_overlap_matches_a_regex_word_count():
    texts = ["rivers of the north, rivers!", "the north_side 42 ٤٢ river", "", "İstanbul north²"]
    lowered = [t.lower() for t in texts]
    title_words = {"rivers", "the", "north"}  # words of three letters or more
    words, hits, cover, digits = _title_overlap(lowered, "Rivers of the NORTH")
    for i, text in enumerate(lowered):
        found = re.findall(r"\w+", text)
        assert words[i] == len(found)
        assert hits[i] == sum(w in title_words for w in found)
        assert cover[i] == len(title_words & set(found)) / len(title_words)
        assert digits[i] == len(re.findall(r"\d", texts[i]))
