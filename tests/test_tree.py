"""Seed 000's decision tree: entropy splits, minimum leaf size, decision paths, the method."""

from __future__ import annotations

import numpy as np
import pytest

import grist
from grist.errors import ConfigError, ModelError
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


@pytest.mark.parametrize(("settings", "field"), [
    ({"min_leaf": 0}, "min_leaf"), ({"min_leaf": "x"}, "min_leaf"),
    ({"min_leaf": 1.5}, "min_leaf"), ({"max_depth": 0}, "max_depth")])
def test_settings_out_of_range_are_a_config_error_naming_them(settings, field):
    """scikit-learn's InvalidParameterError came out of fit()."""
    with pytest.raises(ConfigError, match=rf"DecisionTree\.{field} must be a whole number"):
        DecisionTree(**settings)


def test_fit_names_a_mismatch_of_rows_labels_names_and_weights():
    """Short labels of one class said 'all of one class'; short names failed only in predict."""
    values, labels = synthetic()
    cases = [((values, labels[:10], NAMES), "10 labels for 2000 rows"),
             ((values, np.zeros(10, bool), NAMES), "10 labels for 2000 rows"),
             ((values, labels, ("link_density",)), "1 feature names for 2 columns"),
             ((values[:, 0], labels, NAMES), "must be a matrix of numbers"),
             ((np.full((4, 2), "a"), [0, 1, 0, 1], NAMES), "must be a matrix of numbers"),
             ((values, labels * 2 + 1, NAMES), "labels must be True"),
             ((values, labels, NAMES, np.ones(5)), "5 weights for 2000 rows")]
    for arguments, message in cases:
        with pytest.raises(ModelError, match=message):
            DecisionTree(min_leaf=20).fit(*arguments)
    tree = DecisionTree(min_leaf=20).fit(values.tolist(), labels.tolist(), NAMES)  # lists do
    with pytest.raises(ModelError, match=r"rows of 2 features, got an array of shape \(2,\)"):
        tree.predict(values[0])


def test_too_few_blocks_for_two_leaves_is_refused_not_a_one_leaf_tree():
    values, labels = synthetic(41)
    with pytest.raises(ModelError, match="41 training blocks cannot fill two leaves of 21 blocks"
                       r" \(min_leaf\).*lower min_leaf \(grist train --min-leaf\)"):
        DecisionTree(min_leaf=21).fit(values, labels, NAMES)
    assert DecisionTree(min_leaf=20).fit(values, labels, NAMES).left_[0] >= 0  # a split
