"""A predicted page type for stage 2: article, forum, product, service, documentation, collection
or listing.

On a forum thread the replies are the main text; under an article, readers' comments are not.
On a product or listing page the body is short pieces among many others. Stage 1 sees one block
at a time; the page type tells stage 2 which reading applies. The type is *predicted*, never
taken from a dataset: a small multi-class booster over page-level aggregates (the page signals
of ``grist.features.auto.page_signals`` and the distribution of the stage-1 probabilities),
trained on the pages whose dataset gives a type (modern-dev, wcxb-dev) plus the article
datasets (Dragnet, L3S-GN1 and Readability's test pages are news and blog articles). Its
probabilities join the stage-2 features, the same for every block of a page.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from grist.features.auto import PAGE_SIGNALS, first_page_signals
from grist.features.matrix import FeatureMatrix

TYPES = ("article", "forum", "product", "service", "documentation", "collection", "listing")
TYPE_NAMES = tuple(f"type_{t}" for t in TYPES)
ALIASES = {"blog": "article"}
ARTICLE_DATASETS = frozenset({"dragnet", "l3s-gn1", "readability"})
ROW_NAMES = (*PAGE_SIGNALS, "p1_mean", "p1_over50", "p1_max", "p1_top_share")


def page_row(stage1: FeatureMatrix, p1: np.ndarray) -> np.ndarray:
    """The page-level description the type is predicted from."""
    if not len(stage1):
        return np.zeros(len(ROW_NAMES))
    signals = first_page_signals(stage1)
    words = stage1.column("num_words") + 1.0
    total = float(words.sum())
    top = np.sort(words[p1 >= 0.5])[::-1][:3].sum() / total if (p1 >= 0.5).any() else 0.0
    return np.concatenate([signals, [float((p1 * words).sum()) / total,
                                     float(words[p1 >= 0.5].sum()) / total, float(p1.max()), top]])


def type_label(page_type: str | None, dataset: str) -> int:
    """The training class of a page: its given type, ``article`` for the article datasets, else
    -1 (not used to train the type)."""
    if page_type:
        name = ALIASES.get(page_type, page_type)
        return TYPES.index(name) if name in TYPES else -1
    return 0 if dataset in ARTICLE_DATASETS else -1


def fit_types(lgb: Any, rows: np.ndarray, labels: np.ndarray, params: dict[str, Any],
              rounds: int, folds: int) -> tuple[str, np.ndarray]:
    """The type booster (LightGBM text) and out-of-fold type probabilities of every row: rows
    with a label get them from the models trained without their fold, the others from the
    model trained on every labelled row."""
    params = {**params, "objective": "multiclass", "num_class": len(TYPES), "num_leaves": 15,
              "min_data_in_leaf": 10}
    known = np.flatnonzero(labels >= 0)

    def train(chosen: np.ndarray) -> Any:
        data = lgb.Dataset(rows[chosen], label=labels[chosen], feature_name=list(ROW_NAMES),
                           free_raw_data=True)
        return lgb.train(params, data, num_boost_round=rounds)

    final = train(known)
    out = final.predict(rows, num_threads=1)
    for fold in range(folds):
        held = known[np.arange(len(known)) % folds == fold]
        if folds > 1 and len(held):
            out[held] = train(np.setdiff1d(known, held)).predict(rows[held], num_threads=1)
    return final.model_to_string(), out


def type_columns(probabilities: np.ndarray, rows: int) -> FeatureMatrix:
    """The page's type probabilities as stage-2 columns, one row per block."""
    return FeatureMatrix(TYPE_NAMES, np.tile(probabilities, (rows, 1)))


def known_types(pages: Sequence[Any]) -> np.ndarray:
    """The training class of every labelled page (see ``type_label``)."""
    return np.array([type_label(p.page_type, p.dataset) for p in pages])
