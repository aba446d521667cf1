"""Readability-style container scores of blocks: how much the page's best text container holds them.

Readability's idea (Arc90, 2009): every paragraph gives points (one, plus one per comma, plus one
per 100 characters up to three) to its parent and, discounted, to its farther ancestors; a
container's score is scaled by one minus its link density, and the best-scoring container is the
article. grist has no element identity on blocks, so a container is approximated from the blocks'
paths: the ancestor at depth ``w`` of block ``i`` is the run of neighbouring blocks whose paths
share their first ``w`` components with it (``grist.features.context.Runs``). Paths are cut
after their last block-level tag, so inline wrappers (``p>strong``) do not deepen a block, and
the innermost region element carries the block's region number, so sibling containers differ.

Every block then learns whether it sits in the top container or its parent/grandparent, how its
own containers score against the top one, and how far it is from it. One linear pass over the
blocks plus NumPy group sums; no extra walk over the DOM.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import repeat

import numpy as np

from grist.document import Block
from grist.features.context import Runs, common_prefixes
from grist.features.matrix import FeatureMatrix, side_by_side
from grist.features.numbering import ids_of
from grist.segment.blocks import HTML5_BLOCK_TAGS
from grist.segment.context import REGION_TAGS
from grist.whitespace import count_tokens

# Points a paragraph gives to its ancestor ``level`` steps up (Readability: 1, 1/2, 1/(3 level)).
DIVIDERS = (1.0, 2.0, 6.0, 9.0, 12.0)
# DIVIDERS and their levels 1, 2 ... as columns: one row per level of (level, block) arrays
_DIVIDERS = np.array(DIVIDERS)[:, None]
_LEVELS = np.arange(1, len(DIVIDERS) + 1)[:, None]
# Readability's starting score of a container by its tag (div likely, lists and headings not).
TAG_BASE = {"div": 5.0, "pre": 3.0, "td": 3.0, "blockquote": 3.0, "article": 5.0, "main": 5.0,
            "section": 3.0, "address": -3.0, "ol": -3.0, "ul": -3.0, "dl": -3.0, "dd": -3.0,
            "dt": -3.0, "li": -3.0, "form": -3.0, "th": -5.0, "h1": -5.0, "h2": -5.0, "h3": -5.0,
            "h4": -5.0, "h5": -5.0, "h6": -5.0, "nav": -5.0, "footer": -5.0, "aside": -5.0}
MIN_CHARS = 25
NAMES = ("cand_para", "cand_l1", "cand_l2", "cand_best", "cand_sibling", "cand_in_top",
         "cand_in_top_parent", "cand_in_top_grandparent", "cand_top_dist", "cand_top_share",
         "cand_top_linkdens", "cand_top_depth")


@lru_cache(maxsize=4096)
def _cut(path: str) -> tuple[tuple[str, ...], int]:
    parts = path.split(">") if path else []
    for k in range(len(parts) - 1, -1, -1):
        if parts[k] in HTML5_BLOCK_TAGS:
            parts = parts[: k + 1]
            break
    for k in range(len(parts) - 1, -1, -1):
        if parts[k] in REGION_TAGS:
            return tuple(parts), k
    return tuple(parts), -1


@lru_cache(maxsize=4096)
def _tag_base(component: str) -> float:
    """Readability's starting score of a container from its cut path component (``div#4``)."""
    return TAG_BASE.get(component.partition("#")[0], 0.0)


def cut_path(path: str, region: int = 0) -> list[str]:
    """A block's path up to its innermost block-level element (inline wrappers cut off), its
    innermost region element marked with the region's number so sibling ``div``s differ."""
    parts, k = _cut(path)
    cut = list(parts)
    if k >= 0:
        cut[k] = f"{cut[k]}#{region}"
    return cut


