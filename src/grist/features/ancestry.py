"""Features from every element above a block (``grist.segment.elements``), not only the nearest four.

- ``anc_<word>``: how close the nearest ancestor whose id/class/itemprop/role words hold the
  keyword is: 1 / (its DOM distance), so 1 for the block's own element, 1/2 for its parent, and
  0 when no ancestor has the word. A ``related`` rail ten levels up still shows.
- ``anc_hidden``: the same for ancestors hidden by their attributes (``hidden``,
  ``aria-hidden``, inline ``display:none``); ``page_hidden_share`` is the share of the page's
  words under one. Collapsed tabs and accordions hide real content, so this is evidence, not a rule.
  ``anc_noscript`` and ``page_noscript_share``: the same for ``noscript`` elements (kept, since
  some forums serve their posts only there, but some pages repeat the whole article in one).
- The article container: the ``article`` or ``articleBody`` element holding most words, else
  the ``main`` element (``art_in``: the block is inside it, ``art_share``: its share of the
  page's words, ``art_count``: how many such elements the page has, ``art_other``: the block
  sits in another, smaller ``article`` — a teaser card), and the *densest container*, the deepest element holding at least
  half of the page's words outside links (``dense_in``, ``dense_share``, ``dense_dist``).
- Teaser grids: the nearest ancestor-or-self that is one of at least three siblings with the same
  tag and words (a *card*): how many such siblings (``card_siblings``), the card's words, link
  density and blocks, and the share of the page's words the whole group holds.

The element tree is walked with NumPy (pointer jumping to the nearest flagged ancestor, then
one pass per level of the forest the flagged elements form, subtree sums from the pre-order
``end`` indices); no per-node Python work besides the keyword flags, found once per distinct
words string (``grist.features.elementwords``, shared with the context features).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from operator import attrgetter, itemgetter

import numpy as np

from grist.document import Block
from grist.features.elementwords import ANCESTRY_KEYWORDS, ElementWords, block_elements
from grist.features.matrix import FeatureMatrix
from grist.features.numbering import ids_of
from grist.segment.elements import Elements

ARTICLE_TAG, MAIN_TAG = "article", "main"
MIN_CARDS = 3
NAMES = (
    *(f"anc_{k}" for k in ANCESTRY_KEYWORDS), "anc_hidden", "page_hidden_share", "anc_noscript",
    "page_noscript_share",
    "art_in", "art_share", "art_count", "art_other", "dense_in", "dense_share", "dense_dist",
    "card_siblings", "card_words", "card_linkdens", "card_blocks", "card_group_share",
)
_AT = {name: i for i, name in enumerate(NAMES)}
# Where the distance columns go in NAMES: the keywords' own columns, then (after the keyword and
# hidden marks ``ancestry_features`` adds) ``anc_hidden`` and ``anc_noscript``.
_DISTANCE_AT = np.array([*range(len(ANCESTRY_KEYWORDS)), _AT["anc_hidden"], _AT["anc_noscript"]])


def _resolve(jump: np.ndarray) -> np.ndarray:
    """Follow ``jump`` (an array of indices into itself, ending in fixed points) to its fixed
    points, doubling the stride each round (pointer jumping: log2 of the longest chain rounds)."""
    while True:
        further = jump[jump]
        if (further == jump).all():  # (``np.array_equal`` checks in Python first: slower)
            return jump
        jump = further


# Flag columns resolved together by ``_Tree.nearest``: as many as fit in _CELLS_AT_ONCE (column,
# flagged element or block) cells, so most pages resolve every column in one pass, and never
# fewer than _COLUMNS_AT_LEAST (each pass costs a gather over all blocks: huge pages of few
# flagged elements would otherwise make many passes).
_CELLS_AT_ONCE = 1 << 18
_COLUMNS_AT_LEAST = 8


class _Tree:
    """The recorded elements as arrays (parents before children)."""

    def __init__(self, elements: Elements, words: ElementWords) -> None:
        rows = elements.rows
        self.size = size = len(rows)
        self.parent, self.depth, self.word = words.parent, words.depth, words.word
        # (np.fromiter with the count known: faster than np.array on a sequence)
        self.hidden = np.fromiter(map(itemgetter(4), rows), bool, size)
        self.end = np.fromiter(elements.end, np.int64, size)
        self.tag, distinct_tags = ids_of(list(map(itemgetter(2), rows)))
        number = dict(zip(distinct_tags, range(len(distinct_tags))))  # -1: not on the page
        self.article = self.tag == number.get(ARTICLE_TAG, -1)
        self.noscript = self.tag == number.get("noscript", -1)
        self.main = self.tag == number.get(MAIN_TAG, -1)

    def sibling_groups(self) -> np.ndarray:
        """A number per element, shared by siblings with the same tag and words (the cards of a
        grid)."""
        key = (self.parent + 1) * (int(self.word.max()) + 1) + self.word
        key = key * (int(self.tag.max()) + 1) + self.tag
        return np.unique(key, return_inverse=True)[1]

    def nearest(self, flagged: np.ndarray, own: np.ndarray, at: np.ndarray) -> np.ndarray:
        """For the elements ``at`` and every column of ``own`` (the flags of the elements
        ``flagged``, ascending; other elements have none): the index of the nearest
        ancestor-or-self whose flag is set, -1 when none is.

        First every element finds its nearest flagged ancestor-or-self (pointer jumping over
        all elements, one column). Then the flagged elements, a level of the forest they form
        at a time (shallowest first), take their own index where a column's flag is set and
        their nearest flagged ancestor's answer elsewhere: laid out level by level, each level
        is a slice, worked for a group of columns at once (all of them on most pages), and
        every answer is computed once.
        """
        size, count = self.size, len(flagged)
        top = size  # a virtual root above everything, flagged with nothing
        parent = np.where(self.parent >= 0, self.parent, top)
        anchor = parent.copy()
        anchor[flagged] = flagged
        anchor = _resolve(np.append(anchor, top))
        order, bounds = self._levels(flagged)
        chosen = flagged[order]
        position = np.full(size + 1, count)  # of each flagged element in level order
        position[chosen] = np.arange(count)
        above = position[anchor[parent[chosen]]]  # nearest flagged strict ancestor
        own, mine = own[order], position[anchor[at]]
        nearest = np.empty((len(at), own.shape[1]), dtype=np.int64)
        columns = max(_COLUMNS_AT_LEAST, _CELLS_AT_ONCE // max(count, len(at), 1))
        for first in range(0, own.shape[1], columns):
            part = own[:, first : first + columns]
            found = np.empty((count + 1, part.shape[1]), dtype=np.int64)  # row ``count``: none
            found[count] = -1
            for lo, hi in itertools.pairwise(bounds):
                found[lo:hi] = np.where(part[lo:hi], chosen[lo:hi, None], found[above[lo:hi]])
            nearest[:, first : first + part.shape[1]] = found[mine]
        return nearest

    def _levels(self, flagged: np.ndarray) -> tuple[np.ndarray, list[int]]:
        """An order of the ``flagged`` elements (ascending) by how many flagged
        ancestors-or-self each has (an element ``j`` holds ``i`` when ``j <= i < end[j]``),
        shallowest first, and where each level starts and ends in it."""
        ends = np.sort(self.end[flagged])
        depth = np.arange(1, len(flagged) + 1) - np.searchsorted(ends, flagged, side="right")
        return np.argsort(depth, kind="stable"), [0, *np.cumsum(np.bincount(depth)).tolist()]

    def subtree_sums(self, values: np.ndarray) -> np.ndarray:
        """Sum of every row of ``values`` (one column per element) over each element's
        subtree."""
        cum = np.zeros((len(values), self.size + 1))
        np.cumsum(values, axis=1, out=cum[:, 1:])
        return cum[:, self.end] - cum[:, : self.size]


def ancestry_features(blocks: Sequence[Block], elements: Elements | None, counts: np.ndarray,
                      links: np.ndarray, element_words: ElementWords | None = None
                      ) -> FeatureMatrix:
    """The features of the module doc for every block; ``counts`` and ``links`` are the blocks'
    word and anchor-word counts, ``element_words`` the elements' keywords when the caller has them.
    Blocks without a recorded element get zeros."""
    n = len(blocks)
    if not n or elements is None or not len(elements):
        return FeatureMatrix(NAMES, np.zeros((n, len(NAMES))))
    if element_words is None:
        element_words = ElementWords(elements)
    tree = _Tree(elements, element_words)
    element = block_elements(blocks)
    block_depth = np.fromiter(map(attrgetter("depth"), blocks), np.int64, n)
    known = element >= 0
    at = np.where(known, element, 0)
    total = max(float(counts.sum()), 1.0)
    # Words, link words and blocks under every element.
    placed = at[known]
    words, link_words, inner = tree.subtree_sums(np.array(
        [np.bincount(placed, weights=w[known], minlength=tree.size)
         for w in (counts, links, np.ones(n))]))
    k = len(ANCESTRY_KEYWORDS)
    rows = element_words.ancestry_rows()
    is_article = tree.article | rows[:, k][tree.word]
    candidates = np.flatnonzero(is_article)
    if not len(candidates):  # no article element: the main element, if any
        candidates = np.flatnonzero(tree.main)
    article = int(candidates[np.argmax(words[candidates])]) if len(candidates) else -1
    dense_candidates = np.flatnonzero(words - link_words
                                      >= 0.5 * max(float((counts - links).sum()), 1.0))
    dense = int(dense_candidates[np.argmax(tree.depth[dense_candidates])]) \
        if len(dense_candidates) else -1
    groups = tree.sibling_groups()
    siblings = np.bincount(groups)[groups]
    is_card = (siblings >= MIN_CARDS) & (inner > 0)
    marks = np.array([tree.hidden, tree.noscript, is_card, is_article])  # own columns k ...
    hidden, noscript, card_column, article_column = range(k, k + len(marks))
    flagged = np.flatnonzero(rows[:, :k].any(axis=1)[tree.word] | marks.any(axis=0))
    own = np.concatenate([rows[tree.word[flagged], :k], marks[:, flagged].T], axis=1)
    # Most keywords flag no element of a page (a fifth of them do): only the others are
    # resolved (``found``: blocks x used columns, the nearest flagged element or -1).
    used = np.flatnonzero(own.any(axis=0))
    found = tree.nearest(flagged, own[:, used], at)
    none = np.full(n, -1)
    nearest = dict(zip(used.tolist(), found.T))
    out = np.zeros((n, len(NAMES)))
    # 1 / distance to the nearest flagged ancestor-or-self, 0 without one (an infinite distance;
    # worked in place: at the block cap each of these arrays is some 80 MB), written to the
    # keyword, ``anc_hidden`` and ``anc_noscript`` columns
    near = np.searchsorted(used, card_column)  # the used keyword, hidden and noscript columns
    part = np.append(tree.depth.astype(float), -np.inf)[found[:, :near]]
    np.subtract(block_depth[:, None], part, out=part)
    np.maximum(part, 1.0, out=part)
    np.reciprocal(part, out=part)
    out[:, _DISTANCE_AT[used[:near]]] = part
    for column, share in ((hidden, "page_hidden_share"), (noscript, "page_noscript_share")):
        out[:, _AT[share]] = float(counts[nearest.get(column, none) >= 0].sum()) / total

    def inside(index: int) -> np.ndarray:
        if index < 0:
            return np.zeros(n)
        return ((element >= index) & (element < tree.end[index])).astype(float)

    in_article, in_dense = inside(article), inside(dense)
    other = nearest.get(article_column, none)
    card = nearest.get(card_column, none)
    c = np.maximum(card, 0)
    # the card's siblings, words, link density, blocks and group's share, 0 without a card
    # (worked as rows of one array: a few NumPy calls instead of one per column)
    grown = np.log1p(np.array([siblings[c], words[c], inner[c]]))
    group = np.bincount(groups, weights=words)[groups] / total
    cards = np.where(card >= 0, [grown[0], grown[1], link_words[c] / np.maximum(words[c], 1.0),
                                 grown[2], group[c]], 0.0)
    # (the page-wide columns set by broadcasting a row, the others a few at a time)
    out[:, [_AT["art_share"], _AT["art_count"], _AT["dense_share"]]] = [
        words[article] / total if article >= 0 else 0.0, np.log1p(len(candidates)),
        words[dense] / total if dense >= 0 else 0.0]
    out[:, [_AT["art_in"], _AT["art_other"], _AT["dense_in"], _AT["dense_dist"]]] = np.array([
        in_article, (other >= 0) & (other != article) & (in_article == 0), in_dense,
        np.where(in_dense > 0, block_depth - (tree.depth[dense] if dense >= 0 else 0), 0)]).T
    out[:, _AT["card_siblings"] :] = cards.T
    out[~known] = 0.0
    return FeatureMatrix(NAMES, out)
