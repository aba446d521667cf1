"""Regressions of the fuzz findings, each a storm of one pattern built here: the work they cost
is counted (calls, walks), not timed, and the results match the plain definitions."""

import re

import numpy as np
import pytest
from selectolax.lexbor import LexborHTMLParser

import grist
from grist.clean import apply_rules
from grist.clean.counts import SubtreeCounts, WordCounter, word_count
from grist.clean.rules import _link_blocks, background_images, outermost
from grist.dedup.twcpfm import twc_pfm_weights
from grist.errors import ExtractionTimeout, LimitExceededError
from grist.html.load import load_document
from grist.html.parse import parse_document
from grist.limits import Budget, Limits
from grist.methods.tagscore import _matches
from grist.segment.blocks import PATH_DEPTH, segment

SHARE = '<li><a href="https://facebook.com/u{i}">Share</a>'


def _dom(html: str):
    return LexborHTMLParser(html)


def test_subtree_counts_equal_lexbor_word_counts():
    page = ("<div><p>one two <b>three</b></p><!-- not words --><script>var x = 1;</script>"
            "<ul>" + "".join(f"<li><a href=/{i}>link {i}</a> and text" for i in range(5))
            + "</ul>four</div>")
    dom = _dom(page)
    counts = SubtreeCounts(dom.root, lambda a: True)
    for node in dom.root.traverse():
        if node.tag and node.tag[0] not in "-!_":
            assert counts.words[node.mem_id] == word_count(node)
            assert counts.links[node.mem_id] == len(node.css("a")) - (node.tag == "a")
    assert [a.attributes["href"] for a in counts.target_links] == [f"/{i}" for i in range(5)]


def test_a_storm_of_share_links_judges_each_link_once():
    # 3,000 share links (fuzz cases 03, 04, 12): the test of each link used to run once per
    # ancestor of every link; each container is now judged once from one walk.
    page = "<html><body><p>Intro text, with words.</p><ul>" + "".join(
        SHARE.format(i=i) for i in range(3000)) + "</ul></body></html>"
    calls = []

    def is_social(a):
        calls.append(a)
        return "facebook" in (a.attributes.get("href") or "")

    hits = _link_blocks(_dom(page), is_social, 10, "social")
    assert len(calls) == 3000
    assert [node.tag for node, _ in hits] == ["ul"]


def test_outermost_keeps_only_the_top_of_a_deep_nest():
    dom = _dom("<div class=ad>" * 3000 + "x" + "</div>" * 3000 + "<p class=ad>y</p>")
    nodes = dom.css(".ad")
    kept = outermost(nodes)
    assert len(kept) == 2 and kept[0].parent.tag == "body" and kept[1].tag == "p"


def test_nested_hits_are_counted_from_one_walk(monkeypatch):
    # An ad nest 3,000 deep (fuzz cases 07, 10): every level is a hit whose words were counted
    # anew; after the first, the counter answers from one walk of the page.
    dom = _dom('<div style="background:url(x.png)">' * 3000 + "w " * 10 + "</div>" * 3000)
    direct = []
    monkeypatch.setattr("grist.clean.counts.word_count", lambda n: direct.append(n) or 10)
    counter = WordCounter(dom.root)
    nodes = dom.css("div")
    assert [counter(n) for n in nodes] == [10] * 3000
    assert len(direct) == 1


def test_background_styles_match_the_regular_expression():
    pattern = re.compile(r"background(?:-image)?\s*:[^;]*url\(", re.IGNORECASE)
    for style in ("background:url(a.png)", "color:red; BACKGROUND-IMAGE : url(x) no-repeat",
                  "background: red; background-image:url(a) url(b); margin:0",
                  "backgroundx:url(a)", "background-color:url(", "x:background:y;url(z)",
                  "background:" * 50, "a; background-image:url(q);background:url(r)"):
        found, stripped = background_images(style)
        assert found == (pattern.search(style) is not None)
        assert stripped == pattern.sub("", style)


def test_rules_stop_at_the_time_budget():
    doc = parse_document(load_document("<p>text</p>" * 10 + SHARE.format(i=1) * 5000))
    with pytest.raises(ExtractionTimeout, match="noise"):
        apply_rules(doc, budget=Budget(0.0))


def test_alignment_of_a_storm_is_linear_and_of_a_page_is_difflib():
    before = ["x"] * 10_000 + ["tail"]
    after = ["x"] * 9_000 + ["tail"]
    ops = _matches(before, after)
    kept = sum(i2 - i1 for op, i1, i2, _, _ in ops if op == "equal")
    assert kept == 9_001 and sum(1 for op in ops if op == "insert") == 0
    import difflib

    page_before = ["Home", "About", "Title", "para one", "Share", "para two", "Terms", "x"]
    page_after = ["Title", "para one", "para two", "x", "split-off text"]
    assert _matches(page_before, page_after) == difflib.SequenceMatcher(
        None, page_before, page_after, autojunk=False).get_opcodes()


