"""The element table recorded while segmenting, and the ancestry features read from it."""

from __future__ import annotations

import numpy as np

from grist.features.ancestry import NAMES, ancestry_features
from grist.html.load import load_document
from grist.html.parse import parse_document
from grist.segment.blocks import segment_elements
from grist.segment.elements import describe


def page(body: str):
    doc = parse_document(load_document(f"<html><head><title>t</title></head><body>{body}</body></html>"))
    return segment_elements(doc)


def features(body: str):
    blocks, elements = page(body)
    counts = np.array([len(b.text.split()) for b in blocks], dtype=float)
    links = np.minimum(np.array([b.anchor_words for b in blocks], dtype=float), counts)
    matrix = ancestry_features(blocks, elements, counts, links)
    return {b.text: matrix.row(i) for i, b in enumerate(blocks)}


def test_attributes_give_words_and_hiding():
    assert describe({"class": "a b", "id": "x"}) == ("x a b", False)
    assert describe({"itemprop": "articleBody", "class": "c"}) == ("c articleBody", False)
    assert describe({"role": "navigation", "data-testid": "menu"}) == ("navigation menu", False)
    assert describe({"hidden": ""})[1] and describe({"aria-hidden": "true"})[1]
    assert describe({"style": "color: red; display : none"})[1]
    assert describe({"style": "visibility:hidden"})[1]
    assert not describe({"style": "display:block"})[1]
    assert not describe({"aria-hidden": "false"})[1]


def test_every_block_knows_its_innermost_element_and_the_subtrees_nest():
    blocks, elements = page("<div class=outer><p>one</p><div class=inner><span>two</span></div>"
                            "</div><p>three</p>")
    rows = elements.rows
    tags = [r[2] for r in rows]
    one, two, three = blocks
    assert tags[one.info["element"]] == "p" and tags[three.info["element"]] == "p"
    assert tags[two.info["element"]] == "span"
    outer = tags.index("div")
    inner = outer + 1 + tags[outer + 1:].index("div")
    assert rows[inner][0] == outer and rows[inner][3] == "inner"
    assert outer < inner < two.info["element"] < elements.end[inner] <= elements.end[outer]
    assert three.info["element"] >= elements.end[outer]
    assert rows[two.info["element"]][1] == two.depth - 1  # depth counts the elements above


def test_keyword_closeness_reaches_any_ancestor():
    deep = "<div>" * 8 + "<p>deep teaser text</p>" + "</div>" * 8
    got = features(f"<div class=related-stories>{deep}</div><div class=story><p>plain</p></div>")
    teaser, plain = got["deep teaser text"], got["plain"]
    assert 0 < teaser["anc_related"] < 0.15  # ten levels up, still seen
    assert plain["anc_related"] == 0 and plain["anc_story"] == 0.5  # the p's parent div
    assert teaser["anc_story"] == 0


def test_hidden_ancestors_and_the_hidden_share():
    got = features("<div style='display:none'><p>one two three</p></div><p>four five six seven</p>"
                   "<div aria-hidden=true><div><p>eight</p></div></div>")
    assert got["one two three"]["anc_hidden"] == 0.5
    assert got["eight"]["anc_hidden"] == 1 / 3
    assert got["four five six seven"]["anc_hidden"] == 0
    assert got["eight"]["page_hidden_share"] == 0.5


def test_the_largest_article_is_the_article_and_small_ones_are_teasers():
    body = ("<main><article><h1>Headline here</h1><p>" + "word " * 40 + "</p><p>" + "more " * 30
            + "</p></article><aside>" + "".join(
                f"<article><a href=/{i}>Teaser number {i}</a></article>" for i in range(3))
            + "</aside></main>")
    got = features(body)
    paragraph, teaser = got[("word " * 40).strip()], got["Teaser number 1"]
    assert paragraph["art_in"] == 1 and paragraph["art_other"] == 0
    assert teaser["art_in"] == 0 and teaser["art_other"] == 1
    assert paragraph["art_count"] == np.log1p(4)
    assert paragraph["dense_in"] == 1 and teaser["dense_in"] == 0


def test_cards_of_a_teaser_grid():
    cards = "".join(f"<div class=card><a href=/{i}>Story {i}</a><p>A short summary {i}</p></div>"
                    for i in range(4))
    got = features(f"<div class=grid>{cards}</div><p>{'body ' * 50}</p>")
    card = got["Story 2"]
    assert card["card_siblings"] == np.log1p(4)
    assert card["card_words"] == np.log1p(6)
    assert card["card_linkdens"] == 2 / 6
    assert card["card_blocks"] == np.log1p(2)
    assert np.isclose(card["card_group_share"], 24 / 74)
    assert got[("body " * 50).strip()]["card_siblings"] == 0


