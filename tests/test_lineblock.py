"""Seed 004: line-blocks of the raw source, TTR / ATTR / TKD and the threshold method."""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np
import pytest

import grist
from grist.document import BOILERPLATE, CONTENT
from grist.errors import GristError
from grist.evaluate.metrics import lcs_prf
from grist.features.lineblock import (
    LINEBLOCK_FEATURES,
    attr,
    block_sums,
    keyword_count,
    lineblock_features,
    title_keywords,
    ttr,
)
from grist.html.load import load_document
from grist.limits import Budget
from grist.methods import PageContext
from grist.methods import get_method
from grist.methods.lineblock import METHOD, LineBlockConfig, classify, ttr_threshold
from grist.segment.lines import LineConfig, filter_useless_tags, get_lines, line_blocks

SOURCE_LINES = LineConfig(break_at_tags=False, break_at_newlines=True)

PAGE = """<html><head><title>Bladder cancer: Exciting drug break</title>
<style>p { color: red }</style></head>
<body><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li></ul>
<div class="story"><h1>Bladder cancer: exciting drug break</h1>
<p>A new drug for bladder cancer has shown exciting results in a trial of many patients at
several hospitals in the country, doctors said on Monday.</p>
<p>Researchers said the drug could help thousands of people every year who have the disease.</p>
</div><script>document.write("<p>written by a script</p>")</script>
<!-- <p>commented out</p> -->
<div id="foot">Copyright &copy; 2008 <a href="/">The Site</a> | <a href="/terms">Terms</a></div>
</body></html>"""


# --- Step 1: filter useless tags -------------------------------------------------------------


def test_filter_drops_head_script_style_and_comments_with_their_content():
    out = filter_useless_tags(PAGE)
    assert "color: red" not in out and "<title>" not in out
    assert "written by a script" not in out and "commented out" not in out
    assert "Researchers said" in out and "Copyright" in out


def test_filter_keeps_header_element_and_ends_unclosed_head_at_body():
    assert "Masthead" in filter_useless_tags("<header>Masthead</header>")
    out = filter_useless_tags("<head><title>T</title><body><p>Body text</p>")
    assert "Body text" in out and "<title>" not in out


def test_filter_unclosed_element_loses_only_its_opening_tag():
    out = filter_useless_tags("<p>before</p><script src=x.js><p>after</p><!-- open")
    assert "before" in out and "after" in out and "<script" not in out


def test_filter_separates_words_around_a_dropped_element():
    assert filter_useless_tags("one<script>x</script>two").split() == ["one", "two"]


# --- Step 2: lines and line-blocks ----------------------------------------------------------


def test_block_tags_break_lines_and_each_line_keeps_its_own_tags():
    lines = get_lines("<p>a</p><p>b <b>c</b></p>")
    assert [(line.text, line.tags, line.tag) for line in lines] == [("a", 2, "p"), ("b c", 4, "p")]
    assert lines[1].tag_counts == {"p": 2, "b": 2}


def test_br_ends_its_line_and_counts_on_it():
    lines = get_lines("one<br>two<br/>three")
    assert [(line.text, line.tags) for line in lines] == [("one", 1), ("two", 1), ("three", 0)]


def test_source_lines_follow_newlines_and_keep_blank_lines():
    lines = get_lines("<p>a\nb</p>\n\n<p>c</p>", SOURCE_LINES)
    assert [line.text for line in lines] == ["a", "b", "", "c"]


def test_breaking_at_tags_and_newlines_adds_no_spurious_blank_lines():
    config = LineConfig(break_at_newlines=True)
    assert [line.text for line in get_lines("<p>a</p>\n<p>b</p>", config)] == ["a", "b"]


def test_entities_are_decoded_and_whitespace_collapsed():
    (line,) = get_lines("<p>caf&eacute;  &amp;\n  bar&nbsp;&nbsp;</p>")
    assert line.text == "café & bar"


def test_anchor_text_is_measured_across_inline_tags():
    (line,) = get_lines('<p>read <a href="/x">the <i>full</i> story</a> now</p>')
    assert line.text == "read the full story now"
    assert line.anchor_chars == len("the") + len("full") + len("story")
    assert line.anchor_words == 3


def test_line_blocks_merge_text_lines_within_max_gap():
    lines = get_lines("x\n\ny\nz\n\n\nw", SOURCE_LINES)
    assert [line.text for line in lines] == ["x", "", "y", "z", "", "", "w"]
    assert line_blocks(lines, 0).tolist() == [0, -1, 1, 1, -1, -1, 2]
    assert line_blocks(lines, 1).tolist() == [0, 0, 0, 0, -1, -1, 1]
    assert line_blocks(lines, 2).tolist() == [0] * 7


def test_line_blocks_of_nothing():
    assert line_blocks([]).size == 0
    assert line_blocks(get_lines("<div></div>")).tolist() == [-1]


# --- Step 3: features (Eq. 1, Eq. 2, TKD) --------------------------------------------------


def test_ttr_is_text_length_over_tag_count():
    assert ttr(np.array([120, 7, 9]), np.array([4, 7, 0])).tolist() == [30.0, 1.0, 9.0]


def test_attr_is_anchor_length_over_text_length():
    assert attr(np.array([5, 0, 3]), np.array([20, 10, 0])).tolist() == [0.25, 0.0, 0.0]


def test_title_keywords_of_the_papers_example():
    assert title_keywords("Bladder cancer: Exciting drug break") == {
        "bladder", "cancer", "exciting", "drug", "break"
    }


def test_title_keywords_skip_function_words_and_tkd_counts_occurrences():
    keywords = title_keywords("The drug of the year")
    assert keywords == {"drug", "year"}
    assert keyword_count("Drug after drug, year after YEAR; the drugs", keywords) == 4


