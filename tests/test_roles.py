"""Block roles from the gold alignment plus structure, site-grouped folds, page-relative features."""

from __future__ import annotations

import numpy as np
import pytest

from grist.classify.roles import derive_roles, role_names, structural_roles
from grist.features.auto import page_relative, stage1_features
from grist.html.load import load_document
from grist.html.parse import parse_document
from grist.segment.blocks import segment_elements
from grist.train.folds import grouped_folds, site_group
from grist.train.labels import align

PARAGRAPH = ("The council met on Tuesday evening to discuss the bridge over the river, and after a "
             "long debate the members agreed that the old crossing could no longer carry the "
             "traffic of the town.")
NEWS = (
    "<html><head><title>Council backs a new bridge - Town Herald</title></head><body>"
    "<nav><ul><li><a href=/>Home</a></li><li><a href=/news>News</a></li></ul></nav>"
    "<article><h1>Council backs a new bridge</h1>"
    "<p class=standfirst>The vote ends ten years of argument about the crossing.</p>"
    "<div class=byline>By Ann Smith <time>3 March 2024</time></div>"
    f"<p>{PARAGRAPH}</p>"
    "<figure><img src=b.jpg><figcaption>The old bridge in winter. Photo: J. Doe</figcaption></figure>"
    f"<p>{PARAGRAPH.replace('Tuesday', 'Friday')}</p></article>"
    "<section id=comments><p>Great news, about time they did something about it.</p></section>"
    "<div class=related><a href=/a>Another story about roads</a></div>"
    "<footer>Copyright 2024 Town Herald</footer></body></html>"
)


def roles_of(html: str, gold: str) -> dict[str, str]:
    doc = parse_document(load_document(html))
    blocks, elements = segment_elements(doc)
    matrix = stage1_features(blocks, doc, elements)
    labels = np.array(align(blocks, gold).labels)
    roles = derive_roles(matrix, [b.text for b in blocks], labels)
    return dict(zip([b.text for b in blocks], role_names(roles), strict=True))


def test_furniture_gets_its_role_whether_or_not_the_gold_holds_it():
    body_only = PARAGRAPH + "\n\n" + PARAGRAPH.replace("Tuesday", "Friday")
    everything = ("Council backs a new bridge\n\nThe vote ends ten years of argument about the "
                  "crossing.\n\nBy Ann Smith 3 March 2024\n\n" + PARAGRAPH + "\n\nThe old bridge "
                  "in winter. Photo: J. Doe\n\n" + PARAGRAPH.replace("Tuesday", "Friday"))
    for gold in (body_only, everything):
        roles = roles_of(NEWS, gold)
        assert roles["Council backs a new bridge"] == "title"
        assert roles["The vote ends ten years of argument about the crossing."] == "subtitle"
        assert roles["By Ann Smith 3 March 2024"] == "byline"
        assert roles["The old bridge in winter. Photo: J. Doe"] == "caption"
        assert roles[PARAGRAPH] == "body"
        assert roles["Home"] == "navigation"
        assert roles["Great news, about time they did something about it."] == "comment"
        assert roles["Another story about roads"] == "related"
        assert roles["Copyright 2024 Town Herald"] == "footer"


ABSATZ = ("Der Gemeinderat hat am Dienstagabend lange über die Brücke am Fluss beraten und "
          "schließlich beschlossen, dass die alte Querung den Verkehr der Stadt nicht mehr tragen "
          "kann.")
NACHRICHT = (
    "<html><head><title>Gemeinderat will eine neue Brücke - Stadtbote</title></head><body>"
    "<div class=hauptnavigation><ul><li><a href=/>Start</a></li><li><a href=/n>Lokales</a></li>"
    "</ul></div><div class=artikel><h1>Gemeinderat will eine neue Brücke</h1>"
    "<div class=datum>Aktualisiert am 3. März 2024, 10:12 Uhr</div>"
    f"<p>{ABSATZ}</p><p>{ABSATZ.replace('Dienstagabend', 'Freitagabend')}</p></div>"
    "<div class=kommentarbereich><p>Endlich tut sich etwas, das war lange überfällig.</p></div>"
    "<div class=aehnliche-artikel><a href=/a>Noch ein Artikel über Straßen</a></div>"
    "<div class=fusszeile>Impressum und Datenschutz des Stadtboten</div></body></html>"
)


