"""Metric formulas on worked examples (seed 004 §E, seed 003 Eq. 4, the shingle benchmark)."""

import random

import pytest

from grist.evaluate.aggregate import score_page, summarize
from grist.evaluate.metrics import (
    cumulative_moving_average,
    exact_match,
    lcs_length,
    lcs_prf,
    shingle_counts,
    shingle_prf,
    shingles,
    snippet_scores,
)


def test_seed004_worked_example():
    gold = "Title Some text in the body"
    extracted = "Title Copyright Some text in"
    p, r, f = lcs_prf(extracted, gold)
    assert p == pytest.approx(4 / 5)
    assert r == pytest.approx(4 / 6)
    assert f == pytest.approx(8 / 11)


def test_lcs_empty_sides():
    assert lcs_prf("", "") == (1.0, 1.0, 1.0)
    assert lcs_prf("", "some gold") == (0.0, 0.0, 0.0)
    assert lcs_prf("some output", "") == (0.0, 0.0, 0.0)


def _dp_lcs(a, b):
    row = [0] * (len(b) + 1)
    for x in a:
        prev_diag = 0
        for j, y in enumerate(b, start=1):
            keep = row[j]
            row[j] = prev_diag + 1 if x == y else max(row[j], row[j - 1])
            prev_diag = keep
    return row[-1]


def test_lcs_length_matches_plain_dynamic_programming():
    rng = random.Random(7)
    for _ in range(300):
        alphabet = "abcde"[: rng.randint(1, 5)]
        a = [rng.choice(alphabet) for _ in range(rng.randint(0, 40))]
        b = [rng.choice(alphabet) for _ in range(rng.randint(0, 90))]
        assert lcs_length(a, b) == _dp_lcs(a, b)


def test_cumulative_moving_average_seed003_eq4():
    assert list(cumulative_moving_average([1.0, 0.0, 0.5, 0.5])) == [1.0, 0.5, 0.5, 0.5]
    assert list(cumulative_moving_average([])) == []


def test_shingles_keep_multiplicity_and_short_texts():
    assert shingles("a b c d a b c d") == {
        ("a", "b", "c", "d"): 2,
        ("b", "c", "d", "a"): 1,
        ("c", "d", "a", "b"): 1,
        ("d", "a", "b", "c"): 1,
    }
    assert shingles("Hello, world!") == {("Hello", "world"): 1}  # shorter than 4: one shingle
    assert shingles("  ") == {}


def test_shingle_counts_worked_example():
    # gold shingles: (a b c d), (b c d e); prediction: (a b c d), (b c d x)
    counts = shingle_counts("a b c d x", "a b c d e")
    assert counts == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    p, r, f = shingle_prf(counts)
    assert (p, r, f) == pytest.approx((0.5, 0.5, 0.5))


def test_shingle_empty_prediction_and_empty_gold():
    assert shingle_prf(shingle_counts("", "one two three four five")) == (0.0, 0.0, 0.0)
    assert shingle_prf(shingle_counts("one two three four five", "")) == (0.0, 0.0, 0.0)
    assert shingle_prf(shingle_counts("", "")) == (1.0, 1.0, 1.0)


def test_exact_match_ignores_whitespace_and_punctuation_only():
    assert exact_match("Hello,\n\nworld", "Hello world.")
    assert not exact_match("hello world", "Hello world")


def test_snippets_match_whole_words():
    hit, clean = snippet_scores(
        "Our homepage lists the news.\nIt is great.",
        with_=["lists the  NEWS", "missing part"],
        without=["Home", "It is great"],
    )
    assert hit == 0.5
    assert clean == 0.5
    assert snippet_scores("anything", [], []) == (1.0, 1.0)


def test_summary_aggregates_and_bootstrap_interval():
    scores = [
        score_page("a", "Title Copyright Some text in", "Title Some text in the body"),
        score_page("b", "", "gold words here"),
        score_page("c", "one two three four", "one two three four"),
    ]
    summary = summarize(scores, rounds=200)
    assert summary["pages"] == 3
    assert summary["lcs_f1"] == pytest.approx((8 / 11 + 0 + 1) / 3)
    assert summary["accuracy"] == pytest.approx(1 / 3)
    low, high = summary["lcs_f1_ci"]
    assert 0.0 <= low <= summary["lcs_f1"] <= high <= 1.0
    assert low < high
    # benchmark F1 = harmonic mean of mean precision and mean recall
    p, r = summary["sh_p"], summary["sh_r"]
    assert summary["sh_f1"] == pytest.approx(2 * p * r / (p + r))
