"""jusText rules (seed 000 Algorithm 1 and the context-sensitive pass) and the ``justext`` method."""

from __future__ import annotations

import random
from types import SimpleNamespace

import numpy as np
import pytest

import grist
from grist.classify.rules import (
    BAD,
    GOOD,
    NEAR_GOOD,
    SHORT,
    RuleConfig,
    context_free,
    context_sensitive,
)
from grist.document import BOILERPLATE, CONTENT
from grist.errors import GristError
from grist.features.matrix import FeatureMatrix

NAMES = ("num_chars", "num_tokens", "link_char_density", "link_density", "stopword_density",
         "copyright")


def matrix(*rows: tuple[float, ...]) -> FeatureMatrix:
    return FeatureMatrix(NAMES, np.array(rows, dtype=float))


def test_algorithm_1_four_classes_with_the_default_thresholds():
    fm = matrix(
        (300, 50, 0.5, 0.5, 0.5, 0),  # link density 0.5 > 0.2
        (50, 8, 0.1, 0.1, 0.5, 0),  # short with a link
        (50, 8, 0.0, 0.0, 0.5, 0),  # short
        (250, 40, 0.0, 0.0, 0.32, 0),  # long, stop words >= 0.32
        (150, 25, 0.0, 0.0, 0.40, 0),  # medium, stop words >= 0.32
        (250, 40, 0.0, 0.0, 0.31, 0),  # stop words between low and high
        (250, 40, 0.0, 0.0, 0.10, 0),  # too few stop words
        (250, 40, 0.0, 0.0, 0.50, 1),  # copyright sign
    )
    classes, reasons = context_free(fm, RuleConfig())
    assert classes == [BAD, BAD, SHORT, GOOD, NEAR_GOOD, NEAR_GOOD, BAD, BAD]
    assert reasons[0] == "context-free: link density 0.50 > 0.2"
    assert reasons[1] == "context-free: short (50 chars < 70) with a link"
    assert reasons[6] == "context-free: stop-word density 0.10 < 0.3"
    assert reasons[7] == "context-free: copyright sign"
    # Seed 000's literal reading: lengths in tokens, link density in tokens.
    literal = RuleConfig(length_unit="tokens", link_density_unit="tokens", copyright_bad=False)
    assert context_free(fm, literal)[0] == [BAD, BAD, SHORT, SHORT, SHORT, SHORT, SHORT, SHORT]


def test_bad_units_are_refused():
    with pytest.raises(GristError):
        RuleConfig(length_unit="pixels")


def settle(classes: list[str], heads: list[bool] | None = None, lengths=None, **kw) -> list[str]:
    n = len(classes)
    lengths = np.full(n, 10.0) if lengths is None else np.array(lengths, float)
    heads = np.array(heads if heads is not None else [False] * n)
    return context_sensitive(classes, [""] * n, lengths, heads, RuleConfig(**kw))[0]


@pytest.mark.parametrize(
    ("classes", "expected"),
    [
        ([GOOD, SHORT, NEAR_GOOD, GOOD], [GOOD] * 4),  # between two goods: all good
        ([BAD, SHORT, NEAR_GOOD, BAD], [BAD] * 4),  # between two bads: all bad
        # good on one side, bad on the other: the near-good nearest the bad block splits the run
        ([BAD, SHORT, NEAR_GOOD, SHORT, NEAR_GOOD, GOOD], [BAD, BAD, GOOD, GOOD, GOOD, GOOD]),
        ([GOOD, SHORT, NEAR_GOOD, SHORT, BAD], [GOOD, GOOD, GOOD, BAD, BAD]),
        ([GOOD, SHORT, SHORT, BAD], [GOOD, BAD, BAD, BAD]),  # all short: bad
        # the document's edges count as bad blocks
        ([SHORT, GOOD, SHORT], [BAD, GOOD, BAD]),
        ([NEAR_GOOD, GOOD, SHORT, NEAR_GOOD], [GOOD, GOOD, GOOD, GOOD]),
        ([SHORT, NEAR_GOOD], [BAD, BAD]),
    ],
)
def test_context_sensitive_runs(classes, expected):
    assert settle(classes) == expected


def test_reasons_name_the_context():
    n = 4
    _, reasons = context_sensitive(
        [SHORT, GOOD, SHORT, GOOD], ["cf"] * n, np.full(n, 10.0), np.zeros(n, bool), RuleConfig()
    )
    assert reasons[0] == "context: all-short run between bad and good (the document start counts as bad)"
    assert reasons[2] == "context: short between good and good"
    assert reasons[1] == "cf"


