"""The array shortcuts of the context features give what the plain per-block definitions give."""

from __future__ import annotations

import re
import sys

import numpy as np

from grist.features.chars import DECIMAL, UPPER, _flags_of, chars_of
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
        dense = runs.bounds(want - 1)  # (wants of -1 too)
        assert dense[0].tolist() == runs.starts(want - 1).tolist()
        assert dense[1].tolist() == runs.ends(want - 1).tolist()
        # a later query of smaller wants reads the table the first one built
        single = np.full(n, int(want.min()))
        assert [b.tolist() for b in runs.bounds(single)] == [runs.starts(single).tolist(),
                                                             runs.ends(single).tolist()]


def test_run_bounds_of_a_page_too_large_for_the_table_come_from_the_jumps(monkeypatch):
    import grist.features.context as context

    monkeypatch.setattr(context, "DENSE_RUNS", 8)  # every table here is larger
    rng = np.random.default_rng(12)
    for _ in range(30):
        n = int(rng.integers(5, 40))
        runs = Runs(rng.integers(0, 5, n - 1).tolist())
        want = rng.integers(1, 6, (2, n))
        lo, hi = runs.bounds(want)
        assert runs._table is None
        assert lo.tolist() == runs.starts(want).tolist() and hi.tolist() == runs.ends(want).tolist()


def test_common_prefixes_count_shared_leading_components():
    paths = [("html", "body", "div", "p"), ("html", "body", "div", "p"), ("html", "body", "ul"),
             ("html", "body", "div", "p"), ("html", "body", "ul"), ("html",), ()]
    assert common_prefixes(paths) == [4, 2, 2, 2, 1, 0]


def test_title_overlap_matches_a_regex_word_count():
    texts = ["rivers of the north, rivers!", "the north_side 42 ٤٢ river", "", "İstanbul north²"]
    lowered = [t.lower() for t in texts]
    title_words = {"rivers", "the", "north"}  # words of three letters or more
    lower = chars_of(texts).lower
    words, hits, cover = _title_overlap(lower, "Rivers of the NORTH")
    (digits,) = lower.bit_counts((DECIMAL,))
    for i, text in enumerate(lowered):
        found = re.findall(r"\w+", text)
        assert words[i] == len(found)
        assert hits[i] == sum(w in title_words for w in found)
        assert cover[i] == len(title_words & set(found)) / len(title_words)
        assert digits[i] == len(re.findall(r"\d", texts[i]))


def test_lower_casing_a_character_into_one_keeps_its_class_bits_but_upper():
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        lower = char.lower()
        if lower != char and len(lower) == 1:
            assert (_flags_of(char) ^ _flags_of(lower)) & ~UPPER == 0, hex(code)


def test_lower_cased_chars_are_those_of_the_lower_cased_texts():
    texts = ["ΟΔΟΣ Σ\nAB", "Istanbul İzmir | 12", "", "ÀÉ_x"]
    for sample in (texts, texts[:1] + texts[2:]):  # with and without a length change
        lower, expected = chars_of(sample).lower, chars_of([t.lower() for t in sample])
        assert lower.joined == expected.joined
        assert lower.starts.tolist() == expected.starts.tolist()
        assert lower.flags.tolist() == [f & ~UPPER for f in expected.flags.tolist()]
