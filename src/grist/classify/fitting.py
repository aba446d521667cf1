"""How ``AutoModel`` is trained: its settings, row weights and targets, the out-of-fold rows of
stage 2, the threshold, and the optional page cut and page type.

Training needs lightgbm (the ``train`` extra), imported inside ``fit_boosters``; nothing here is
used at extraction time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from grist.checks import check_choice, check_flag, check_number, check_whole
from grist.classify.cut import best_cut, fit_cut, page_cut_features, word_f1
from grist.classify.pagetype import fit_types, known_types, page_row, type_columns
from grist.classify.rows import LabelledPage, check_leaf_room, check_rows
from grist.document import ROLES
from grist.errors import ConfigError, ModelError
from grist.features.auto import PAGE_RELATIVE, PAGE_SIGNALS, stage2_features
from grist.features.matrix import FeatureMatrix

TARGETS = ("body", "article", "gold")
ARTICLE_ROLES = ("body", "title", "subtitle", "byline", "caption")


@dataclass(frozen=True)
class TrainConfig:
    """Boosting settings of both stages; stage 2 learns from ``folds`` out-of-fold stage-1 models
    of ``oof_rounds`` rounds each (cheaper than the final one, close enough in calibration).
    ``max_depth`` caps the trees' depth (-1: only ``leaves`` limits them): the NumPy evaluator
    takes one step per level of the deepest tree.

    Rows weigh their word count + 1, divided by the page's word count to ``page_power`` (1: every
    page counts the same) and by its dataset's page count to ``dataset_power`` (1: every dataset
    counts the same), so that large or long-page datasets do not drown small or modern ones.
    ``feature_fraction`` / ``bagging_fraction``: the share of the features each tree may split
    on and of the rows each round learns from (LightGBM's sampling, drawn from ``seed``).
    ``threshold`` None: chosen on out-of-fold stage-2 probabilities of the training pages
    (``_best_threshold``).
    ``target``: what a positive block is — ``body`` (role body, ``grist.classify.roles``),
    ``article`` (the body and the article's title, subtitle, bylines and captions) or ``gold``
    (in the page's gold text, whatever its dataset's convention).
    ``calibration``: stage 2 also sees where each probability stands on its page
    (``grist.features.auto.page_relative``); ``page_signals``: and what kind of page it is
    (``grist.features.auto.page_signals``).
    ``page_cut``: learn a threshold per page from the shape of its final probabilities
    (``grist.classify.cut``; ``cut_rounds`` rounds, on out-of-fold stage-2 probabilities).
    ``page_type``: stage 2 also sees the predicted type of the page (``grist.classify.pagetype``;
    ``type_rounds`` rounds). ``type_thresholds``: a threshold per page type as well, each chosen
    on the training pages predicted of that type (``_type_thresholds``); a page's threshold is
    their mean weighed by its type probabilities (``AutoModel.cut``).
    ``stage1_params``: more LightGBM parameters for the stage-1 boosters, out-of-fold and final
    (``{"path_smooth": 40}``), to measure settings this class has no field for; empty in the
    shipped model.

    A value out of range is a ConfigError naming the field when the config is made, not
    LightGBM's error (or a silently useless model) after the pages are labelled.
    """

    rounds: int = 150
    leaves: int = 63
    max_depth: int = -1
    learning_rate: float = 0.1
    min_leaf: int = 40
    oof_rounds: int = 50
    rounds2: int = 60
    leaves2: int = 15
    folds: int = 2
    threads: int = 1
    seed: int = 7
    feature_fraction: float = 0.5
    bagging_fraction: float = 0.5
    page_power: float = 0.5
    dataset_power: float = 0.0
    threshold: float | None = None
    target: str = "body"
    calibration: bool = True
    page_signals: bool = True
    page_cut: bool = False
    cut_rounds: int = 100
    page_type: bool = True
    type_rounds: int = 60
    type_thresholds: bool = True
    stage1_params: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("rounds", "min_leaf", "oof_rounds", "rounds2", "folds", "cut_rounds",
                     "type_rounds"):
            check_whole(self, name, least=1)
        check_whole(self, "leaves", least=2)  # (one leaf per tree would learn nothing)
        check_whole(self, "leaves2", least=2)
        check_whole(self, "max_depth", least=-1)
        check_whole(self, "threads", least=0)  # (0: LightGBM's default, every core)
        check_whole(self, "seed", least=0)
        check_number(self, "learning_rate", 0, above=True)
        for name in ("feature_fraction", "bagging_fraction"):
            check_number(self, name, 0, 1, above=True)
        for name in ("page_power", "dataset_power"):
            check_number(self, name, 0)
        if self.threshold is not None:
            check_number(self, "threshold", 0, 1)
        check_choice(self, "target", TARGETS)
        for name in ("calibration", "page_signals", "page_cut", "page_type", "type_thresholds"):
            check_flag(self, name)
        if not isinstance(self.stage1_params, dict):
            raise ConfigError("TrainConfig.stage1_params must be a dict of LightGBM parameters, "
                              f"not {self.stage1_params!r}")


THRESHOLDS = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6)
TYPE_THRESHOLD_PAGES = 30  # training pages of a predicted type that earn it a threshold of its own


def _params(config: TrainConfig, leaves: int) -> dict[str, Any]:
    return {
        "objective": "binary", "learning_rate": config.learning_rate, "num_leaves": leaves,
        "max_depth": config.max_depth,
        "min_data_in_leaf": config.min_leaf, "feature_fraction": config.feature_fraction,
        "lambda_l2": 1.0, "bagging_fraction": config.bagging_fraction,
        "bagging_freq": 1 if config.bagging_fraction < 1 else 0, "max_bin": 63,
        "num_threads": config.threads, "seed": config.seed, "deterministic": True,
        "force_row_wise": True, "verbosity": -1,
    }


def _stage1_params(config: TrainConfig) -> dict[str, Any]:
    """LightGBM parameters of the stage-1 boosters: the common ones and ``stage1_params``."""
    return {**_params(config, config.leaves), **config.stage1_params}


def check_stage1_params(params: dict[str, Any], features: int = 1) -> None:
    """Raise ModelError for ``TrainConfig.stage1_params`` LightGBM would ignore or refuse.

    A name it does not know it would only warn of (silenced by ``verbosity=-1``), so a misspelt
    setting would be measured as no change; its alias table is private API, read only when
    there are names to check. A value it cannot read (``lambda_l2="ten"``) is found by one round
    on four rows of ``features`` columns (per-feature settings such as ``monotone_constraints``
    need one value per stage-1 feature), so callers can check before the slow part of a run.
    """
    if not params:
        return
    lgb = _lightgbm()
    known = lgb.basic._ConfigAliases._get_all_param_aliases()  # (LightGBM >= 4.0)
    names = {alias for aliases in known.values() for alias in aliases} | set(known)
    unknown = sorted(set(params) - names)
    if unknown:
        raise ModelError(f"LightGBM has no parameter {', '.join(map(repr, unknown))} "
                         "(TrainConfig.stage1_params)")
    columns = max(features, 1)  # (LightGBM refuses a dataset of no columns whatever is set)
    rows = lgb.Dataset(np.tile(np.arange(4.0)[:, None], (1, columns)), label=[0, 1, 0, 1])
    try:
        lgb.train({**params, "verbosity": -1, "min_data_in_leaf": 1, "min_data_in_bin": 1},
                  rows, 1)
    except lgb.basic.LightGBMError as exc:
        raise ModelError(f"LightGBM refuses TrainConfig.stage1_params {params}: {exc}") from None


def _lightgbm() -> Any:
    """The LightGBM module, or a ModelError saying how to install it."""
    try:
        import lightgbm as lgb
    except ImportError:
        raise ModelError("training needs lightgbm: pip install 'grist[train]'") from None
    return lgb


def _page_weights(pages: Sequence[LabelledPage], names: Sequence[str],
                  config: TrainConfig) -> list[np.ndarray]:
    """Row weights of every page (see TrainConfig), scaled to a mean of one per row."""
    column = list(names).index("num_words")
    per_dataset: dict[str, int] = {}
    for page in pages:
        per_dataset[page.dataset] = per_dataset.get(page.dataset, 0) + 1
    weights = []
    for page in pages:
        words = page.values[:, column].astype(float) + 1.0
        scale = words.sum() ** -config.page_power * per_dataset[page.dataset] ** -config.dataset_power
        weights.append(words * scale)
    mean = np.concatenate(weights).mean()
    return [w / mean for w in weights]


def targets(page: LabelledPage, target: str) -> np.ndarray:
    """The training labels of one page for ``TrainConfig.target``."""
    if target == "gold" or page.roles is None:
        return page.labels
    wanted = ("body",) if target == "body" else ARTICLE_ROLES
    codes = [ROLES.index(r) for r in wanted]
    return np.isin(page.roles, codes)


def _train(lgb: Any, values: np.ndarray, labels: np.ndarray, weights: np.ndarray,
           names: Sequence[str], params: dict[str, Any], rounds: int) -> Any:
    data = lgb.Dataset(values, label=labels.astype(float), weight=weights,
                       feature_name=list(names), free_raw_data=True)
    return lgb.train(params, data, num_boost_round=rounds)


def _silent(message: str) -> None:
    """The stage hook of a library call: it says nothing."""


def _training_pages(pages: Iterable[LabelledPage], names1: tuple[str, ...],
                    config: TrainConfig) -> list[LabelledPage]:
    """The pages with blocks, after checking they are labelled pages whose rows ``names1``
    name, enough for leaves of ``config.min_leaf`` blocks (ModelError naming what is wrong)."""
    many = isinstance(pages, Iterable) and not isinstance(pages, (str, bytes))
    items = list(pages) if many else [pages]
    strangers = [p for p in items if not isinstance(p, LabelledPage)]
    if strangers:
        raise ModelError("AutoModel.fit takes a list of LabelledPage (grist.train.build."
                         f"label_pages makes them), not {type(strangers[0]).__name__}")
    for page in items:
        check_rows(page.values, page.labels, names1, f"page {page.id}")
    items = [p for p in items if len(p.labels)]
    if not items:
        raise ModelError("no labelled blocks to train on")
    first = items[0]
    try:  # (stage 2 reads stage-1 columns by name, as the row weights read num_words)
        stage2_features(first.regions, first.paths, FeatureMatrix(names1, first.values),
                        np.zeros(len(first.labels)))
    except ValueError as exc:
        raise ModelError(f"stage 2 cannot read the pages' features ({exc}): give the names of "
                         "grist.features.auto.stage1_features") from None
    check_leaf_room(sum(len(p.labels) for p in items), config.min_leaf, config.bagging_fraction)
    return items


def fit_boosters(pages: Sequence[LabelledPage], names1: tuple[str, ...], config: TrainConfig,
                 on_stage: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Train every booster of an ``AutoModel`` (LightGBM, imported here) and return what the
    model keeps: the boosters' texts, the threshold and how the model was made.

    ``on_stage`` is called with a line before each stage (``grist train`` prints them: the
    stages of a large training set take seconds to minutes; None: nothing is said)."""
    say = on_stage or _silent
    lgb = _lightgbm()
    check_stage1_params(config.stage1_params, len(names1))
    pages = _training_pages(pages, names1, config)
    params1 = _stage1_params(config)
    folds = min(config.folds, len(pages))
    weights = _page_weights(pages, names1, config)
    wanted = [targets(p, config.target) for p in pages]
    everything = range(len(pages))
    oof: list[np.ndarray] = [np.zeros(0)] * len(pages)
    blocks = sum(len(w) for w in wanted)
    say(f"stage 1, out of fold: {folds} x {config.oof_rounds} rounds on {blocks} blocks")
    for fold in range(folds):
        held = [i for i in everything if i % folds == fold]
        train = [i for i in everything if i % folds != fold] or everything
        booster = _train(lgb, *_stack(pages, wanted, weights, train), names1, params1,
                         config.oof_rounds)
        for i in held:
            oof[i] = booster.predict(pages[i].values, num_threads=1)
    say(f"stage 1: {config.rounds} rounds")
    values1, labels, weights1 = _stack(pages, wanted, weights, everything)
    stage1 = _train(lgb, values1, labels, weights1, names1, params1, config.rounds)
    del values1
    types, type_text = None, ""
    if config.page_type:
        types, type_text = _fit_types(lgb, pages, names1, oof, config, say)
    say(f"stage 2: {config.rounds2} rounds")
    values2, names2 = _stage2_rows(pages, names1, oof, config, types)
    stage2 = _train(lgb, values2, labels, weights1, names2, _params(config, config.leaves2),
                    config.rounds2)
    threshold = config.threshold
    by_type: list[float] = []
    oof2 = np.zeros(0)
    if threshold is None or config.page_cut:
        say(f"stage 2, out of fold (for the threshold): {folds} x {config.rounds2} rounds")
        oof2 = _oof_stage2(lgb, pages, values2, labels, weights1, names2, config)
    if threshold is None:
        curves = _threshold_curves(pages, wanted, names1, oof2)
        threshold = _best_threshold(curves)
        if config.type_thresholds and types is not None:
            by_type = _type_thresholds(curves, types, threshold)
    cut = ""
    if config.page_cut:
        say(f"page cut: {config.cut_rounds} rounds")
        cut = _fit_cut(lgb, pages, wanted, names1, oof2, config)
    meta = {"pages": len(pages), "blocks": len(labels), "config": asdict(config),
            "datasets": sorted({p.dataset for p in pages})}
    return {"text1": stage1.model_to_string(), "text2": stage2.model_to_string(),
            "threshold": threshold, "meta": meta, "text_cut": cut, "text_types": type_text,
            "type_thresholds": by_type}


def _oof_stage2(lgb: Any, pages: Sequence[LabelledPage], values2: np.ndarray,
                labels: np.ndarray, weights: np.ndarray, names2: tuple[str, ...],
                config: TrainConfig) -> np.ndarray:
    """Stage-2 probabilities of every training block, each from a stage-2 model trained
    without its page (pages in ``config.folds`` alternating folds). They are about as sure as
    on unseen pages; the final model's probabilities of its own training rows are surer, and
    cuts chosen on them come out too high."""
    folds = min(config.folds, len(pages))
    row_fold = np.repeat(np.arange(len(pages)) % folds, [len(p.labels) for p in pages])
    oof = np.zeros(len(labels))
    for fold in range(folds):
        train = row_fold != fold if folds > 1 else np.ones(len(labels), bool)
        booster = _train(lgb, values2[train], labels[train], weights[train], names2,
                         _params(config, config.leaves2), config.rounds2)
        oof[row_fold == fold] = booster.predict(values2[row_fold == fold], num_threads=1)
    return oof


def _per_page(values: np.ndarray, wanted: Sequence[np.ndarray]) -> list[np.ndarray]:
    """``values`` (one per block of all pages, stacked) cut into one array per page."""
    return np.split(values, np.cumsum([len(w) for w in wanted])[:-1])


def _fit_cut(lgb: Any, pages: Sequence[LabelledPage], wanted: Sequence[np.ndarray],
             names1: tuple[str, ...], oof2: np.ndarray, config: TrainConfig) -> str:
    """The page-cut booster, from out-of-fold stage-2 probabilities ``oof2`` of the training
    pages."""
    words = list(names1).index("num_words")
    rows, cuts = [], []
    for page, labels, p in zip(pages, wanted, _per_page(oof2, wanted), strict=True):
        count = page.values[:, words].astype(float)
        best = best_cut(p, count, labels)
        if best is not None:
            rows.append(page_cut_features(p, count))
            cuts.append(best)
    return fit_cut(lgb, np.array(rows), np.array(cuts), _params(config, config.leaves2),
                   config.cut_rounds)


def _stack(pages: Sequence[LabelledPage], wanted: Sequence[np.ndarray],
           weights: Sequence[np.ndarray], chosen: Sequence[int]
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (np.vstack([pages[i].values for i in chosen]),
            np.concatenate([wanted[i] for i in chosen]),
            np.concatenate([weights[i] for i in chosen]))


def _fit_types(lgb: Any, pages: Sequence[LabelledPage], names1: tuple[str, ...],
               oof: Sequence[np.ndarray], config: TrainConfig,
               say: Callable[[str], None]) -> tuple[np.ndarray | None, str]:
    """Out-of-fold type probabilities of every page and the type booster, or (None, "") when
    too few training pages have a type (``say``: the stage hook of ``fit_boosters``)."""
    labels = known_types(pages)
    if (labels >= 0).sum() < 20 or len(set(labels[labels >= 0].tolist())) < 2:
        return None, ""
    say(f"page types: {config.type_rounds} rounds")
    rows = np.array([page_row(FeatureMatrix(names1, p.values), prob)
                     for p, prob in zip(pages, oof, strict=True)])
    text, types = fit_types(lgb, rows, labels, _params(config, 15), config.type_rounds,
                            config.folds)
    return types, text


def _stage2_rows(pages: Sequence[LabelledPage], names1: tuple[str, ...],
                 probabilities: Sequence[np.ndarray], config: TrainConfig,
                 types: np.ndarray | None = None) -> tuple[np.ndarray, tuple[str, ...]]:
    parts = [
        stage2_features(p.regions, p.paths, FeatureMatrix(names1, p.values), prob)
        for p, prob in zip(pages, probabilities, strict=True)
    ]
    if types is not None:
        parts = [m.hstack(type_columns(t, len(m))) for m, t in zip(parts, types, strict=True)]
    names = parts[0].names
    left_out = (PAGE_RELATIVE if not config.calibration else ()) + (
        PAGE_SIGNALS if not config.page_signals else ())
    if left_out:
        names = tuple(n for n in names if n not in left_out)
        parts = [m.select(names) for m in parts]
    return np.vstack([m.values for m in parts]), names


def _threshold_curves(pages: Sequence[LabelledPage], wanted: Sequence[np.ndarray],
                      names1: Sequence[str], p2: np.ndarray) -> np.ndarray:
    """Per training page, its word F1 at each threshold of THRESHOLDS (pages x thresholds; 0
    for pages without content).

    ``p2``: out-of-fold stage-2 probabilities (``_oof_stage2``), about as sure as on unseen
    pages; a page's F1 counts the words of its blocks (labels as truth).
    """
    column = list(names1).index("num_words")
    grid = np.array(THRESHOLDS)
    curves = np.zeros((len(pages), len(grid)))
    for i, (page, labels, p) in enumerate(zip(pages, wanted, _per_page(p2, wanted),
                                               strict=True)):
        f1 = word_f1(p, page.values[:, column].astype(float), labels, grid)
        if f1 is not None:
            curves[i] = f1
    return curves


def _best_threshold(curves: np.ndarray) -> float:
    """The threshold of THRESHOLDS with the best mean word F1 over the pages of ``curves``."""
    return float(THRESHOLDS[int(np.argmax(curves.sum(axis=0)))])


def _type_thresholds(curves: np.ndarray, types: np.ndarray, fallback: float) -> list[float]:
    """Per page type, the best threshold on the training pages predicted of that type
    (``types``: their out-of-fold type probabilities); ``fallback`` for a type predicted for
    fewer than TYPE_THRESHOLD_PAGES pages, too few to choose on."""
    kinds = np.argmax(types, axis=1)
    return [_best_threshold(curves[kinds == k]) if (kinds == k).sum() >= TYPE_THRESHOLD_PAGES
            else fallback for k in range(types.shape[1])]
