"""Seed 001 weighted block score (Table 4) and seed 000 block importance (Eq. 3-7)."""

import numpy as np
import pytest

from grist.classify.scoring import (
    FEATURE_NAMES,
    block_importance,
    keyword_frequency,
    label_by_importance,
    label_by_weighted_score,
    main_block_weight,
    position_feature,
    scoring_features,
    scoring_threshold,
    term_classes,
    title_keyword,
    weighted_block_scores,
)
from grist.features.tokens import terms
from grist.document import BOILERPLATE, CONTENT, Block

# Seed 001 Table 4: (title words, link words, content words) -> block score; distinct 12, 9, 227.
TABLE4 = {
    "b2": ((7, 0, 39), 0.756),
    "b3": ((0, 4, 36), 0.803),
    "b6": ((0, 0, 33), 0.942),
    "b8": ((7, 7, 55), 0.495),
    "b11": ((10, 6, 52), 0.458),
    "b12": ((0, 0, 36), 0.937),
    "b13": ((0, 0, 41), 0.928),
}


def test_table4_weighted_block_scores_and_threshold():
    counts = np.array([c for c, _ in TABLE4.values()])
    weights, scores = weighted_block_scores(counts, (12, 9, 227))
    assert weights[0] == pytest.approx([0.583, 0.0, 0.172], abs=5e-4)
    assert weights[3] == pytest.approx([0.583, 0.778, 0.242], abs=5e-4)
    assert scores == pytest.approx([s for _, s in TABLE4.values()], abs=1.5e-3)
    threshold = scoring_threshold(7, 14)
    assert threshold == 0.5
    significant = [b for b, s in zip(TABLE4, scores) if s > threshold]
    assert significant == ["b2", "b3", "b6", "b12", "b13"]  # b8 and b11 fall below 0.5


def test_term_classes_title_before_link_before_content():
    counts, distinct = term_classes([["bridg", "close", "home"], ["home", "road"]], {"bridg"}, {"home"})
    assert counts.tolist() == [[1, 1, 1], [0, 1, 1]]
    assert distinct == (1, 1, 2)
    _, scores = weighted_block_scores(np.zeros((1, 3)), (0, 0, 0))
    assert scores.tolist() == [1.0]


def test_seed000_importance_parts():
    # T_k = 1 - m / (m + sum F): title {x, y}, block has x twice and y once -> 1 - 2/5
    assert title_keyword(["x", "x", "y", "z"], {"x", "y"}) == pytest.approx(0.6)
    assert title_keyword(["z"], {"x", "y"}) == 0.0 and title_keyword(["z"], set()) == 0.0
    # K_f: top-2 keyword frequencies (3 + 2) over 20 page words
    assert keyword_frequency(list("aaabbc"), 20, top_k=2) == pytest.approx(0.25)
    assert position_feature(7, 10) == 1.0 and position_feature(6, 10) == 0.0
    assert main_block_weight([0.2, 0.3], alpha=2.0) == pytest.approx(1.0)
    values = block_importance([["x", "a", "a"], ["b"]], {"x"}, None)
    assert values[0, :3] == pytest.approx([0.5, 0.75, 1.0])
    assert values[0, 3] == pytest.approx((0.5 + 0.75 + 1.0) / 3)


def test_stages_and_feature_matrix():
    texts = [
        "Engineers detected deep cracks in the steel span during a routine inspection",
        "Home News Sport Weather Contact",
        "Traffic is diverted through the northern ring road until repairs finish",
    ]
    blocks = [Block(text=t, index=i) for i, t in enumerate(texts)]
    seqs = [terms(t) for t in texts]  # the stop list may change: derive the counts
    links = set(seqs[1])
    distinct_content = len(set(seqs[0]) | set(seqs[2]))
    expected = [1 - 0.4 * len(seqs[0]) / distinct_content, 0.7, 1 - 0.4 * len(seqs[2]) / distinct_content]
    label_by_weighted_score(blocks, "Bridge closed", links, total_blocks=4)  # threshold 3/4
    assert [b.score for b in blocks] == pytest.approx(expected)
    assert expected[0] > 0.75 and expected[2] > 0.75
    assert [b.label for b in blocks] == [CONTENT, BOILERPLATE, CONTENT]
    assert blocks[1].reason == "block score 0.700 <= threshold 0.750"
    fm = scoring_features(blocks, "Bridge closed", links)
    assert fm.names == FEATURE_NAMES and len(fm) == 3
    assert fm.column("link_weight").tolist() == [0.0, 1.0, 0.0]
    label_by_importance(blocks, "Engineers inspection", threshold=0.25)
    # block 0: T_k = 1 - 2/4 (two title keywords, each once), K_f = its terms / page terms, PF = 0
    page_terms = sum(len(q) for q in seqs)
    assert blocks[0].score == pytest.approx((0.5 + len(seqs[0]) / page_terms) / 3)
    assert blocks[0].label == CONTENT and blocks[1].label == BOILERPLATE
