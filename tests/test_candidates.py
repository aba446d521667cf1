"""Readability-style container features (grist.features.candidates)."""

from __future__ import annotations

import numpy as np

from grist.features.candidates import (
    NAMES,
    candidate_columns,
    candidate_features,
    cut_path,
    paragraph_scores,
)
from grist.html.load import load_document
from grist.html.parse import parse_document
from grist.segment.blocks import segment

SENTENCE = "This paragraph, which is long enough, talks about the subject of the page at length. "
PAGE = f"""<html><head><title>t</title></head><body>
<div class="menu"><ul>
  <li><a href="/a">Home page of the whole site</a></li>
  <li><a href="/b">Archive of all articles, by month</a></li>
  <li><a href="/c">About the people who write here</a></li>
</ul></div>
<div class="story">
  <h1>The headline</h1>
  <p>{SENTENCE * 3}</p>
  <p>{SENTENCE * 2}</p>
  <p>{SENTENCE}</p>
</div>
<div class="links"><p><a href="/x">{SENTENCE * 3}</a></p><p><a href="/y">{SENTENCE}</a></p></div>
<div class="foot"><p>Copyright 2024, the site</p></div>
</body></html>"""


def _features(html: str) -> tuple[list[str], dict[str, np.ndarray]]:
    blocks = segment(parse_document(load_document(html)))
    matrix = candidate_features(blocks)
    return [b.text for b in blocks], {n: matrix.column(n) for n in matrix.names}


def test_paragraph_points_follow_readability():
    # 1 + commas + one per full 100 characters (at most 3); nothing under 25 characters.
    assert paragraph_scores(["a, b, c"]).tolist() == [0.0]
    assert paragraph_scores(["x" * 250 + ",,"]).tolist() == [1.0 + 2.0 + 2.0]
    assert paragraph_scores(["x" * 900]).tolist() == [1.0 + 0.0 + 3.0]


def test_inline_wrappers_are_cut_from_paths():
    assert cut_path("html>body>div>p>strong>a", 4) == ["html", "body", "div#4", "p"]
    assert cut_path("html>body>span") == ["html", "body"]
    assert cut_path("") == []


def test_article_container_is_the_top_candidate():
    texts, f = _features(PAGE)
    story = [i for i, t in enumerate(texts) if t.startswith("This paragraph")][:3]
    menu = [i for i, t in enumerate(texts) if t.startswith(("Home", "Archive", "About"))]
    linked = [i for i, t in enumerate(texts) if t.startswith("This paragraph")][3:]
    assert len(story) == 3 and len(menu) == 3 and len(linked) == 2
    assert all(f["cand_in_top"][i] == 1.0 for i in story)
    assert all(f["cand_in_top"][i] == 0.0 for i in menu + linked)
    assert all(f["cand_best"][i] == 1.0 for i in story)
    # The linked paragraphs score as much text, but their link density zeroes their container.
    assert all(f["cand_l1"][i] <= 0.0 for i in linked)
    # Everything is inside the body, the top candidate's parent.
    assert f["cand_in_top_parent"].min() == 1.0
    # Signed distance to the top candidate: negative before it, positive after.
    assert f["cand_top_dist"][menu[0]] < 0 < f["cand_top_dist"][linked[0]]
    assert f["cand_top_linkdens"][0] == 0.0
    assert 0.2 < f["cand_top_share"][0] < 0.6


def test_no_blocks_gives_an_empty_matrix():
    matrix = candidate_columns([], [], np.zeros(0), np.zeros(0))
    assert matrix.names == NAMES and matrix.values.shape == (0, len(NAMES))


def test_distinct_ranks_keys_as_unique_does():
    from grist.features.candidates import _distinct as distinct

    keys = np.array([7, 3, 7, 9, 3, 3, 1])
    unique, where, inverse = distinct(keys)
    want_unique, want_inverse = np.unique(keys, return_inverse=True)
    assert unique.tolist() == want_unique.tolist() and inverse.tolist() == want_inverse.tolist()
    assert keys[where].tolist() == unique.tolist()  # one of each
    assert [len(a) for a in distinct(np.zeros(0, dtype=np.int64))] == [0, 0, 0]