def test_heading_rules_are_switchable():
    # "full": a short heading before good text counts as near-good, which then delimits the run
    run, heads = [SHORT, SHORT, GOOD], [True, False, False]
    assert settle(run, heads, headings="full") == [GOOD, GOOD, GOOD]
    # "rescue" (the package's behaviour): only the heading itself is rescued afterwards
    assert settle(run, heads, headings="rescue") == [GOOD, BAD, GOOD]
    assert settle(run, heads, headings="off") == [BAD, BAD, GOOD]
    # too far: 300 characters of other text between the heading and the good block
    far = [BAD, SHORT, BAD, GOOD]
    assert settle(far, [False, True, False, False], [10, 10, 300, 10], headings="full") == [
        BAD, BAD, BAD, GOOD
    ]
    # a near-good heading that ended bad is rescued when good text follows closely
    assert settle([BAD, NEAR_GOOD, BAD, GOOD], [False, True, False, False]) == [BAD, GOOD, BAD, GOOD]
    with pytest.raises(GristError):
        RuleConfig(headings="sometimes")


def test_same_decisions_as_the_justext_package_on_random_sequences():
    core = pytest.importorskip("justext.core")
    rng = random.Random(7)
    names = {GOOD: "good", BAD: "bad", SHORT: "short", NEAR_GOOD: "neargood"}
    for _ in range(300):
        n = rng.randint(1, 12)
        classes = [rng.choice([GOOD, BAD, SHORT, NEAR_GOOD]) for _ in range(n)]
        heads = [rng.random() < 0.3 for _ in range(n)]
        lengths = [rng.choice([5, 60, 150]) for _ in range(n)]
        paragraphs = [
            SimpleNamespace(cf_class=names[c], heading=h, text="x" * ln, class_type="")
            for c, h, ln in zip(classes, heads, lengths, strict=True)
        ]
        core.revise_paragraph_classification(paragraphs, 200)
        expected = [GOOD if p.class_type == "good" else BAD for p in paragraphs]
        assert settle(classes, heads, lengths) == expected, (classes, heads, lengths)


ARTICLE = (
    "The committee said on Tuesday that the new bridge will be opened to the public in the spring, "
    "after the last of the safety checks has been completed and all of the work on it is done, "
    "so that people can use it when they go to work."
)
PAGE = f"""<html><head><title>Bridge</title></head><body>
<div class="nav"><a href="/">Home</a> | <a href="/news">News</a> | <a href="/sport">Sport</a></div>
<h1>New bridge opens in spring</h1>
<p>{ARTICLE}</p>
<p>Short line.</p>
<p>It is one of the largest projects that the city has taken on in the last years, and it was
paid for by the state and by the people who live in the area around the river.</p>
<div class="footer">Copyright \xa9 2024 Example News</div>
</body></html>"""


def test_method_keeps_the_article_and_drops_navigation():
    result = grist.extract(PAGE, method="justext")
    assert result.text.startswith("New bridge opens in spring\n\n" + ARTICLE)
    assert "Home" not in result.text and "Copyright" not in result.text
    assert "Short line." in result.text  # on the good side of the near-good block after it
    nav, heading, *_ = result.blocks
    assert nav.label == BOILERPLATE and nav.info["class"] == BAD
    assert nav.reason.startswith("context-free: link density")
    assert heading.label == CONTENT and heading.reason.startswith("heading:")
    assert result.blocks[-1].reason == "context-free: copyright sign"


def test_method_hands_the_feature_matrix_to_the_result():
    result = grist.extract(PAGE, method="justext")
    fm = result.features
    assert len(fm) == len(result.blocks)
    assert fm.row(2)["num_chars"] == len(ARTICLE)
    assert result.blocks[3].reason.startswith("context: short between good and bad")
    assert fm.row(0)["link_density"] == pytest.approx(3 / 5)  # the two "|" are not links


def test_a_page_whose_title_is_never_closed_still_has_its_text():
    damaged = PAGE.replace("</title>", "")
    result = grist.extract(damaged, method="justext")
    assert ARTICLE in result.text


def test_a_processing_instruction_in_the_body_is_skipped():
    page = PAGE.replace("<h1>", '<?php include "menu.inc"; ?><h1>')
    result = grist.extract(page, method="justext")
    assert ARTICLE in result.text and "php" not in result.text


def test_json_output_shows_each_blocks_class_reason_and_features():
    import json

    record = json.loads(grist.extract(PAGE, method="justext").to_json(explain=True))
    nav = record["blocks"][0]
    assert nav["info"]["class"] == BAD and nav["reason"].startswith("context-free: link density")
    assert nav["features"]["link_density"] == pytest.approx(3 / 5)