def test_german_markup_and_bylines_get_the_same_roles():
    roles = roles_of(NACHRICHT, ABSATZ + "\n\n" + ABSATZ.replace("Dienstagabend", "Freitagabend"))
    expected = {"Gemeinderat will eine neue Brücke": "title",
                "Aktualisiert am 3. März 2024, 10:12 Uhr": "byline", ABSATZ: "body",
                "Start": "navigation",
                "Endlich tut sich etwas, das war lange überfällig.": "comment",
                "Noch ein Artikel über Straßen": "related",
                "Impressum und Datenschutz des Stadtboten": "footer"}
    assert {text: roles[text] for text in expected} == expected


def test_a_byline_word_the_whole_body_carries_marks_no_byline():
    # A Sphinx manual's section id "multimedia-services" holds the byline word "time": every
    # paragraph sits under it, so it tells none of them apart from the body.
    opening = ("The modules described in this chapter implement various algorithms or interfaces "
               "that are mainly useful for multimedia applications.")
    html = ("<html><body><div class=body role=main><section id=multimedia-services>"
            "<h1>Multimedia Services</h1><div class=byline>By Ann Smith</div>"
            f"<p>{opening}</p><p>{PARAGRAPH}</p></section></div></body></html>")
    roles = roles_of(html, opening + "\n\n" + PARAGRAPH)
    assert roles[opening] == "body" and roles[PARAGRAPH] == "body"
    assert roles["By Ann Smith"] == "byline"  # still a byline by its words
    # the same opening under a section that names no byline word was body before too
    plain = html.replace("multimedia-services", "audio-services")
    assert roles_of(plain, opening + "\n\n" + PARAGRAPH)[opening] == "body"


def test_by_before_a_lower_case_word_or_a_number_opens_a_sentence_not_a_byline():
    # "By 2030, ...", "By default, ..." and "Par exemple, ..." start a paragraph; a byline names
    # someone
    sentence = "By default, everything that is outdated is built again on every run."
    french = "Par exemple, la commande reconstruit tout ce qui a vieilli depuis hier."
    lead = "By 2030, half of the cars sold in the region will run on batteries alone."
    html = ("<html><body><article><h1>Building the manual</h1><p>By Ann Smith</p>"
            f"<p>{lead}</p><p>{sentence}</p><p>{french}</p><p>{PARAGRAPH}</p></article>"
            "</body></html>")
    gold = "\n\n".join([lead, sentence, french, PARAGRAPH])
    roles = roles_of(html, gold)
    assert roles[lead] == roles[sentence] == roles[french] == "body"
    assert roles["By Ann Smith"] == "byline"
    # a short line is a byline whatever follows "by" ("by admin", "by the Associated Press")
    short = html.replace("By Ann Smith", "by the Associated Press")
    assert roles_of(short, gold)["by the Associated Press"] == "byline"


def test_readers_comments_are_comments_even_in_the_gold():
    html = ("<html><body><article><p>" + PARAGRAPH + "</p><p>" + PARAGRAPH + "</p></article>"
            "<div class=comments><p>I disagree with the council on this one.</p></div>"
            "</body></html>")
    doc = parse_document(load_document(html))
    blocks, elements = segment_elements(doc)
    roles = role_names(derive_roles(stage1_features(blocks, doc, elements),
                                    [b.text for b in blocks], np.array([True, True, True])))
    assert roles == ["body", "body", "comment"]


