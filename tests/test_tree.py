"""Seed 000's decision tree: entropy splits, minimum leaf size, decision paths, the method."""

from __future__ import annotations

import numpy as np
import pytest

import grist
from grist.errors import ModelError
from grist.methods.tree import TreeConfig
from grist.classify.tree import DecisionTree

NAMES = ("link_density", "num_words")


def synthetic(n: int = 2000):
    """Content = few links and many words, the seed 000 §4.1.2 intuition."""
    rng = np.random.default_rng(0)
    links = rng.random(n)
    count = rng.integers(1, 60, n).astype(float)
    labels = (links <= 0.3) & (count > 10)
    return np.column_stack([links, count]), labels


def test_tree_learns_the_two_thresholds_and_respects_min_leaf():
    values, labels = synthetic()
    tree = DecisionTree(min_leaf=20).fit(values, labels, NAMES)
    assert ((tree.predict(values) >= 0.5) == labels).mean() >= 0.97
    inner = tree.left_ >= 0
    cuts = {NAMES[f]: t for f, t in zip(tree.feature_[inner], tree.threshold_[inner], strict=True)}
    assert abs(cuts["link_density"] - 0.3) < 0.02
    assert 10 <= cuts["num_words"] < 11
    leaves = tree.leaves(values)
    assert np.bincount(leaves)[np.unique(leaves)].min() >= 20


def test_decision_path_reads_like_the_papers_example():
    values, labels = synthetic()
    tree = DecisionTree(min_leaf=20).fit(values, labels, NAMES)
    path = tree.decision_path(np.array([0.9, 50.0]))
    assert "link_density > 0.3" in path
    assert tree.decision_path(np.array([0.1, 50.0])).count("<=") >= 1


def test_tree_round_trips_through_json(tmp_path):
    values, labels = synthetic()
    tree = DecisionTree(min_leaf=20).fit(values, labels, NAMES)
    tree.save(tmp_path / "t.json")
    again = DecisionTree.load(tmp_path / "t.json")
    assert again.names_ == NAMES
    assert np.array_equal(again.predict(values), tree.predict(values))


def test_one_class_training_is_a_model_error():
    values, _ = synthetic()
    with pytest.raises(ModelError):
        DecisionTree().fit(values, np.ones(len(values), dtype=bool), NAMES)


def test_loading_something_else_is_a_model_error(tmp_path):
    (tmp_path / "x.json").write_text('{"format": "other"}')
    with pytest.raises(ModelError):
        DecisionTree.load(tmp_path / "x.json")
    with pytest.raises(ModelError):
        DecisionTree.load(tmp_path / "missing.json")


ARTICLE = (
    "<html><head><title>t</title></head><body><ul>"
    + "".join(f"<li><a href=/{i}>Section {i}</a></li>" for i in range(6))
    + "</ul>"
    + "".join(
        f"<p>Paragraph {i} tells a long story about the harbour, the boats that came in at dawn "
        "and the people who waited for them on the quay in all kinds of weather.</p>"
        for i in range(4)
    )
    + "</body></html>"
)


def test_shipped_tree_keeps_paragraphs_drops_link_list_and_explains():
    result = grist.extract(ARTICLE, method="tree")
    kept = [b.text for b in result.content_blocks]
    assert all(t.startswith("Paragraph") for t in kept) and len(kept) == 4
    assert all(b.reason and ("<=" in b.reason or ">" in b.reason) for b in result.blocks)
    assert grist.extract(ARTICLE, method="tree").text == result.text


def test_tree_config_with_missing_model_is_a_model_error(tmp_path):
    with pytest.raises(ModelError):
        grist.extract(ARTICLE, method="tree", config=TreeConfig(model_path=str(tmp_path / "no")))
