"""A learned cut per page: where to threshold a page's final probabilities, from their shape.

The ranking of blocks within a page is nearly right; a single global threshold is not, because
the same probability means different things on different pages. ``page_cut_features`` describes
a page's probabilities (word-weighted quantiles, Otsu's cut, the largest drop, the mass over a
few levels, the page's size); a small regression booster learns the best threshold of each
training page (``best_cut``: the middle of the range of thresholds with the best word F1 of the
page, from out-of-fold probabilities) from them. At extraction the cut is one booster call per
page, clipped to ``CUT_RANGE``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grist.features.auto import _weighted_otsu

CUT_GRID = np.round(np.arange(0.05, 0.951, 0.025), 3)
CUT_RANGE = (0.1, 0.9)
CUT_NAMES = ("cut_q10", "cut_q25", "cut_q50", "cut_q75", "cut_q90", "cut_otsu", "cut_gap",
             "cut_gap_size", "cut_over30", "cut_over50", "cut_over70", "cut_max", "cut_mean",
             "cut_log_words", "cut_log_blocks")


def page_cut_features(p: np.ndarray, words: np.ndarray) -> np.ndarray:
    """One row describing a page's probabilities ``p`` of blocks of ``words`` words."""
    if not len(p):
        return np.zeros(len(CUT_NAMES))
    weight = words + 1.0
    order = np.argsort(p, kind="stable")
    sp, sw = p[order], weight[order]
    total = float(sw.sum())
    through = np.cumsum(sw) / total
    quantiles = sp[np.minimum(np.searchsorted(through, (0.1, 0.25, 0.5, 0.75, 0.9)), len(p) - 1)]
    drops = np.diff(sp)
    k = int(np.argmax(drops)) if len(drops) else 0
    gap = float((sp[k] + sp[k + 1]) / 2) if len(drops) else float(sp[0])
    over = [float(weight[p >= level].sum()) / total for level in (0.3, 0.5, 0.7)]
    return np.array([*quantiles, _weighted_otsu(sp, sw), gap,
                     float(drops[k]) if len(drops) else 0.0, *over, float(sp[-1]),
                     float((p * weight).sum()) / total, float(np.log1p(words.sum())),
                     float(np.log1p(len(p)))])


def word_f1(p: np.ndarray, words: np.ndarray, wanted: np.ndarray,
            grid: np.ndarray) -> np.ndarray | None:
    """The page's word F1 when the blocks with ``p`` at or above each threshold of ``grid`` are
    kept (blocks of ``words`` words, ``wanted`` the true ones); None when the page has nothing
    to find."""
    content = words * wanted
    if content.sum() <= 0:
        return None
    kept = (p[None, :] >= grid[:, None]).astype(float)
    hits, chosen = kept @ content, kept @ words
    return 2 * hits / np.maximum(chosen + content.sum(), 1e-9)


def best_cut(p: np.ndarray, words: np.ndarray, wanted: np.ndarray) -> float | None:
    """The middle of the thresholds of ``CUT_GRID`` with the best word F1 on this page (None
    when the page has nothing to find)."""
    f1 = word_f1(p, words, wanted, CUT_GRID)
    if f1 is None:
        return None
    best = np.flatnonzero(f1 >= f1.max() - 1e-9)
    return float(CUT_GRID[best].mean())


def fit_cut(lgb: Any, rows: np.ndarray, cuts: np.ndarray, params: dict[str, Any],
            rounds: int) -> str:
    """The regression booster (LightGBM text) from page rows to their best cuts."""
    params = {**params, "objective": "regression", "num_leaves": 7, "min_data_in_leaf": 20}
    data = lgb.Dataset(rows, label=cuts, feature_name=list(CUT_NAMES), free_raw_data=True)
    return lgb.train(params, data, num_boost_round=rounds).model_to_string()


def clip_cut(value: float) -> float:
    """A predicted cut kept inside ``CUT_RANGE``."""
    return float(np.clip(value, *CUT_RANGE))
