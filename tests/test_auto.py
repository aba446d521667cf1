"""The flagship ``auto``: shipped model, determinism, explanations; its DOM-context features."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

import grist
from grist.document import Document
from grist.features.context import (
    Runs,
    context_features,
    with_neighbours,
)
from grist.features.matrix import FeatureMatrix
from grist.html.parse import parse_document
from grist.methods import method_config
from grist.methods.auto import AutoConfig, hidden_copies, select_content
from grist.errors import ConfigError, ModelError
from grist.modelfile import shipped
from grist.segment.blocks import segment
from grist.classify.rows import LabelledPage
from grist.features.auto import _run_edges, stage1_features
from grist.classify.boosted import SHIPPED, AutoModel, _Boosters
from grist.classify.fitting import (
    TYPE_THRESHOLD_PAGES,
    TrainConfig,
    _best_threshold,
    _oof_stage2,
    _page_weights,
    _params,
    _stage1_params,
    _threshold_curves,
    _train,
    _type_thresholds,
    check_stage1_params,
    fit_boosters,
)

ARTICLE = (
    "<html><head><title>Rivers of the north</title></head><body>"
    "<nav><ul class=nav><li><a href=/>Home</a></li><li><a href=/about>About us</a></li>"
    "<li><a href=/contact>Contact</a></li></ul></nav>"
    "<div class=article-body><h1>Rivers of the north</h1>"
    + "".join(
        f"<p>It was the {nth} time that she had been to the town by the river, and she was not "
        "sure what she would find there when she got off the train at the end of the line, "
        f"but she knew that {what} would be there for her, as it had been before the railway "
        "came to the valley.</p>"
        for nth, what in [("first", "the mill"), ("second", "her aunt"), ("third", "the inn")]
    )
    + "</div><div id=footer>Copyright 2024 | <a href=/terms>Terms</a> | "
    "<a href=/privacy>Privacy</a></div></body></html>"
)


def blocks_of(html: str):
    doc = parse_document(Document(html=html, title="Rivers of the north"))
    return segment(doc), doc


def test_shipped_model_keeps_the_article_and_drops_menu_and_footer():
    result = grist.extract(ARTICLE, method="auto")
    kept = [b.text for b in result.content_blocks]
    assert sum(t.startswith("It was the") for t in kept) == 3
    assert not any(t in ("Home", "About us", "Contact") for t in kept)
    assert not any("Copyright" in t for t in kept)


STRUCTURED = (
    "<html><head><title>A new bridge for the town</title></head><body><nav><ul>"
    + "".join(f"<li><a href=/{w.lower()}>{w}</a></li>" for w in ("Home", "News", "Sport"))
    + "</ul></nav><article><h1>A new bridge for the town</h1>{p}<h2>What the plan includes</h2>"
    "<ul><li>Two lanes for cars and a separate lane for bicycles</li>"
    "<li>A footpath on each side with lighting at night</li>"
    "<li>Foundations designed for the spring floods</li></ul>{p}"
    "<table><tr><th>Year</th><th>Cost in millions</th></tr><tr><td>2025</td><td>12.5</td></tr>"
    "<tr><td>2026</td><td>18.0</td></tr></table>{p}"
    "<pre><code>load = cars * 1.5 + trucks * 9.0\nprint(load)</code></pre>{p}</article>"
    "<footer>Copyright 2024 Town Herald | <a href=/privacy>Privacy</a></footer></body></html>"
).replace("{p}", "<p>The committee met on Tuesday to discuss the new bridge over the river, and "
          "after a long debate the members agreed that the old crossing could no longer carry "
          "the traffic of the town.</p>")


def test_shipped_model_keeps_headings_lists_tables_and_code_of_the_article():
    result = grist.extract(STRUCTURED, method="auto")
    kept = {b.text for b in result.content_blocks}
    assert "What the plan includes" in kept
    headline = next(b for b in result.blocks if b.text == "A new bridge for the town")
    assert headline.role == "title" and not headline.is_content  # the body is the default text
    with_title = grist.extract(STRUCTURED, method="auto", with_title=True)
    assert with_title.text.startswith("A new bridge for the town\n\n")
    assert with_title.text.endswith(result.text.split("\n\n")[-1])
    assert "Foundations designed for the spring floods" in kept
    assert "load = cars * 1.5 + trucks * 9.0\nprint(load)" in kept
    assert {"2025", "12.5", "2026", "18.0"} <= kept
    assert not kept & {"Home", "News", "Sport"}
    assert "## What the plan includes" in result.to_markdown()


def test_shipped_model_keeps_code_whose_first_highlighted_line_is_a_comment():
    # The highlighter's ``hljs-comment`` span opens the code block; read as a page class, it made
    # the block a readers' comment, which the body leaves out.
    code = ("<pre class=hljs><code class=language-bash><span class=hljs-comment># create the "
            "repository</span>\ngit init\ngit add -A\ngit commit -m first</code></pre>")
    html = STRUCTURED.replace("<pre><code>load = cars * 1.5 + trucks * 9.0\nprint(load)</code>"
                              "</pre>", code)
    assert html != STRUCTURED
    block = next(b for b in grist.extract(html, method="auto").blocks if b.preformatted)
    assert block.text.startswith("# create the repository") and block.role == "body"
    assert block.is_content


def test_shipped_model_is_deterministic_and_explains_every_block():
    first = grist.extract(ARTICLE, method="auto")
    second = grist.extract(ARTICLE, method="auto")
    assert [(b.label, b.score, b.reason) for b in first.blocks] == [
        (b.label, b.score, b.reason) for b in second.blocks
    ]
    for block in first.blocks:
        assert 0.0 <= block.score <= 1.0
        assert block.reason.startswith(f"p={block.score:.3f}; ")
        assert "context" in block.reason
    records = json.loads(first.to_json())
    assert records  # the JSON renderer carries the blocks with their scores and reasons


def test_explanations_can_be_switched_off():
    result = grist.extract(ARTICLE, method="auto", config=AutoConfig(explain=False))
    assert all(b.reason.partition(";")[0] == f"p={b.score:.3f}" for b in result.blocks)
    assert not any("context" in b.reason for b in result.blocks)


def test_threshold_override_changes_the_decision():
    everything = grist.extract(ARTICLE, method="auto", config=AutoConfig(threshold=0.0))
    assert all(b.is_content or b.role in ("title", "subtitle", "byline", "caption")
               for b in everything.blocks)
    assert all(b.role != "body" or b.is_content for b in everything.blocks)


def test_fallback_keeps_the_whole_page_when_the_model_keeps_almost_nothing():
    words = np.array([100.0, 2.0, 3.0])
    keep, share, _ = select_content(np.array([0.1, 0.9, 0.2]), words, 0.5, 0.01)
    assert share is None and keep.tolist() == [False, True, False]  # 2 of 105 words: over 1 %
    keep, share, _ = select_content(np.array([0.1, 0.9, 0.2]), words, 0.5, 0.04)
    assert share == 2 / 105 and keep.all()  # under 4 %: the whole page
    keep, share, _ = select_content(np.array([0.6, 0.3, 0.2]), words, 0.5, 0.04)
    assert share is None and keep.tolist() == [True, False, False]
    # by words: 3 kept words are under 10, 100 are not
    keep, share, _ = select_content(np.array([0.1, 0.2, 0.9]), words, 0.5, 0.0, 10)
    assert share == 3 / 105 and keep.all()
    keep, share, _ = select_content(np.array([0.9, 0.2, 0.1]), words, 0.5, 0.0, 10)
    assert share is None and keep.tolist() == [True, False, False]


def test_a_page_too_small_to_judge_is_kept_whole_and_a_judged_page_may_keep_nothing():
    small = select_content(np.array([0.1, 0.2]), np.array([4.0, 5.0]), 0.5, 0.0, 0, 10)
    assert small.small and small.fallback is None and small.keep.all()  # 9 words < 10
    judged = select_content(np.array([0.1, 0.2]), np.array([4.0, 6.0]), 0.5, 0.0, 0, 10)
    assert not judged.small and not judged.keep.any()  # 10 words: the model decides
    snippet = grist.extract("<div><a href=/a>Read more</a> | <a href=/b>Share</a></div>")
    assert snippet.text == "Read more | Share" and not snippet.warnings
    assert all(b.reason.endswith("small page: too few words to judge, kept")
               for b in snippet.blocks)
    # whole means every role too: a headline and a byline are not dropped as furniture
    note = grist.extract("<h1>Big news</h1><p>By Sam Reed</p><p>Hello world, short note.</p>")
    assert note.text.split("\n\n") == ["Big news", "By Sam Reed", "Hello world, short note."]
    assert [b.role for b in note.blocks][:2] == ["title", "byline"]
    assert all(b.label == "content" and "not body" not in b.reason for b in note.blocks)


def test_a_hidden_block_is_dropped_only_as_a_copy_of_kept_visible_text():
    one = "the council met on tuesday to decide the future of the old bridge"
    two = "after a long debate it voted to repair it rather than build a new one"
    texts = [one, two, f"{one} {two}", "opening hours of the museum change in winter",
             f"{one} and then the mayor spoke about the budget for next year at length", one,
             "step 1 of 3", "step 1 of 3"]
    counts = np.array([len(t.split()) for t in texts])
    hidden = np.array([False, False, True, True, True, True, False, True])
    keep = np.array([True, True, True, True, True, False, True, True])
    copies = hidden_copies(texts, counts, hidden, keep)
    # 2 joins the two shown paragraphs into one block: a copy, though the 2 triples across the
    # join are not shown (24 of 26). 3 is text of its own, 4 half shown, 5 not kept anyway; 7
    # is a copy, but too short to be more than chance
    assert list(copies) == [2] and copies[2] == pytest.approx(24 / 26)
    assert hidden_copies(texts, counts, np.zeros(8, dtype=bool), keep) == {}  # visible repeats


def test_auto_drops_hidden_and_noscript_copies_of_the_kept_text_and_says_so():
    story = ("The council met on Tuesday to decide the future of the old bridge, and after a "
             "long debate it voted to repair it rather than build a new one over the river.")
    own = "Opening hours of the museum change in winter, so check before you travel there."
    html = (f"<html><body><article><p>{story}</p>"
            f"<div style='display: none'><p>{story}</p></div>"
            f"<noscript><p>{story}</p></noscript>"
            f"<details hidden><p>{own}</p></details></article></body></html>")
    result = grist.extract(html, method="auto", config=AutoConfig(threshold=0.0))
    assert result.text.count("old bridge") == 1
    assert own in result.text  # hidden, but not a copy: the model's call (here: keep all)
    copies = [b for b in result.blocks if "hidden copy" in b.reason]
    assert len(copies) == 2 and not any(b.is_content for b in copies)
    assert all(b.reason.endswith("hidden copy of shown text (100%), dropped") for b in copies)
    kept = grist.extract(html, method="auto",
                         config=AutoConfig(threshold=0.0, drop_hidden_copies=False))
    assert kept.text.count("old bridge") == 3
    assert not method_config("auto/keep-hidden-copies").drop_hidden_copies


def test_fallback_in_the_pipeline_warns_and_says_why():
    strict = grist.extract(ARTICLE, method="auto",
                           config=AutoConfig(threshold=0.9999, fallback_words=10))
    assert all(b.is_content for b in strict.blocks)
    assert all(b.reason.endswith("fallback: whole page kept") for b in strict.blocks)
    assert any("every block is kept" in w for w in strict.warnings)
    off = grist.extract(ARTICLE, method="auto", config=AutoConfig(threshold=0.9999))
    assert not any(b.is_content for b in off.blocks) and not off.warnings
    assert method_config("auto/fallback").fallback_words == 10
    assert method_config("auto/no-fallback").whole_page_words == 0


def test_context_features_of_a_small_page():
    blocks, doc = blocks_of(ARTICLE)
    matrix = context_features(blocks, doc)
    assert matrix.values.shape == (len(blocks), len(matrix.names))
    home = matrix.row(0)
    assert home["ctx_in_nav"] == 1.0 and home["ctx_cls_nav"] == 1.0
    assert home["ctx_tag_li"] == 1.0 and home["ctx_ul"] == 1.0
    headline = matrix.row(3)
    assert headline["ctx_heading"] == 1.0
    # "of" is too short to be a title keyword: 3 of the 4 words are, all 3 keywords are there
    assert headline["ctx_title_density"] == 0.75 and headline["ctx_title_cover"] == 1.0
    paragraph = matrix.row(4)
    assert paragraph["ctx_cls_article"] == 1.0 and paragraph["ctx_cls_body"] == 1.0
    # one level up is the run of neighbours under html>body>div: the article and (paths hold
    # tags only) the footer div after it, but not the menu
    words = np.array([len(b.text.split()) for b in blocks], dtype=float)
    assert abs(paragraph["ctx_up1_share"] - words[3:8].sum() / words.sum()) < 1e-9
    assert abs(home["ctx_up1_share"] - words[:3].sum() / words.sum()) < 1e-9
    assert matrix.row(len(blocks) - 1)["ctx_copyright"] == 1.0


def test_short_class_keywords_need_a_whole_token():
    blocks, doc = blocks_of('<div class="header-shadow"><p>Hello there</p></div>'
                            '<div class="ad-slot"><p>Buy now</p></div>')
    matrix = context_features(blocks, doc)
    assert matrix.row(0)["ctx_cls_ad"] == 0.0 and matrix.row(0)["ctx_cls_header"] == 1.0
    assert matrix.row(1)["ctx_cls_ad"] == 1.0


def test_container_runs_match_a_brute_force_scan():
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(1, 12))
        prefix = rng.integers(0, 5, n - 1).tolist()
        want = rng.integers(0, 6, n).tolist()
        runs = Runs(prefix)
        left, right = runs.starts(want), runs.ends(want)
        for i in range(n):
            lo = i
            while lo > 0 and prefix[lo - 1] >= want[i]:
                lo -= 1
            hi = i
            while hi < n - 1 and prefix[hi] >= want[i]:
                hi += 1
            assert (left[i], right[i]) == (lo, hi)


def test_with_neighbours_shifts_and_pads_with_zero():
    matrix = FeatureMatrix(("x",), np.array([[1.0], [2.0], [3.0]]))
    out = with_neighbours(matrix, ("x",), (-1, 2))
    assert out.names == ("x", "prev1_x", "next2_x")
    assert out.values[:, 1].tolist() == [0.0, 1.0, 2.0]
    assert out.values[:, 2].tolist() == [3.0, 0.0, 0.0]


def test_empty_page_has_no_rows():
    assert context_features([], None).values.shape[0] == 0


def test_reasons_name_the_features_that_push_towards_the_label():
    from grist.classify.explain import top_contributions

    contrib = np.array([[0.5, -1.0, 0.2, 0.1], [0.5, -1.0, 0.2, 0.1], [0.0, 0.0, 0.0, 0.3]])
    values = np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    texts = top_contributions(contrib, values, ("a", "b", "c"), np.array([True, False, True]), 2)
    # content: the positive pushes, strongest first; boilerplate: the negative one only
    assert texts == ["a=1 (+0.50), c=3 (+0.20)", "b=2 (-1.00)", "no single feature stands out"]


def _page(words: list[float], labels: list[bool], dataset: str = "d") -> LabelledPage:
    n = len(words)
    return LabelledPage(id="p", dataset=dataset, site="s", values=np.array(words)[:, None],
                        labels=np.array(labels), texts=[""] * n, regions=[0] * n, paths=[""] * n,
                        gold="", coverage=1.0)


def test_training_threshold_maximises_word_f1_on_the_training_pages():
    # Content blocks score 0.45 and 0.7, boilerplate 0.32: 0.35-0.45 keep exactly the content.
    page = _page([10, 20, 30], [True, True, False])
    wanted = [page.labels]
    p2 = np.array([0.45, 0.7, 0.32])
    assert _best_threshold(_threshold_curves([page], wanted, ("num_words",), p2)) == 0.35
    # Boilerplate at 0.5, a content block at 0.3: 0.55 loses 10 words of content but drops 30
    # of boilerplate: F1 2*20/(20+30) = 0.8 beats 2*30/(60+30) (all) and 2*20/(50+30).
    p2 = np.array([0.3, 0.7, 0.5])
    assert _best_threshold(_threshold_curves([page], wanted, ("num_words",), p2)) == 0.55


def test_thresholds_are_chosen_on_stage2_probabilities_of_models_that_never_saw_the_page():
    lgb = pytest.importorskip("lightgbm")
    # Pages alternate between the two folds; the pages of fold 0 and of fold 1 have the same
    # rows but opposite labels. Trained on every page, stage 2 would say 0.5 everywhere;
    # out of fold, each page is scored by the model of the other fold, which learnt the opposite.
    rng = np.random.default_rng(3)
    rows = rng.normal(size=(60, 2))
    truth = rows[:, 0] > 0
    pages = [_page([5.0] * 60, list(truth if i % 2 == 0 else ~truth)) for i in range(6)]
    values2 = np.vstack([rows] * 6)
    labels = np.concatenate([p.labels for p in pages])
    config = TrainConfig(folds=2, rounds2=30, min_leaf=5, feature_fraction=1.0,
                         bagging_fraction=1.0)
    oof = _oof_stage2(lgb, pages, values2, labels, np.ones(len(labels)), ("a", "b"), config)
    first = oof[:60]  # a page of fold 0, scored by the fold-1 model
    assert first[truth].max() < 0.2 and first[~truth].min() > 0.8


def test_each_page_type_with_enough_training_pages_gets_its_own_threshold():
    page = _page([10, 20, 30], [True, True, False])
    low = _threshold_curves([page], [page.labels], ("num_words",), np.array([0.45, 0.7, 0.32]))
    high = _threshold_curves([page], [page.labels], ("num_words",), np.array([0.3, 0.7, 0.5]))
    n = TYPE_THRESHOLD_PAGES
    # type 0: n pages best cut at 0.35; type 1: n pages at 0.55; type 2: one page, too few
    curves = np.vstack([low] * n + [high] * n + [high])
    types = np.zeros((2 * n + 1, 3))
    types[:n, 0] = types[n:2 * n, 1] = types[2 * n:, 2] = 1.0
    assert _type_thresholds(curves, types, 0.4) == [0.35, 0.55, 0.4]


def test_a_page_threshold_weighs_the_type_thresholds_by_its_type_probabilities(tmp_path):
    b = AutoModel.load(shipped(SHIPPED)).boosters_
    model = AutoModel()
    model.boosters_ = _Boosters(b.text1, b.text2, 0.35, text_types=b.text_types,
                                type_thresholds=[0.5, 0.3, 0.3, 0.3, 0.3, 0.2, 0.3])
    model.save(tmp_path / "m.json.gz")
    model = AutoModel.load(tmp_path / "m.json.gz")
    p2, words = np.array([0.4]), np.array([10.0])
    article, mixed = np.eye(7)[0], np.array([0.5, 0, 0, 0, 0, 0.5, 0])
    assert model.cut(p2, words, article) == pytest.approx(0.5)
    assert model.cut(p2, words, mixed) == pytest.approx(0.35)
    assert model.cut(p2, words) == 0.35  # no type probabilities: the one threshold
    model.boosters_ = _Boosters(b.text1, b.text2, 0.35, text_types=b.text_types)
    assert model.cut(p2, words, article) == 0.35  # a model without type thresholds


def test_run_edges_see_past_a_long_list_to_the_blocks_around_it():
    paths = ["main>p", "main>ul>li", "main>ul>li", "main>ul>li", "main>p", "footer>p"]
    before, after, length = _run_edges(paths, np.array([0.9, 0.1, 0.2, 0.1, 0.8, 0.05]))
    assert before.tolist() == [0.0, 0.9, 0.9, 0.9, 0.1, 0.8]
    assert after.tolist() == [0.1, 0.8, 0.8, 0.8, 0.05, 0.0]
    assert length.tolist() == [1, 3, 3, 3, 1, 1]


def test_page_power_one_gives_every_page_the_same_weight():
    pages = [_page([1, 2, 3], [True] * 3), _page([100, 200], [False] * 2),
             _page([5], [True], "other")]
    flat = _page_weights(pages, ("num_words",), TrainConfig(page_power=0.0))
    assert flat[1][0] / flat[0][0] == pytest.approx(101 / 2)
    even = _page_weights(pages, ("num_words",), TrainConfig(page_power=1.0))
    assert [round(float(w.sum()), 9) for w in even] == [round(float(even[0].sum()), 9)] * 3
    per_set = _page_weights(pages, ("num_words",), TrainConfig(page_power=1.0, dataset_power=1.0))
    assert per_set[2].sum() == pytest.approx(per_set[0].sum() + per_set[1].sum())


def test_on_small_data_the_seed_changes_the_trees_only_through_the_sampling_fractions():
    # (past 200,000 rows LightGBM also samples the rows it bins from, so the seed matters more)
    lgb = pytest.importorskip("lightgbm")
    rng = np.random.default_rng(0)
    values = rng.normal(size=(400, 6))
    labels = values[:, 0] + values[:, 1] * values[:, 2] + rng.normal(scale=0.5, size=400) > 0
    weights, names = np.ones(400), [f"f{i}" for i in range(6)]

    def trees(**fractions: float) -> list[str]:  # the trees, without the parameters listed
        return [_train(lgb, values, labels, weights, names,
                       _params(TrainConfig(seed=seed, **fractions), 7), 20)
                .model_to_string().split("end of trees")[0] for seed in (1, 2)]

    sampled = trees()  # half the features per tree, half the rows per round (the defaults)
    assert sampled[0] != sampled[1]
    whole = trees(feature_fraction=1.0, bagging_fraction=1.0)
    assert whole[0] == whole[1]


def test_stage1_params_reach_the_stage1_boosters_and_nothing_else():
    lgb = pytest.importorskip("lightgbm")
    rng = np.random.default_rng(0)
    values = rng.normal(size=(200, 3))
    labels = values[:, 0] > 0
    config = TrainConfig(stage1_params={"path_smooth": 40.0, "lambda_l2": 10.0})
    params = _stage1_params(config)
    assert params["path_smooth"] == 40.0 and params["lambda_l2"] == 10.0
    assert params["num_leaves"] == config.leaves  # the common settings stay
    text = _train(lgb, values, labels, np.ones(200), ["a", "b", "c"], params, 5).model_to_string()
    assert "[path_smooth: 40]" in text and "[lambda_l2: 10]" in text
    dart = _stage1_params(TrainConfig(stage1_params={"boosting": "dart"}))  # a string value
    text = _train(lgb, values, labels, np.ones(200), ["a", "b", "c"], dart, 5).model_to_string()
    assert "[boosting: dart]" in text
    assert _stage1_params(TrainConfig()) == _params(TrainConfig(), TrainConfig.leaves)
    assert "path_smooth" not in _params(config, config.leaves2)  # stage 2 keeps its own
    with pytest.raises(ModelError, match="no parameter 'pathsmooth'"):  # not silently ignored
        fit_boosters([], (), TrainConfig(stage1_params={"pathsmooth": 40.0}))
    with pytest.raises(ModelError, match="LightGBM refuses"):  # a value it cannot read
        fit_boosters([], (), TrainConfig(stage1_params={"lambda_l2": "ten"}))
    check_stage1_params({"boosting": "dart", "max_bin": 255})  # values it takes pass
    check_stage1_params({"boosting": "dart"}, features=0)  # no features: still the value checked
    # per-feature settings are checked against the number of stage-1 features
    check_stage1_params({"monotone_constraints": "-1,0,1"}, features=3)
    with pytest.raises(ModelError, match="LightGBM refuses"):
        check_stage1_params({"monotone_constraints": "-1,0,1"}, features=4)
    # fit_boosters checks them against its own features: past the check, to the empty pages
    with pytest.raises(ModelError, match="no labelled blocks"):
        fit_boosters([], ("a", "b", "c"),
                     TrainConfig(stage1_params={"monotone_constraints": "-1,0,1"}))


def test_matrices_with_the_same_names_share_their_column_index():
    first = FeatureMatrix(("a", "b", "c"), np.arange(6.0).reshape(2, 3))
    second = FeatureMatrix(["a", "b", "c"], np.zeros((1, 3)))  # names given as a list
    assert first.positions is second.positions
    assert first.column("c").tolist() == [2.0, 5.0] and second.column("b").tolist() == [0.0]
    other = FeatureMatrix(("c", "a"), np.array([[7.0, 8.0]]))
    assert other.positions == {"c": 0, "a": 1} and other.column("a").tolist() == [8.0]
    with pytest.raises(ValueError, match="no feature named 'd'"):
        first.column("d")


@pytest.mark.parametrize(("field", "value"), [
    ("rounds", 0), ("oof_rounds", -1), ("folds", 0), ("min_leaf", 0), ("leaves", 1),
    ("max_depth", -2), ("threads", -1), ("learning_rate", "x"), ("learning_rate", 0.0),
    ("bagging_fraction", 2.0), ("feature_fraction", 0), ("page_power", "x"),
    ("dataset_power", float("nan")), ("threshold", 1.5), ("target", "x"),
    ("calibration", "yes"), ("stage1_params", [("path_smooth", 40)])])
def test_a_train_config_out_of_range_is_a_config_error_naming_the_field(field, value):
    """LightGBM's own errors (learning_rate 'x', bagging_fraction 2) came after the labelling."""
    with pytest.raises(ConfigError, match=rf"TrainConfig\.{field} must be"):
        TrainConfig(**{field: value})