def test_code_whose_highlighting_opens_with_a_comment_is_body():
    # A highlighter wraps the code's first line, a shell comment, in ``hljs-comment``: that class
    # describes the code, not a readers' comment under the page.
    code = ("<pre class=language-bash><code><span class=hljs-comment># set up the repository"
            "</span>\ngit init\ngit add -A\ngit commit -m first</code></pre>")
    html = (f"<html><body><article><p>{PARAGRAPH}</p>{code}<p>{PARAGRAPH}</p></article>"
            "</body></html>")
    doc = parse_document(load_document(html))
    blocks, elements = segment_elements(doc)
    assert blocks[1].preformatted and "hljs" not in blocks[1].info["classes"]
    assert "language-bash" in blocks[1].info["classes"]  # the pre's own class is kept
    roles = role_names(derive_roles(stage1_features(blocks, doc, elements),
                                    [b.text for b in blocks], np.array([True, True, True])))
    assert roles == ["body", "body", "body"]


def test_a_class_on_html_or_body_names_the_page_not_its_blocks():
    # Gawker's pages say ``<html class="feature_newcomments">`` and many themes say
    # ``<body class="has-sidebar">``: words about the page, under which every block sits.
    html = ("<html class='feature_newcomments'><body class='post has-sidebar'>"
            "<div><a href=/>Home</a> <a href=/in>Sign in</a></div>"
            f"<article><p>{PARAGRAPH}</p><p>{PARAGRAPH}</p></article>"
            "<div class=comments><p>I disagree with the council on this one.</p></div>"
            "</body></html>")
    doc = parse_document(load_document(html))
    blocks, elements = segment_elements(doc)
    matrix = stage1_features(blocks, doc, elements)
    assert role_names(structural_roles(matrix)) == ["other", "other", "other", "comment"]
    # with the readers' comment in the gold, it is still the article's comment, not a thread post
    roles = role_names(derive_roles(matrix, [b.text for b in blocks],
                                    np.array([False, True, True, True])))
    assert roles == ["other", "body", "body", "comment"]


def test_a_class_just_below_body_still_names_a_block_on_a_deeply_nested_page():
    # body's child is at distance depth - 2 however deep the block sits: the test must not
    # blur it with body (at depth - 1) when the two closenesses are a thousandth apart
    nesting = 1200
    html = ("<html><body><div class=comments>" + "<div>" * nesting
            + "<p>I went to the meeting and the plan is far too costly.</p>" + "</div>" * nesting
            + "</div></body></html>")
    doc = parse_document(load_document(html))
    blocks, elements = segment_elements(doc)
    assert blocks[0].depth > 1000
    assert role_names(structural_roles(stage1_features(blocks, doc, elements))) == ["comment"]


def test_a_thread_is_body_and_a_comments_gold_names_comments():
    html = ("<html><body><div class=comment-thread><p>" + PARAGRAPH + "</p></div>"
            "<div class=box><p>I disagree with the council on this one entirely.</p></div>"
            "</body></html>")
    doc = parse_document(load_document(html))
    blocks, elements = segment_elements(doc)
    matrix = stage1_features(blocks, doc, elements)
    gold = np.array([True, False])
    roles = role_names(derive_roles(matrix, [b.text for b in blocks], gold,
                                    comments=np.array([False, True])))
    assert roles == ["body", "comment"]


def test_noise_roles_follow_the_nearest_telling_ancestor():
    html = ("<html><body><div class=sidebar><div class=newsletter-signup><p>Get our emails</p>"
            "</div></div><p>Nothing telling here at all</p></body></html>")
    doc = parse_document(load_document(html))
    blocks, elements = segment_elements(doc)
    roles = role_names(structural_roles(stage1_features(blocks, doc, elements)))
    assert roles == ["promo", "other"]  # newsletter is nearer than sidebar


