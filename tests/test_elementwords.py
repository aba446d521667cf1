"""The elements' keywords, matched once per page for the context and ancestry features."""

from __future__ import annotations

import numpy as np

from grist.features.ancestry import ancestry_features
from grist.features.context import CLASS_KEYWORDS, context_features
from grist.features.elementwords import ANCESTRY_KEYWORDS, ElementWords
from grist.html.load import load_document
from grist.html.parse import parse_document
from grist.segment.blocks import SegmentConfig, segment_elements

# Plain inline elements (not recorded) between a block and its containers, nesting deeper than
# the four nearest elements, elements without words, words from itemprop and role, text right
# under the body, a table, and the same class string at different distances.
PAGE = (
    "Loose words under the body"
    "<div id=page class='wrap comment-list'><div class=row><section class=post-body>"
    "<p class=lead>First <a class=more href=/x><b>linked</b> words</a> here</p>"
    "<div><div class=byline><span><em><b>four up</b></em></span></div>"
    "<div class=byline><span><em><b><i>five up</i></b></em></span></div></div>"
    "<article itemprop=articleBody role=main><h2 class=title>Heading</h2>"
    "<p>Plain <i>paragraph</i> text</p><ul class=nav-links><li><a href=/a>Home</a></li>"
    "<li>News</li></ul></article></section></div></div><div class=navbar1><p>Top menu</p></div>"
    "<table class=price-table><tr><td class=cart>9 euros</td><td>in <b><i><u><s>stock"
    "</s></u></i></b></td></tr></table>"
    "<footer class=site-footer><div class=more><div class=related><div><p>see also</p>"
    "</div></div></div></footer>"
)


def _page(body: str, config: SegmentConfig | None = None):
    doc = parse_document(load_document(f"<html><head><title>t</title></head><body>{body}</body>"
                                       "</html>"))
    blocks, elements = segment_elements(doc, config)
    return doc, blocks, elements


def test_context_flags_from_the_element_table_are_those_of_the_blocks_class_strings():
    doc, blocks, elements = _page(PAGE)
    assert len(blocks) >= 10
    from_strings = context_features(blocks, doc)
    from_table = context_features(blocks, doc, element_words=ElementWords(elements))
    assert from_table.names == from_strings.names
    assert np.array_equal(from_table.values, from_strings.values)
    flags = ElementWords(elements).nearest_context_flags(blocks)
    at = {b.text: i for i, b in enumerate(blocks)}
    column = {k: j for j, k in enumerate(CLASS_KEYWORDS)}
    # the byline div is the fourth element open at "four up" (b, em, span, div), the fifth at
    # "five up": inline elements count though they are not recorded
    assert flags[at["four up"], column["byline"]] and not flags[at["five up"], column["byline"]]
    # the page div, with "comment", is the fourth element around the first paragraph, the fifth
    # around the heading
    first = at["First linked words here"]
    assert flags[first, column["lead"]] and flags[first, column["post"]]
    assert flags[first, column["comment"]] and not flags[at["Heading"], column["comment"]]
    assert flags[at["see also"], column["related"]] and not flags[at["see also"], column["footer"]]
    # short keywords need a whole token: "nav-links" holds "nav", "navbar1" does not
    assert flags[at["Home"], column["nav"]] and not flags[at["Top menu"], column["nav"]]
    assert not flags[at["Loose words under the body"]].any()


def test_the_ancestry_keywords_let_nav_start_a_token_and_flag_article_body():
    _, blocks, elements = _page(PAGE)
    words = ElementWords(elements)
    rows = words.ancestry_rows()
    assert rows.shape == (len(words.distinct), len(ANCESTRY_KEYWORDS) + 1)
    row = {w: rows[i] for i, w in enumerate(words.distinct)}
    nav = ANCESTRY_KEYWORDS.index("nav")
    assert row["navbar1"][nav] and row["nav-links"][nav]
    assert row["articleBody main"][-1] and not row["post-body"][-1]
    # the features from a shared table are those ancestry_features finds alone
    counts = np.array([len(b.text.split()) for b in blocks], dtype=float)
    links = np.minimum(np.array([b.anchor_words for b in blocks], dtype=float), counts)
    alone = ancestry_features(blocks, elements, counts, links)
    shared = ancestry_features(blocks, elements, counts, links, words)
    assert np.array_equal(alone.values, shared.values)
    menu = [b.text for b in blocks].index("Top menu")
    assert alone.row(menu)["anc_nav"] == 0.5  # the p's parent


def test_without_recorded_elements_no_block_has_class_flags():
    doc, blocks, elements = _page(PAGE, SegmentConfig(keep_classes=False))
    assert len(elements) == 0 and blocks
    flags = ElementWords(elements).nearest_context_flags(blocks)
    assert flags.shape == (len(blocks), len(CLASS_KEYWORDS)) and not flags.any()
    assert not context_features(blocks, doc).select(
        [f"ctx_cls_{k}" for k in CLASS_KEYWORDS]).values.any()