def test_tagscore_on_ten_thousand_tiny_paragraphs_keeps_every_block():
    result = grist.extract("<p>x" * 10_000, method="tagscore")  # fuzz case 05
    assert len(result.blocks) == 10_000


def _pairwise_weights(seq):
    """TWC-PFM by its definition (Algorithm 1's pairs), for short sequences."""
    positions = {}
    for p, t in enumerate(seq):
        positions.setdefault(t, []).append(p)
    weights = {}
    for t, ps in positions.items():
        total = float(len(ps))
        for u, qs in positions.items():
            if u == t:
                continue
            for k, p in enumerate(ps):
                stop = ps[k + 1] if k + 1 < len(ps) else len(seq)
                after = [q for q in qs if p < q < stop]
                if after:
                    total += 1.0 / (after[0] - p)
        weights[t] = total / len(positions)
    return weights


def test_twc_pfm_is_exact_on_blocks_and_bounded_on_huge_ones():
    seq = "a b c a d b e a c f".split()
    assert twc_pfm_weights(seq) == pytest.approx(_pairwise_weights(seq))
    huge = [f"w{i}" for i in range(60_000)]  # no term repeats: the exact sum is quadratic
    weights = twc_pfm_weights(huge)
    assert len(weights) == 60_000 and all(w > 0 for w in weights.values())


def test_twc_pfm_windowed_pass_equals_the_exact_sums_when_the_window_spans_the_block(
        monkeypatch):
    import random

    from grist.dedup import twcpfm

    rng = random.Random(5)
    seq = [rng.choice("abcdefg") for _ in range(60)]
    monkeypatch.setattr(twcpfm, "EXACT_TERMS", 5)  # the windowed branch, with a window of
    monkeypatch.setattr(twcpfm, "_WINDOW_WORK", 60 * 60)  # 60 positions: all of them
    assert twcpfm.twc_pfm_weights(seq) == pytest.approx(_pairwise_weights(seq))


def test_forest_slices_give_the_same_scores():
    from grist.classify.forest import _PAIRS_PER_SLICE
    from grist.methods import get_method, method_config

    model = get_method("auto").load(method_config("auto"))
    forest = model._fitted().stage1
    rows = _PAIRS_PER_SLICE // forest.num_trees * 2 + 7
    values = np.random.default_rng(3).normal(size=(rows, len(forest.names)))
    raw, contrib = forest.evaluate(values, contributions=True)
    for start in (0, rows - 5):
        part_raw, part_contrib = forest.evaluate(values[start : start + 5], contributions=True)
        assert np.array_equal(raw[start : start + 5], part_raw)
        assert np.array_equal(contrib[start : start + 5], part_contrib)


def test_deep_paths_keep_their_innermost_elements():
    doc = parse_document(load_document("<div>" * 300 + "deep text" + "</div>" * 300))
    (block,) = segment(doc)
    parts = block.path.split(">")
    assert block.depth == 302 and parts[0] == "\u2026" and len(parts) == PATH_DEPTH + 1


def test_blocks_are_capped_and_budget_checked_in_segmentation():
    doc = parse_document(load_document("<p>x" * 5000))
    with pytest.raises(LimitExceededError, match="max_blocks"):
        segment(doc, budget=Budget(60.0, max_blocks=1000))
    with pytest.raises(ExtractionTimeout, match="segmentation"):
        segment(doc, budget=Budget(0.0))
    with pytest.raises(LimitExceededError, match="max_blocks"):
        grist.extract("<p>x" * 5000, method="justext", limits=Limits(max_blocks=1000))


def test_patterns_on_attribute_and_title_text_do_not_backtrack():
    from grist.clean.rules import _size
    from grist.html.load import title_from_source

    # "1", 100,000 spaces and a letter made the width pattern try every split of the spaces;
    # 40,000 "<title" without ">" made the title pattern rescan to the end from each.
    assert _size({"width": "1" + " " * 100_000 + "x"}, "width") is None
    assert _size({"width": " 728 px "}, "width") == 728
    assert title_from_source("<title " * 40_000) == ""
    assert title_from_source("<TITLE lang=en>A &amp;  B</TITLE>") == "A & B"


def test_character_references_of_thousands_of_digits_decode_as_their_value():
    # Python will not turn more than 4,300 decimal digits into an int: html.unescape raised
    # ValueError out of lineblock's line reader and the title read from the source (fuzz run,
    # family "duplicate").
    from grist.html.entities import unescape

    assert unescape("&#" + "0" * 5000 + "65;x") == "Ax"
    assert unescape("&#" + "9" * 5000 + ";") == "\ufffd"
    assert unescape("&#" + "0" * 5000 + ";") == "\ufffd"
    assert unescape("&amp; &#65; &#x42;") == "& A B"
    page = "<title>T&#" + "0" * 6000 + "65;</title><p>word &#" + "0" * 6000 + "66;</p>"
    result = grist.extract(page, method="lineblock")  # reads lines and the title from the source
    assert result.title == "TA" and "word B" in result.text