def test_the_edges_of_a_train_config_are_accepted():
    TrainConfig(bagging_fraction=1.0, feature_fraction=1.0, max_depth=-1, threads=0,
                threshold=0.0, page_power=0, folds=1, calibration=False)


def test_fit_names_what_is_wrong_with_its_pages_before_training():
    """A names list that did not match the pages' columns failed in list.index or in LightGBM,
    and a training set too small for min_leaf made a model of single-leaf trees."""
    pytest.importorskip("lightgbm")
    names = stage1_features([], None).names
    pages = [_page([5.0] * 30, [True, False] * 15) for _ in range(2)]
    wide = [replace(p, values=np.zeros((30, len(names)))) for p in pages]
    cases = [(None, names, "takes a list of LabelledPage"), ("pages", names, "not str"),
             ([{"html": "x"}], names, "not dict"),
             (pages, (), "0 feature names for 1 columns"),
             (pages, ("words",), "stage 2 cannot read the pages' features"),
             ([_page([5.0] * 3, [True])], ("num_words",), "1 labels for 3 rows"),
             (wide, names, r"60 training blocks \(0.5 of them per tree: bagging_fraction\) "
              "cannot fill two leaves of 40 blocks")]
    for given, names1, message in cases:
        with pytest.raises(ModelError, match=message):
            AutoModel().fit(given, names1)


def test_fit_says_each_stage_only_to_a_hook(capsys):
    pytest.importorskip("lightgbm")
    names = stage1_features([], None).names
    rng = np.random.default_rng(0)
    pages = [replace(_page([5.0] * 30, [True, False] * 15), values=rng.random((30, len(names))))
             for _ in range(2)]
    config = TrainConfig(min_leaf=5, rounds=3)
    AutoModel(config).fit(pages, names)
    assert capsys.readouterr() == ("", "")  # the library prints nothing
    lines: list[str] = []
    AutoModel(config).fit(pages, names, lines.append)
    assert lines == ["stage 1, out of fold: 2 x 50 rounds on 60 blocks", "stage 1: 3 rounds",
                     "stage 2: 60 rounds",
                     "stage 2, out of fold (for the threshold): 2 x 60 rounds"]
