"""The feature rows ``auto`` reads: shallow text features plus DOM context.

Stage 1 sees each block's shallow features (``grist.features.text``), its DOM context
(``grist.features.context``), its Readability-style container scores
(``grist.features.candidates``) and a few columns of the blocks two steps away. Stage 2 sees the
stage-1 probabilities of the neighbours, of the block's region and DOM path, and of the page
(the context-sensitive pass of seed 000 §4.1.2.2, learned instead of hand-set).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from grist.document import Block, Document
from grist.features.ancestry import ancestry_features
from grist.features.candidates import candidate_features
from grist.features.chars import tokenize
from grist.features.context import context_features, neighbour_columns
from grist.features.copies import copy_features
from grist.features.elementwords import ElementWords
from grist.features.markup import markup_features
from grist.features.matrix import FeatureMatrix, side_by_side
from grist.features.numbering import ids_of
from grist.features.text import block_features
from grist.limits import Budget
from grist.segment.elements import Elements

FAR_COLUMNS = ("num_words", "link_density", "text_density", "ctx_up1_share")
STAGE2_OFFSETS = (-3, -2, -1, 1, 2, 3)
PAGE_RELATIVE = ("above_share", "of_max", "otsu_diff", "page_otsu", "gap_diff", "page_gap",
                 "page_q25", "page_q50", "page_q75")
PAGE_COPIED = ("page_hidden_share", "page_noscript_share", "page_copy_share", "art_share",
               "art_count", "dense_share", "ctx_page_words", "ctx_page_blocks")  # stage-1 columns that are the same for the whole page
PAGE_SIGNALS = ("page_link_share", "page_card_share", "page_list_share", "page_cell_share",
                "page_code_share", "page_heading_share", "page_thread_share", "page_shop_share",
                *(f"s1_{c}" for c in PAGE_COPIED))
_STAGE2_CONTEXT = ("win3_p", "win10_p", "region_p", "path_p", "page_max_p", "page_mean_p",
                   "run_before_p", "run_after_p", "run_length")
STAGE2_KEEP = ("num_words", "link_density", "text_density", "ctx_heading", "ctx_up1_share",
               "ctx_up3_share", "relative_position")


def stage1_features(blocks: Sequence[Block], doc: Document | None,
                    elements: Elements | None = None, budget: Budget | None = None
                    ) -> FeatureMatrix:
    """Shallow, context, container, ancestry, copy and markup features of every block, with the
    blocks two steps away. ``elements``: the page's element table from ``segment_elements``
    (without it the ancestry columns are zeros).

    The blocks' tokens are found once here: their counts (``str.split()``'s) are handed to the
    context, container and ancestry features, which all need them, and their characters (with
    their lower-cased form) to the shallow and context features. With a ``budget``, its
    deadline is checked between the feature families (each is one pass of array work over the
    page's text).
    """
    texts = [b.text for b in blocks]
    tokens = tokenize(texts)
    counts = tokens.counts.astype(float)
    links = np.minimum(np.array([b.anchor_words for b in blocks], dtype=float), counts)
    parts = [block_features(blocks, tokens=tokens)]
    if budget is not None:
        budget.check("shallow features")
    # the elements' id/class keywords, found once for the context and ancestry features
    element_words = ElementWords(elements) if elements is not None and len(elements) else None
    parts.append(context_features(blocks, doc, counts, tokens.chars, element_words))
    del tokens
    if budget is not None:
        budget.check("context features")
    parts += [candidate_features(blocks, counts),
              ancestry_features(blocks, elements, counts, links, element_words),
              copy_features(texts, counts), markup_features(texts, counts)]
    parts.append(neighbour_columns(_columns(parts, FAR_COLUMNS), (-2, 2)))
    return FeatureMatrix.concat(parts)  # each part copied once (not the growing matrix)


def _columns(parts: Sequence[FeatureMatrix], names: Sequence[str]) -> FeatureMatrix:
    """The columns ``names``, each taken from the part that holds it."""
    where = {name: part for part in parts for name in part.names}
    return FeatureMatrix(tuple(names), side_by_side([where[n].column(n) for n in names]))


def _group_mean(which: np.ndarray, p: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Word-weighted mean of ``p`` over the blocks of each group (``which``: every block's
    group, ``ids_of`` numbers)."""
    sums = np.bincount(which, weights=p * weight)
    return sums[which] / np.bincount(which, weights=weight)[which]


def _window_means(p: np.ndarray, weight: np.ndarray, radii: Sequence[int]) -> list[np.ndarray]:
    """Word-weighted mean of ``p`` over the blocks within each of ``radii`` positions (the
    running sums shared by all radii)."""
    cp = np.concatenate([[0.0], np.cumsum(p * weight)])
    cw = np.concatenate([[0.0], np.cumsum(weight)])
    n = len(p)
    index = np.arange(n)
    means = []
    for radius in radii:  # (one-sided bounds: ``np.clip`` costs more on a page's few blocks)
        lo = np.maximum(index - radius, 0)
        hi = np.minimum(index + radius + 1, n)
        means.append((cp[hi] - cp[lo]) / np.maximum(cw[hi] - cw[lo], 1e-9))
    return means


def _run_edges(paths: Sequence[Hashable] | np.ndarray, p: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For the run of consecutive blocks sharing a block's DOM path (list items, table cells):
    the probability of the block just before the run, of the block just after it, and its length.
    ``paths``: the blocks' paths, or numbers standing for them (``ids_of``).

    A list of links between two paragraphs of an article reads as content; the same list after the
    article's end does not. Neighbours at fixed offsets miss this when the run is long.
    """
    n = len(p)
    if not n:
        return np.zeros(0), np.zeros(0), np.zeros(0)
    keys = np.asarray(paths)
    starts = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]]))
    ends = np.concatenate([starts[1:], [n]]) - 1
    run = np.repeat(np.arange(len(starts)), ends - starts + 1)
    padded = np.concatenate([[0.0], p, [0.0]])
    return padded[starts[run]], padded[ends[run] + 2], (ends - starts + 1)[run].astype(float)


def _weighted_otsu(sorted_p: np.ndarray, sorted_w: np.ndarray) -> float:
    """The cut between two groups of the page's probabilities (sorted ascending, weighted by
    words) that maximises the between-group variance (Otsu 1979)."""
    total = sorted_w.sum()
    low_w = np.cumsum(sorted_w)[:-1]
    low_sum = np.cumsum(sorted_p * sorted_w)[:-1]
    high_w = total - low_w
    ok = (low_w > 0) & (high_w > 0)
    if not ok.any():
        return float(sorted_p[-1])
    mean_low = low_sum / np.maximum(low_w, 1e-12)
    mean_high = (low_sum[-1] + sorted_p[-1] * sorted_w[-1] - low_sum) / np.maximum(high_w, 1e-12)
    between = np.where(ok, low_w * high_w * (mean_high - mean_low) ** 2, -1.0)
    k = int(np.argmax(between))
    return float((sorted_p[k] + sorted_p[k + 1]) / 2)


def page_relative(p: np.ndarray, weight: np.ndarray) -> FeatureMatrix:
    """Where each block's probability stands on its page, so stage 2 can learn a cut per page:
    the share of the page's words scored higher (``above_share``), the probability over the
    page's best (``of_max``), its distance to the page's Otsu cut between two groups of
    probabilities (``otsu_diff``, and the cut itself), to the middle of the largest drop
    between neighbouring probabilities (``gap_diff``, and that drop's size), and the page's
    word-weighted quartiles of probabilities."""
    names = PAGE_RELATIVE
    n = len(p)
    if not n:
        return FeatureMatrix(names, np.zeros((0, len(names))))
    order = np.argsort(p, kind="stable")
    sp, sw = p[order], weight[order]
    total = sw.sum()
    through = np.cumsum(sw)  # words at or below each sorted position
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    # Ties: every block with the same probability gets the words above the last of them.
    last_equal = np.searchsorted(sp, sp, side="right") - 1
    above = (total - through[last_equal]) / total
    otsu = _weighted_otsu(sp, sw)
    drops = sp[1:] - sp[:-1]
    k = int(np.argmax(drops)) if len(drops) else 0
    gap_cut = float((sp[k] + sp[k + 1]) / 2) if len(drops) else float(sp[0])
    gap = float(drops[k]) if len(drops) else 0.0
    quartiles = sp[np.minimum(np.searchsorted(through / total, (0.25, 0.5, 0.75)), n - 1)]
    columns = [above[rank], p / max(float(sp[-1]), 1e-9), p - otsu, np.full(n, otsu),
               p - gap_cut, np.full(n, gap), *(np.full(n, q) for q in quartiles)]
    return FeatureMatrix(names, side_by_side(columns))


# Columns whose positive blocks make each page share of ``page_signals`` after the link share:
# cards, list items, cells, code, headings, comment/forum words, product/price words.
_SHARED_BY = (("card_siblings",), ("ctx_list_depth",), ("ctx_cell",), ("ctx_pre",),
              ("ctx_heading",),
              ("anc_comment", "anc_reply", "anc_thread", "anc_forum", "anc_message"),
              ("anc_product", "anc_price", "anc_cart"))
_SHARE_COLUMNS = tuple(c for group in _SHARED_BY for c in group)
_SHARE_STARTS = np.cumsum([0, *(len(group) for group in _SHARED_BY[:-1])])


def _page_shares(stage1: FeatureMatrix) -> np.ndarray:
    """The word shares of ``page_signals`` (of a page with blocks)."""
    words = stage1.column("num_words")
    total = max(float(words.sum()), 1.0)
    positive = stage1.values[:, [stage1.positions[c] for c in _SHARE_COLUMNS]] > 0
    masks = np.logical_or.reduceat(positive, _SHARE_STARTS, axis=1).T
    return np.array([float((words * stage1.column("link_density")).sum()) / total,
                     *(float(words[mask].sum()) / total for mask in masks)])


def page_signals(stage1: FeatureMatrix) -> FeatureMatrix:
    """What kind of page this is, as shares of its words: in links, in teaser cards, in list
    items, table cells, code, headings, under comment/forum words, under product/price words;
    and the stage-1 page constants (hidden share, article container, size). The same for every
    block of the page: a page-type signal for stage 2."""
    n = len(stage1)
    if not n:
        return FeatureMatrix(PAGE_SIGNALS, np.zeros((0, len(PAGE_SIGNALS))))
    shares = _page_shares(stage1)
    values = np.empty((n, len(PAGE_SIGNALS)))  # (filled in place: no tiled copy to join)
    values[:, : len(shares)] = shares
    values[:, len(shares) :] = stage1.values[:, [stage1.positions[c] for c in PAGE_COPIED]]
    return FeatureMatrix(PAGE_SIGNALS, values)


def first_page_signals(stage1: FeatureMatrix) -> np.ndarray:
    """The first row of ``page_signals`` (of a page with blocks), without the others."""
    return np.concatenate([_page_shares(stage1),
                           stage1.values[0, [stage1.positions[c] for c in PAGE_COPIED]]])


def stage2_features(regions: Sequence[int], paths: Sequence[str], stage1: FeatureMatrix,
                    p: np.ndarray) -> FeatureMatrix:
    """The stage-1 probability in its context: neighbours, window, region, path and page,
    where it stands among the page's probabilities (``page_relative``) and what kind of page it
    is (``page_signals``)."""
    return FeatureMatrix.concat(stage2_parts(regions, paths, stage1, p))


def stage2_parts(regions: Sequence[int], paths: Sequence[str], stage1: FeatureMatrix,
                 p: np.ndarray) -> list[FeatureMatrix]:
    """The column groups of ``stage2_features``, for a caller that adds its own before
    joining them all in one copy."""
    n = len(p)
    weight = stage1.column("num_words") + 1.0
    path_ids = ids_of(paths)[0]
    columns = [
        *_window_means(p, weight, (3, 10)),
        _group_mean(ids_of(regions)[0], p, weight),
        _group_mean(path_ids, p, weight),
        np.full(n, float(p.max()) if n else 0.0),
        np.full(n, float((p * weight).sum() / weight.sum()) if n else 0.0),
        *_run_edges(path_ids, p),
    ]
    context = FeatureMatrix(_STAGE2_CONTEXT,
                            side_by_side(columns) if n else np.zeros((0, len(_STAGE2_CONTEXT))))
    base = FeatureMatrix(("p",), p.reshape(n, 1))
    return [base, neighbour_columns(base, STAGE2_OFFSETS), context, stage1.select(STAGE2_KEEP),
            page_relative(p, weight), page_signals(stage1)]