def test_a_page_without_elements_gives_zeros():
    blocks, _ = page("<p>alone</p>")
    matrix = ancestry_features(blocks, None, np.ones(1), np.zeros(1))
    assert matrix.names == NAMES and not matrix.values.any()


def test_copies_say_which_copy_a_block_is():
    from grist.features.copies import copy_features

    texts = ["Home", "The same long paragraph", "Other words here", "Home",
             "The same long paragraph"]
    counts = np.array([1.0, 4.0, 3.0, 1.0, 4.0])
    got = copy_features(texts, counts)
    assert got.values[:, 0].tolist() == [0, 0, 0, 0, 1]  # short blocks are not counted
    assert got.values[:, 1].tolist() == [0, 1, 0, 0, 0]
    assert got.values[0, 2] == 8 / 13
    assert not copy_features(texts[:3], counts[:3]).values.any()


def test_noscript_copies_are_marked():
    got = features("<div><p>one two three four</p></div><noscript><div><p>five six seven eight"
                   "</p></div></noscript>")
    assert got["one two three four"]["anc_noscript"] == 0
    assert got["five six seven eight"]["anc_noscript"] == 1 / 3
    assert got["one two three four"]["page_noscript_share"] == 0.5


def test_markup_shown_as_text_is_measured():
    from grist.features.markup import markup_features

    got = markup_features(['<div class="a"><img src=x></div>', "plain words here"],
                          np.array([3.0, 3.0]))
    assert got.values[:, 0].tolist() == [2.0, 0.0]
    assert not markup_features(["plain words"], np.array([2.0])).values.any()  # none on the page


def test_flag_columns_resolved_in_groups_give_the_same_features(monkeypatch):
    from grist.features import ancestry

    body = ("<div class=related-stories><ul>" + "<li class=card><a href=/a>teaser</a></li>" * 7
            + "</ul></div><article><div class=story hidden><p>one</p></div><p>two</p></article>"
            + "<noscript><p>copy</p></noscript><footer class=footer><p>legal</p></footer>")
    together = features(body)  # a small page: every column at once
    monkeypatch.setattr(ancestry, "_CELLS_AT_ONCE", 1)
    monkeypatch.setattr(ancestry, "_COLUMNS_AT_LEAST", 1)  # one flag column at a time
    assert features(body) == together
    monkeypatch.setattr(ancestry, "_CELLS_AT_ONCE", 60)  # a few columns at a time
    assert features(body) == together


def test_class_words_of_other_languages_read_as_their_english_keyword():
    english = features("<div class='comments-area'><p>nice post</p></div>"
                       "<div class=ad-slot><p>buy now</p></div><footer class=x><p>end</p></footer>"
                       "<div class=related><p>more stories</p></div>")
    german = features("<div class='kommentarbereich'><p>nice post</p></div>"
                      "<div class=werbung><p>buy now</p></div><footer class=x><p>end</p></footer>"
                      "<div class=aehnliche-artikel><p>more stories</p></div>")
    for text, keyword in (("nice post", "anc_comment"), ("buy now", "anc_ad"),
                          ("more stories", "anc_related")):
        assert english[text][keyword] == german[text][keyword] == 0.5  # the p's parent
    # a whole-word alias does not fire inside a longer token, a starred one does
    assert features("<div class=autorotate><p>slides</p></div>")["slides"]["anc_author"] == 0
    assert features("<div class=autor><p>Ana</p></div>")["Ana"]["anc_author"] == 0.5
    assert features("<div class=seitenfussbereich><p>x y</p></div>")["x y"]["anc_footer"] == 0.5


def test_every_alias_names_a_keyword_the_features_read():
    from grist.features.ancestry import ANCESTRY_KEYWORDS
    from grist.features.context import CLASS_KEYWORDS
    from grist.features.keywords import class_aliases

    aliases = class_aliases()
    assert set(aliases) <= set(ANCESTRY_KEYWORDS) | set(CLASS_KEYWORDS)
    words = [w.rstrip("*") for ws in aliases.values() for w in ws]
    assert all(w.isalnum() and w == w.lower() for w in words)  # tokens are runs of a-z, 0-9
    assert len(words) == len(set(words))  # one keyword per alias


def test_the_factored_keyword_pattern_finds_exactly_the_tokens_holding_a_keyword():
    import random
    import re

    from grist.features.ancestry import ANCESTRY_KEYWORDS
    from grist.features.keywords import trie_pattern

    words = [w for w in ANCESTRY_KEYWORDS if len(w) > 3] + ["com", "comment", "commentaire"]
    pattern = re.compile(trie_pattern(words))
    rng = random.Random(5)
    tokens = ["".join(rng.choice("acdemnorst") for _ in range(rng.randint(1, 12)))
              for _ in range(3000)]
    tokens += [f"x{w}y" for w in words] + [w[:-1] for w in words] + words
    for token in tokens:
        assert bool(pattern.search(token)) == any(w in token for w in words), token
