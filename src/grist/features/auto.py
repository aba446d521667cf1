"""The feature rows ``auto`` reads: shallow text features plus DOM context.

Stage 1 sees each block's shallow features (``grist.features.text``), its DOM context
(``grist.features.context``), its Readability-style container scores
(``grist.features.candidates``) and a few columns of the blocks two steps away. Stage 2 sees the
stage-1 probabilities of the neighbours, of the block's region and DOM path, and of the page
(the context-sensitive pass of seed 000 §4.1.2.2, learned instead of hand-set).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from grist.document import Block, Document
from grist.features.candidates import candidate_features
from grist.features.context import context_features, with_neighbours
from grist.features.matrix import FeatureMatrix
from grist.features.text import block_features
from grist.limits import Budget

FAR_COLUMNS = ("num_words", "link_density", "text_density", "ctx_up1_share")
STAGE2_OFFSETS = (-3, -2, -1, 1, 2, 3)
STAGE2_KEEP = ("num_words", "link_density", "text_density", "ctx_heading", "ctx_up1_share",
               "ctx_up3_share", "relative_position")


def stage1_features(blocks: Sequence[Block], doc: Document | None,
                    budget: Budget | None = None) -> FeatureMatrix:
    """Shallow, context and container features of every block, with the blocks two steps away.

    The blocks' ``str.split()`` word counts are computed once here and handed to the context and
    container features, which both need them. With a ``budget``, its deadline is checked between
    the three feature families (each is one pass of array work over the page's text).
    """
    counts = np.array([len(b.text.split()) for b in blocks], dtype=float)
    shallow = block_features(blocks)
    if budget is not None:
        budget.check("shallow features")
    matrix = shallow.hstack(context_features(blocks, doc, counts))
    if budget is not None:
        budget.check("context features")
    matrix = matrix.hstack(candidate_features(blocks, counts))
    return with_neighbours(matrix, FAR_COLUMNS, (-2, 2))


def _group_mean(keys: Sequence[object], p: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Word-weighted mean of ``p`` over the blocks sharing a key."""
    sums: dict[object, float] = {}
    totals: dict[object, float] = {}
    for key, value, w in zip(keys, p.tolist(), weight.tolist(), strict=True):
        sums[key] = sums.get(key, 0.0) + value * w
        totals[key] = totals.get(key, 0.0) + w
    return np.array([sums[k] / totals[k] for k in keys])


def _window_mean(p: np.ndarray, weight: np.ndarray, radius: int) -> np.ndarray:
    """Word-weighted mean of ``p`` over the blocks within ``radius`` positions."""
    cp = np.concatenate([[0.0], np.cumsum(p * weight)])
    cw = np.concatenate([[0.0], np.cumsum(weight)])
    n = len(p)
    lo = np.clip(np.arange(n) - radius, 0, n)
    hi = np.clip(np.arange(n) + radius + 1, 0, n)
    return (cp[hi] - cp[lo]) / np.maximum(cw[hi] - cw[lo], 1e-9)


def _run_edges(paths: Sequence[str], p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For the run of consecutive blocks sharing a block's DOM path (list items, table cells):
    the probability of the block just before the run, of the block just after it, and its length.

    A list of links between two paragraphs of an article reads as content; the same list after the
    article's end does not. Neighbours at fixed offsets miss this when the run is long.
    """
    n = len(p)
    if not n:
        return np.zeros(0), np.zeros(0), np.zeros(0)
    starts = np.flatnonzero([True] + [a != b for a, b in zip(paths, paths[1:])])
    ends = np.append(starts[1:], n) - 1
    run = np.repeat(np.arange(len(starts)), ends - starts + 1)
    padded = np.concatenate([[0.0], p, [0.0]])
    return padded[starts[run]], padded[ends[run] + 2], (ends - starts + 1)[run].astype(float)


def stage2_features(regions: Sequence[int], paths: Sequence[str], stage1: FeatureMatrix,
                    p: np.ndarray) -> FeatureMatrix:
    """The stage-1 probability in its context: neighbours, window, region, path and page."""
    n = len(p)
    weight = stage1.column("num_words") + 1.0
    base = FeatureMatrix(("p",), p.reshape(n, 1))
    shifted = with_neighbours(base, ("p",), STAGE2_OFFSETS)
    columns = [
        _window_mean(p, weight, 3), _window_mean(p, weight, 10),
        _group_mean(regions, p, weight),
        _group_mean(paths, p, weight),
        np.full(n, float(p.max()) if n else 0.0),
        np.full(n, float((p * weight).sum() / weight.sum()) if n else 0.0),
        *_run_edges(paths, p),
    ]
    names = ("win3_p", "win10_p", "region_p", "path_p", "page_max_p", "page_mean_p",
             "run_before_p", "run_after_p", "run_length")
    context = FeatureMatrix(names, np.column_stack(columns) if n else np.zeros((0, len(names))))
    kept = FeatureMatrix(STAGE2_KEEP, stage1.values[:, [stage1.names.index(c) for c in STAGE2_KEEP]])
    return shifted.hstack(context).hstack(kept)