def test_site_groups_join_subdomains_and_fall_back_to_the_links():
    suffixes = frozenset({"co.uk"})
    assert site_group("news.bbc.co.uk", None, "", "x", suffixes) == "bbc.co.uk"
    assert site_group(None, "https://www.example.com/a", "", "x", suffixes) == "example.com"
    html = ('<a href="http://blog.site.org/1">a</a><a href="http://site.org/2">b</a>'
            '<a href="http://ads.net/x">c</a><a href="https://blog.site.org/3">d</a>')
    assert site_group(None, None, html, "x", suffixes) == "site.org"
    assert site_group(None, None, "<p>no links</p>", "page-7", suffixes) == "page-7"


def test_grouped_folds_never_split_a_group_and_balance_sizes():
    groups = ["a"] * 5 + ["b"] * 3 + ["c"] * 3 + ["d", "e", "f", "g"]
    folds = grouped_folds(groups, 3)
    for group in set(groups):
        assert len({f for f, g in zip(folds, groups) if g == group}) == 1
    sizes = sorted(np.bincount(folds).tolist())
    assert sizes == [5, 5, 5]
    assert grouped_folds(list(reversed(groups)), 3) == list(reversed(folds))


def test_page_relative_features_place_each_probability_on_its_page():
    p = np.array([0.9, 0.1, 0.8, 0.15, 0.5, 0.9])
    words = np.array([10, 5, 20, 1, 3, 10.0])
    got = page_relative(p, words)
    column = dict(zip(got.names, got.values.T, strict=True))
    assert np.allclose(column["above_share"], [0, 44 / 49, 20 / 49, 43 / 49, 40 / 49, 0])
    assert np.allclose(column["of_max"], p / 0.9)
    assert np.allclose(column["page_otsu"], 0.65)  # {0.1, 0.15, 0.5} against {0.8, 0.9}
    assert np.allclose(column["page_gap"], 0.35) and np.allclose(column["gap_diff"], p - 0.325)
    assert np.allclose(column["page_q50"], 0.8) and np.allclose(column["page_q75"], 0.9)


def test_best_cut_is_the_middle_of_the_best_thresholds():
    from grist.classify.cut import best_cut, page_cut_features

    p = np.array([0.9, 0.62, 0.3, 0.1])
    words = np.array([10.0, 10.0, 10.0, 10.0])
    # keeping exactly the first two blocks is best for any threshold in (0.3, 0.62]
    assert best_cut(p, words, np.array([True, True, False, False])) == pytest.approx(0.4625)
    assert best_cut(p, words, np.zeros(4, bool)) is None
    row = page_cut_features(p, words)
    assert row[0] == 0.1 and row[4] == 0.9  # the 10 % and 90 % word quantiles
    assert row[9] == 0.5  # half of the words are over 0.5


def test_page_types_are_learned_from_typed_pages_and_predicted_out_of_fold():
    lgb = pytest.importorskip("lightgbm")
    from grist.classify.pagetype import ROW_NAMES, TYPES, fit_types, type_label

    assert type_label("blog", "modern-dev") == TYPES.index("article")
    assert type_label(None, "dragnet") == 0 and type_label(None, "cleaneval-final") == -1
    assert type_label("unknown-kind", "x") == -1
    rng = np.random.default_rng(0)
    rows = rng.normal(size=(120, len(ROW_NAMES)))
    labels = np.where(rows[:, 0] > 0, 1, 0)  # "forum" when the first signal is high
    labels[:10] = -1  # untyped pages get predictions too
    params = {"learning_rate": 0.3, "verbosity": -1, "num_threads": 1, "seed": 1,
              "deterministic": True}
    text, probabilities = fit_types(lgb, rows, labels, params, rounds=30, folds=2)
    assert probabilities.shape == (120, len(TYPES))
    assert np.allclose(probabilities.sum(axis=1), 1.0)
    guessed = probabilities[10:, :2].argmax(axis=1)
    assert (guessed == labels[10:]).mean() > 0.85  # out of fold, so not memorised
    assert "num_class=7" in text