def paragraph_scores(texts: Sequence[str]) -> np.ndarray:
    """Readability's points per paragraph: 1 + commas + min(chars // 100, 3); 0 under 25 chars."""
    chars = np.fromiter(map(len, texts), float, len(texts))
    commas = np.fromiter(map(str.count, texts, repeat(",")), float, len(texts))
    points = 1.0 + commas + np.minimum(chars // 100, 3.0)
    return np.where(chars >= MIN_CHARS, points, 0.0)


def _distinct(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct ``keys`` ascending, where one of each stands and each key's rank among
    them: ``np.unique(keys, return_index=True, return_inverse=True)`` but for which of equal
    keys stands, faster: ``np.unique`` sorts stably to find the first of each."""
    order = np.argsort(keys)
    ordered = keys[order]
    new = np.empty(len(keys), dtype=bool)
    new[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    inverse = np.empty(len(keys), dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return ordered[new], order[new], inverse


def _between(n: int, lo: int, hi: int) -> np.ndarray:
    """1.0 for blocks ``lo`` to ``hi`` of ``n``, 0.0 for the others."""
    inside = np.zeros(n)
    inside[lo : hi + 1] = 1.0
    return inside


def candidate_columns(paths: Sequence[Sequence[str]], texts: Sequence[str], words: np.ndarray,
                      links: np.ndarray, which: np.ndarray | None = None) -> FeatureMatrix:
    """The container features of every block from its cut path, text, words and anchor words.
    Block ``i``'s cut path is ``paths[i]``, or ``paths[which[i]]`` when ``which`` numbers the
    blocks' distinct cut ``paths`` (``grist.features.context.ids_of``)."""
    n = len(texts)
    if not n:
        return FeatureMatrix(NAMES, np.zeros((0, len(NAMES))))
    if which is None:
        which = np.arange(n)
    para = paragraph_scores(texts)
    lengths = np.fromiter(map(len, paths), np.int64, len(paths))[which]
    span = int(lengths.max()) + 1
    prefix = common_prefixes(paths, which)
    runs = Runs(prefix)
    cum, cum_links = np.zeros((2, n + 1))
    np.cumsum(words, out=cum[1:])
    np.cumsum(links, out=cum_links[1:])
    above = lengths - _LEVELS  # (level, block): the ancestors' depths, below 1 past the root
    want = np.maximum(above, 1)
    lo, hi = runs.bounds(want)
    points = np.where(above >= 1, para / _DIVIDERS, 0.0)
    # (any (level, block) of a container stands for it: its run, depth and tag are the same)
    unique, first, inverse = _distinct((lo * span + want).ravel())
    lo_u, hi_u, depth_u = lo.ravel()[first], hi.ravel()[first], want.ravel()[first]
    components = [paths[i][d - 1]
                  for i, d in zip(which[first % n].tolist(), depth_u.tolist(), strict=True)]
    score = np.bincount(inverse, weights=points.ravel(), minlength=len(unique))
    score = score + np.fromiter(map(_tag_base, components), float, len(unique)) * (score > 0)
    mass = cum[hi_u + 1] - cum[lo_u]
    linkdens = (cum_links[hi_u + 1] - cum_links[lo_u]) / np.maximum(mass, 1.0)
    final = score * (1.0 - linkdens)
    top = int(final.argmax())
    best = max(float(final[top]), 1e-9)
    per_level = final[inverse].reshape(len(DIVIDERS), n) / best
    top_lo, top_hi, top_depth = int(lo_u[top]), int(hi_u[top]), int(depth_u[top])
    index = np.arange(n)
    sibling_lo = runs.bounds(np.full(n, top_depth))[0]  # (top_depth is one of the wants)
    sibling_keys = sibling_lo * span + top_depth
    place = np.minimum(np.searchsorted(unique, sibling_keys), len(unique) - 1)
    sibling = np.where(unique[place] == sibling_keys, final[place] / best, 0.0)
    columns = [para, per_level[0], per_level[1], per_level.max(axis=0)]
    columns.append(sibling * (lengths >= top_depth))
    columns.append(_between(n, top_lo, top_hi))
    for up in (1, 2):  # the runs around the top one's first block, one and two levels up
        around_lo, around_hi = runs.bounds(np.full(n, max(top_depth - up, 1)))
        columns.append(_between(n, int(around_lo[top_lo]), int(around_hi[top_lo])))
    # signed distance to the top run: negative before it, positive after it, 0 inside
    columns.append((np.minimum(index - top_lo, 0) + np.maximum(index - top_hi, 0)) / n)
    total = max(float(cum[-1]), 1.0)
    columns += [np.full(n, mass[top] / total), np.full(n, linkdens[top]),
                np.full(n, top_depth / span)]
    return FeatureMatrix(NAMES, side_by_side(columns))


def candidate_features(blocks: Sequence[Block], words: np.ndarray | None = None) -> FeatureMatrix:
    """Container features of the page's blocks (see module doc); ``words``: their ``str.split()``
    word counts, when the caller has them already."""
    texts = [b.text for b in blocks]
    if words is None:
        words = np.array([count_tokens(t) for t in texts], dtype=float)
    links = np.minimum(np.array([b.anchor_words for b in blocks], dtype=float), words)
    which, keys = ids_of([(b.path, b.region) for b in blocks])  # cut once per distinct key
    return candidate_columns([cut_path(*key) for key in keys], texts, words, links, which)