def test_block_sums_and_feature_matrix():
    ids = np.array([0, -1, 0, 1])
    assert block_sums([10, 99, 20, 5], ids, 2).tolist() == [30.0, 5.0]
    matrix = lineblock_features(
        text_length=np.array([90.0, 10.0]),
        tags=np.array([3.0, 4.0]),
        anchor_length=np.array([9.0, 10.0]),
        tkd=np.array([2.0, 0.0]),
        lines=np.array([2.0, 1.0]),
    )
    assert matrix.names == LINEBLOCK_FEATURES
    assert matrix.row(0)["ttr"] == 30.0 and matrix.row(0)["attr"] == 0.1
    assert matrix.row(1) == {"ttr": 2.5, "attr": 1.0, "tkd": 0.0, "text_length": 10.0,
                             "tags": 4.0, "anchor_length": 10.0, "lines": 1.0}


# --- Step 4: threshold method ---------------------------------------------------------------


def _features(ttrs, attrs, tkds):
    n = len(ttrs)
    tags = np.ones(n)
    text = np.array(ttrs, dtype=float)
    return lineblock_features(text, tags, np.array(attrs) * text, np.array(tkds), np.ones(n))


def test_rule_all_needs_the_three_tests_and_rescue_lets_title_keywords_add_blocks():
    # block 0: dense, no links, no title words; 1: sparse with 3 title words; 2: dense linky.
    features = _features([40, 5, 50], [0.0, 0.1, 0.5], [0, 3, 4])
    literal, tau = classify(features, LineBlockConfig(rule="all", sigma_lambda=None))
    assert tau == 30 and literal.tolist() == [False, False, False]
    rescued, _ = classify(features, LineBlockConfig(rule="rescue", sigma_lambda=None))
    assert rescued.tolist() == [True, True, False]
    features = _features([31, 30], [0.19, 0.0], [2, 2])  # strict ">" on TTR, ">=" on TKD
    assert classify(features, LineBlockConfig(rule="all", sigma_lambda=None))[0].tolist() == [
        True, False
    ]


def test_sigma_threshold_is_lambda_times_the_standard_deviation():
    ttrs = np.array([0.0, 10.0, 20.0])  # population sd = sqrt(200 / 3)
    config = LineBlockConfig(sigma_lambda=1.5)
    assert ttr_threshold(ttrs, config) == pytest.approx(1.5 * np.sqrt(200 / 3))
    assert ttr_threshold(ttrs, replace(config, sigma_lambda=None)) == 30.0
    assert ttr_threshold(np.zeros(0), config) == 0.0


def test_unknown_rule_is_a_grist_error():
    with pytest.raises(GristError, match="rule"):
        LineBlockConfig(rule="any")


# --- the method ----------------------------------------------------------------------------


def test_method_keeps_the_article_and_drops_navigation_and_footer():
    assert get_method("lineblock") is METHOD and METHOD.needs_dom is False
    config = LineBlockConfig(sigma_lambda=None, lines=LineConfig(max_gap=0))
    result = grist.extract(PAGE, method="lineblock", config=config)
    assert result.document.dom is None
    assert result.text.startswith("Bladder cancer: exciting drug break\n\nA new drug")
    assert "Home" not in result.text and "Copyright" not in result.text
    nav = result.blocks[0]
    assert (nav.text, nav.tag, nav.label, nav.index) == ("Home", "li", BOILERPLATE, 0)
    assert nav.reason == "TTR 1 <= 30, ATTR 1 >= 0.2, TKD 0 < 2"
    heading = next(b for b in result.blocks if b.heading)
    assert (heading.tag, heading.heading, heading.label) == ("h1", 1, CONTENT)
    assert set(heading.info) == {"line_block", "ttr", "attr", "tkd"}
    assert [b.index for b in result.blocks] == list(range(len(result.blocks)))


def test_a_larger_gap_lets_the_footer_join_the_article_block():
    config = LineBlockConfig(sigma_lambda=None, lines=LineConfig(max_gap=1))
    blocks = grist.extract(PAGE, method="lineblock", config=config).blocks
    article, footer = blocks[2], blocks[-1]
    assert footer.info["line_block"] == article.info["line_block"] and footer.is_content


def test_literal_paper_reading_runs_on_source_lines():
    config = LineBlockConfig.paper()
    assert (config.sigma_lambda, config.rule, config.lines) == (None, "all", SOURCE_LINES)
    doc = load_document(PAGE)
    blocks = METHOD.run(doc, config, PageContext(Budget(5))).blocks
    texts = [b.text for b in blocks]
    assert "A new drug for bladder cancer has shown exciting results in a trial of many patients at" in texts
    assert all(b.label in (CONTENT, BOILERPLATE) and b.reason for b in blocks)


def test_papers_lcs_example():
    prf = lcs_prf("Title Copyright Some text in", "Title Some text in the body")
    assert (prf.recall, prf.precision, prf.f1) == pytest.approx((4 / 6, 4 / 5, 8 / 11))


@pytest.mark.parametrize(
    "source",
    [
        "<script " * 20_000 + "<p>text</p>",
        "<!--" * 20_000 + "<p>text</p>",
        "<a" * 50_000 + "<p>text</p>",
        "<p>" + "<" * 100_000 + "text</p>",
        "<div>" * 30_000 + "text" + "</div>" * 30_000,
    ],
)
def test_pathological_sources_finish_fast(source):
    started = time.perf_counter()
    blocks = METHOD.run(load_document(source), LineBlockConfig(), PageContext(Budget(5))).blocks
    assert time.perf_counter() - started < 2.0
    assert any("text" in b.text for b in blocks)
