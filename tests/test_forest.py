"""The NumPy tree-ensemble evaluator: same scores as LightGBM, Saabas contributions, no lightgbm
needed at extraction time."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from grist.classify import forest as forest_module
from grist.classify.forest import Forest
from grist.errors import ModelError

# one tree, written by hand: x0 <= 0.5 ? 0.1 : (x1 <= 1.0 ? 0.3 : 0.6); node values 0.2 and 0.4
SMALL = textwrap.dedent("""\
    tree
    version=v4
    num_class=1
    num_tree_per_iteration=1
    label_index=0
    max_feature_idx=1
    objective=binary sigmoid:1
    feature_names=a b

    Tree=0
    num_leaves=3
    num_cat=0
    split_feature=0 1
    threshold=0.5 1.0
    decision_type=2 2
    left_child=-1 -2
    right_child=1 -3
    leaf_value=0.1 0.3 0.6
    internal_value=0.2 0.4
    shrinkage=1

    end of trees
    """)


def test_hand_written_tree_and_its_path_contributions():
    forest = Forest.parse(SMALL)
    rows = np.array([[0.0, 5.0], [1.0, 0.5], [1.0, 2.0], [0.5, 9.0]])
    raw, contrib = both_walks(forest, rows, contributions=True)
    assert raw.tolist() == pytest.approx([0.1, 0.3, 0.6, 0.1])
    # Saabas: root (0.2) -> right node (0.4) credits a with +0.2, -> leaf 0.6 credits b with +0.2
    assert contrib[2].tolist() == pytest.approx([0.2, 0.2, 0.2])
    assert contrib[0].tolist() == pytest.approx([-0.1, 0.0, 0.2])
    assert contrib[1].tolist() == pytest.approx([0.2, -0.1, 0.2])
    assert forest.predict(rows) == pytest.approx(1 / (1 + np.exp(-raw)))
    # no missing-value rule: NaN reads as 0 (LightGBM's missing type None), in both walks
    assert both_walks(forest, np.array([[np.nan, 5.0], [1.0, np.nan]]))[0].tolist() == \
        pytest.approx([0.1, 0.3])
    # more rows than the C walk takes at once (it goes in slices)
    many = np.random.default_rng(0).uniform(0, 2, size=(10_000, 2))
    raw, contrib = both_walks(forest, many, contributions=True)
    expected = np.where(many[:, 0] <= 0.5, 0.1, np.where(many[:, 1] <= 1.0, 0.3, 0.6))
    assert np.abs(raw - expected).max() < 1e-12 and np.abs(contrib.sum(axis=1) - raw).max() < 1e-12


def test_the_compiled_walk_was_built():
    # Optional for users (an install without a C compiler falls back to NumPy), required here:
    # CI would otherwise measure and test only the fallback without saying so.
    from grist.classify import _treewalk

    assert forest_module._treewalk is _treewalk


def both_walks(forest: Forest, rows: np.ndarray, contributions: bool = False
               ) -> tuple[np.ndarray, np.ndarray | None]:
    """Evaluate by the C walk and by the NumPy walk, assert they agree, return the C result."""
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    raw, contrib = forest.evaluate(rows, contributions)
    saved = forest_module._treewalk
    try:
        forest_module._treewalk = None
        raw_np, contrib_np = forest.evaluate(rows, contributions)
    finally:
        forest_module._treewalk = saved
    assert np.abs(raw - raw_np).max() < 1e-12
    if contributions:
        assert np.abs(contrib - contrib_np).max() < 1e-12
    return raw, contrib


def test_a_model_without_features_or_splits_gives_its_leaves():
    text = SMALL.replace("max_feature_idx=1", "max_feature_idx=-1").replace("feature_names=a b",
                                                                         "feature_names=")
    tree = text[text.index("Tree=0"):text.index("end of trees")]
    text = text.replace(tree, "Tree=0\nnum_leaves=1\nnum_cat=0\nsplit_feature=\nthreshold=\n"
                        "decision_type=\nleft_child=\nright_child=\nleaf_value=0.25\n"
                        "shrinkage=1\n\n")
    forest = Forest.parse(text)
    assert forest.splits == 0 and forest.names == ()
    assert both_walks(forest, np.zeros((3, 0)))[0].tolist() == [0.25, 0.25, 0.25]


def test_bad_models_and_inputs_raise_model_error():
    with pytest.raises(ModelError):
        Forest.parse("not a model")
    with pytest.raises(ModelError, match="back up"):  # a cycle: the walk would never end
        Forest.parse(SMALL.replace("right_child=1 -3", "right_child=1 0"))
    with pytest.raises(ModelError, match="outside"):  # a leaf the tree does not have
        Forest.parse(SMALL.replace("left_child=-1 -2", "left_child=-1 -9"))
    with pytest.raises(ModelError, match="feature"):
        Forest.parse(SMALL.replace("split_feature=0 1", "split_feature=0 7"))
    with pytest.raises(ModelError):  # a multi-class objective needs its trees per class
        Forest.parse(SMALL.replace("objective=binary sigmoid:1", "objective=multiclass num_class:3"))
    with pytest.raises(ModelError):
        Forest.parse(SMALL.replace("leaf_value=0.1 0.3 0.6", "leaf_value=0.1 0.3"))
    with pytest.raises(ModelError):
        Forest.parse(SMALL).evaluate(np.zeros((2, 3)))


def _random_data(seed: int, rows: int = 600, width: int = 6) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows, width))
    x[:, 2] = rng.integers(0, 7, rows)  # small integers: a categorical column in one test
    x[rng.random(x.shape) < 0.15] = 0.0
    y = ((x[:, 0] + np.sin(3 * x[:, 1]) + (x[:, 2] % 3 == 1) + 0.3 * rng.normal(size=rows)) > 0.5)
    return x, y.astype(float)


@pytest.mark.parametrize("variant", ["plain", "nan", "zero-missing", "categorical"])
def test_same_scores_as_lightgbm(variant):
    lgb = pytest.importorskip("lightgbm")
    x, y = _random_data(1)
    params = {"objective": "binary", "num_leaves": 15, "min_data_in_leaf": 5, "verbosity": -1,
              "num_threads": 1, "seed": 1, "deterministic": True}
    categorical = "auto"
    if variant == "nan":
        x[np.random.default_rng(2).random(x.shape) < 0.1] = np.nan
    if variant == "zero-missing":
        params["zero_as_missing"] = True
    if variant == "categorical":
        categorical = [2]
        params.update(min_data_per_group=5, cat_smooth=1.0)
    booster = lgb.train(params, lgb.Dataset(x, label=y, categorical_feature=categorical),
                        num_boost_round=30)
    text = booster.model_to_string()
    forest = Forest.parse(text)
    test, _ = _random_data(3, rows=400)
    if variant in ("nan", "categorical"):
        test[np.random.default_rng(4).random(test.shape) < 0.1] = np.nan
        test[:5, 2] = [-1.0, 2.7, 1e9, 6.0, 40.0]
    assert np.abs(forest.predict(test) - booster.predict(test)).max() < 1e-9
    raw, contrib = both_walks(forest, test, contributions=True)
    assert np.abs(raw - booster.predict(test, raw_score=True)).max() < 1e-9
    assert np.abs(both_walks(forest, test)[0] - raw).max() < 1e-12
    assert np.abs(contrib.sum(axis=1) - raw).max() < 1e-9
    if variant == "categorical":
        assert forest.categorical.any()
    if variant == "zero-missing":
        assert forest.missing_zero.any()
    if variant == "nan":
        assert forest.missing_nan.any()


def test_multi_class_probabilities_match_lightgbm():
    lgb = pytest.importorskip("lightgbm")
    x, y = _random_data(5)
    classes = (y + (x[:, 3] > 0.4)).astype(int)  # 0, 1, 2
    booster = lgb.train({"objective": "multiclass", "num_class": 3, "num_leaves": 7,
                         "verbosity": -1, "num_threads": 1, "seed": 1, "deterministic": True},
                        lgb.Dataset(x, label=classes), num_boost_round=20)
    forest = Forest.parse(booster.model_to_string())
    test, _ = _random_data(6, rows=300)
    assert forest.classes == 3 and forest.num_trees == 60
    assert np.abs(forest.predict(test) - booster.predict(test)).max() < 1e-9
    both_walks(forest, test)
    assert forest.evaluate(test[:0])[0].shape == (0, 3)
    with pytest.raises(ModelError):
        forest.evaluate(test, contributions=True)


PAGES = [
    "<html><head><title>Harbour news</title></head><body><nav><a href=/>Home</a> "
    "<a href=/n>News</a></nav><article><h1>Harbour news</h1>"
    + "<p>The harbour opened a new pier on Monday, and the boats that had waited all winter "
    "came in one after another while the town watched from the quay.</p>" * 4
    + "</article><footer>(c) 2024 Harbour Times</footer></body></html>",
    "<table><tr><td><a href=/a>A</a></td><td><a href=/b>B</a></td></tr></table>"
    "<div><ul><li>One item</li><li>Another item with more words in it than the first</li></ul>"
    "<pre>code block here</pre></div>",
]


def test_shipped_model_matches_lightgbm_on_pages():
    lgb = pytest.importorskip("lightgbm")
    from grist.html.load import load_document
    from grist.html.parse import parse_document
    from grist.segment.blocks import segment
    from grist.features.auto import stage1_features
    from grist.classify.boosted import SHIPPED, AutoModel
    from grist.modelfile import shipped

    model = AutoModel.load(shipped(SHIPPED))
    stage1 = lgb.Booster(model_str=model.boosters_.text1)
    stage2 = lgb.Booster(model_str=model.boosters_.text2)
    for html in PAGES:
        doc = parse_document(load_document(html))
        blocks = segment(doc)
        matrix = stage1_features(blocks, doc)
        p1, _ = model.stage1_scores(matrix)
        p2, second = model.stage2_scores(matrix, [b.region for b in blocks],
                                         [b.path for b in blocks], p1)
        assert np.abs(p1 - stage1.predict(matrix.values)).max() < 1e-9
        assert np.abs(p2 - stage2.predict(second.values)).max() < 1e-9


def test_training_without_lightgbm_says_what_to_install(monkeypatch):
    from grist.classify.boosted import AutoModel
    from grist.classify.rows import LabelledPage

    page = LabelledPage("p", "d", "s", np.zeros((2, 1)), np.array([True, False]), ["a", "b"],
                        [0, 0], ["p", "p"], "a", 1.0)
    monkeypatch.setitem(sys.modules, "lightgbm", None)
    with pytest.raises(ModelError, match="lightgbm"):
        AutoModel().fit([page], ["num_words"])


def test_extraction_runs_without_lightgbm(tmp_path):
    page = tmp_path / "page.html"
    page.write_text(PAGES[0], encoding="utf-8")
    script = textwrap.dedent(f"""\
        import sys
        sys.modules["lightgbm"] = None  # any import of lightgbm now fails
        import grist
        from grist.cli import main
        result = grist.extract(open({str(page)!r}).read(), method="auto")
        assert any(b.text.startswith("The harbour opened") for b in result.content_blocks)
        assert main(["extract", "--method", "auto", {str(page)!r}]) == 0
        """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "The harbour opened a new pier" in done.stdout


def test_version_says_which_walk_runs(monkeypatch, capsys):
    from grist import cli

    with pytest.raises(SystemExit):
        cli.main(["--version"])
    assert "(compiled segmenter; compiled tree walk; compiled page scans)" in (
        capsys.readouterr().out)
    monkeypatch.setattr(forest_module, "_treewalk", None)  # as an install without a compiler
    assert "NumPy tree walk" in cli.version()
    import grist.segment.blocks as blocks

    monkeypatch.setattr(blocks, "_walk", None)
    assert "Python segmenter" in cli.version()
    import grist.html.structure as structure

    monkeypatch.setattr(structure, "_scan", None)
    assert "regex page scans" in cli.version()
