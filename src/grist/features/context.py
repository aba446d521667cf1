"""DOM-context features of blocks: where a block sits in the page, not what its text says.

Tag and ancestor tags, id/class keywords of the enclosing elements (``block.info["classes"]``),
depth, the text mass of the containers around the block, region aggregates (blocks sharing
``block.region`` or the exact DOM path), title-keyword overlap (seed 000 Eq. 4's idea, seed 004's
TKD) and position. ``with_neighbours`` adds the previous/next blocks' values of chosen columns
(seed 000 §4.1.2: the tree looks at the previous, current and next block).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable, Sequence
from functools import lru_cache
from itertools import pairwise
from math import log1p

import numpy as np

from grist.document import Block, Document
from grist.features.chars import (
    ALNUM,
    DECIMAL,
    UNDERSCORE,
    chars_of,
    run_ends,
    run_starts,
)
from grist.features.keywords import Keywords
from grist.features.matrix import FeatureMatrix, side_by_side
from grist.features.tokens import title_keywords
from grist.whitespace import count_tokens

BLOCK_TAGS = ("p", "div", "li", "td", "th", "dd", "dt", "pre", "blockquote", "figcaption",
              "caption", "section", "article", "header", "footer", "nav", "aside", "form",
              "option", "body", "span", "center", "address", "summary", "main")
ANCESTORS = ("article", "main", "section", "nav", "header", "footer", "aside", "form", "table",
             "ul", "ol", "blockquote", "figure", "p", "span", "a", "center", "font", "dl")
# id/class keywords; a keyword matches a token that contains it (short ones must equal it).
CLASS_KEYWORDS = ("nav", "menu", "footer", "header", "comment", "share", "social", "related",
                  "sidebar", "side", "widget", "ad", "ads", "advert", "sponsor", "promo", "banner",
                  "breadcrumb", "tag", "meta", "byline", "author", "date", "time", "caption",
                  "article", "content", "post", "body", "entry", "text", "story", "main", "hidden",
                  "copyright", "login", "subscribe", "newsletter", "popular", "recommend", "link",
                  "title", "headline", "summary", "teaser", "card", "list", "item", "button", "btn",
                  "modal", "cookie", "top", "bottom", "col", "wrap", "container", "page", "blog",
                  "prose", "rich", "intro", "lead", "desc", "detail", "foot", "head", "column",
                  "right", "left", "search", "more", "next", "prev", "print", "email", "rss",
                  "widget", "reply", "user", "avatar", "rating", "price", "cart", "product")
CLASS_KEYWORDS = tuple(dict.fromkeys(CLASS_KEYWORDS))
_KEYWORDS = Keywords(CLASS_KEYWORDS)
INLINE_COUNTS = ("a", "img", "b", "strong", "em", "i", "span", "input", "button", "time", "sup")
CONTAINER_LEVELS = (1, 2, 3, 5)

_TOKEN = re.compile(r"[a-z0-9]+")
_END = (".", "!", "?", '"', "\u201d", ":", ")")
_TAG_INDEX = {t: i for i, t in enumerate(BLOCK_TAGS)}
_INLINE_INDEX = {t: i for i, t in enumerate(INLINE_COUNTS)}
_LONG = 1 << 12  # word lengths are capped here in word keys
_NEVER = np.iinfo(np.int64).min  # a path prefix no run asks for


@lru_cache(maxsize=1 << 16)
def _class_bits(classes: str) -> int:
    """Keyword bits of an id/class string (cached: pages of a site repeat the same strings;
    tokens, cached in ``_KEYWORDS``, recur across sites)."""
    return _KEYWORDS.bits(_TOKEN.findall(classes.lower()))


def _class_flags(classes: list[str]) -> np.ndarray:
    """Keyword flags of id/class strings, unpacked together (one NumPy call for the lot)."""
    return _KEYWORDS.rows([_class_bits(c) for c in classes]).astype(float)


@lru_cache(maxsize=1 << 16)
def _structure_row(key: tuple[str, str]) -> tuple[float, ...]:
    """One-hot block tag and the ancestor tags present on the path (cached per tag and path)."""
    tag, path = key
    row = [0.0] * (len(BLOCK_TAGS) + 1)
    row[_TAG_INDEX.get(tag, len(BLOCK_TAGS))] = 1.0
    ancestors = set(path.split(">")[:-1])
    return (*row, *(1.0 if a in ancestors else 0.0 for a in ANCESTORS))


def _structure_flags(keys: list[tuple[str, str]]) -> np.ndarray:
    """``_structure_row`` of every (tag, path) key as one array."""
    return np.array([_structure_row(key) for key in keys])


class Runs:
    """Runs of neighbouring blocks that share path components, from their common prefixes.

    ``prefix[k]`` is the common path prefix (in components) of blocks k and k+1. The run of
    block i at ``want`` components ends at the nearest boundaries k with ``prefix[k] < want``.
    A sparse table of range minima lets every block jump by halving powers of two while the
    range allows it: O(n log n) per query, all in NumPy, the table built once per page. A query
    may stack several ``want`` rows (shape ``(levels, blocks)``) to answer them in one pass.
    """

    def __init__(self, prefix: Sequence[int]) -> None:
        table = [np.asarray(prefix, dtype=np.int64)]
        step = 1
        while 2 * step <= len(table[0]):
            last = table[-1]
            table.append(np.minimum(last[:-step], last[step:]))  # min of prefix[k : k + 2 step]
            step *= 2
        self.n = len(table[0]) + 1
        # Level j shifted by its step and padded on both sides with a minimum no ``want``
        # reaches, so that a probe is a plain index: ``pos`` backward, ``pos + step`` forward.
        self.levels = [np.concatenate([np.full(1 << j, _NEVER), row,
                                       np.full(self.n - len(row), _NEVER)])
                       for j, row in enumerate(table)]

    def starts(self, want: Sequence[int] | np.ndarray) -> np.ndarray:
        """First block of each block's run."""
        return self._jump(want, forward=False)

    def ends(self, want: Sequence[int] | np.ndarray) -> np.ndarray:
        """Last block of each block's run."""
        return self._jump(want, forward=True)

    def _jump(self, want: Sequence[int] | np.ndarray, forward: bool) -> np.ndarray:
        """Move each block by halving powers of two while the boundary minimum allows it."""
        wanted = np.asarray(want, dtype=np.int64)
        pos = np.array(np.broadcast_to(np.arange(self.n), wanted.shape))
        for j in range(len(self.levels) - 1, -1, -1):
            # the range minimum the move crosses: of prefix[pos:] forward, prefix[pos - step:]
            # backward
            step = 1 << j
            level = self.levels[j]
            ok = (level.take(pos + step) if forward else level.take(pos)) >= wanted
            pos = pos + ok * step if forward else pos - ok * step
        return pos


def common_prefixes(paths: Sequence[Sequence[str]]) -> list[int]:
    """Number of leading path components each block shares with the next one.

    Neighbours with equal paths (half of them) and pairs seen before cost no component loop.
    """
    out = []
    known: dict[tuple[tuple[str, ...], tuple[str, ...]], int] = {}
    for a, b in pairwise(paths):
        if a == b:
            out.append(len(a))
            continue
        key = (tuple(a), tuple(b))
        k = known.get(key)
        if k is None:
            k = 0
            for x, y in zip(a, b):
                if x != y:
                    break
                k += 1
            known[key] = k
        out.append(k)
    return out


def _container_mass(paths: Sequence[Sequence[str]], counts: np.ndarray,
                    links: np.ndarray) -> list[np.ndarray]:
    """Share of page words and link density of the run of blocks under each ancestor level."""
    total = max(float(counts.sum()), 1.0)
    cum = np.concatenate([[0.0], np.cumsum(counts)])
    cum_links = np.concatenate([[0.0], np.cumsum(links)])
    runs = Runs(common_prefixes(paths))
    lengths = np.array([len(p) for p in paths], dtype=np.int64)
    want = np.maximum(lengths - np.array(CONTAINER_LEVELS)[:, None], 1)
    lo, hi = runs.starts(want), runs.ends(want) + 1
    words = cum[hi] - cum[lo]
    share, linkdens = words / total, (cum_links[hi] - cum_links[lo]) / np.maximum(words, 1.0)
    columns: list[np.ndarray] = []
    for k in range(len(CONTAINER_LEVELS)):  # per level: share, link density, log1p(blocks)
        columns += [share[k], linkdens[k], np.log1p(hi[k] - lo[k])]
    return columns


def _split_paths(paths: Sequence[str]) -> list[tuple[str, ...]]:
    """Path components of every block; one tuple per distinct path (equal ones compare fast)."""
    split: dict[str, tuple[str, ...]] = {}
    for path in dict.fromkeys(paths):
        split[path] = tuple(path.split(">")) if path else ()
    return [split[p] for p in paths]


def _rows(keys: Sequence[Hashable], make: Callable[[list], np.ndarray]) -> np.ndarray:
    """The rows ``make`` gives for the distinct keys (one row each, in order, made in one call:
    a page of an unseen site brings hundreds of new keys), spread back over ``keys``."""
    index: dict[Hashable, int] = {}
    which = [index.setdefault(key, len(index)) for key in keys]
    return make(list(index))[which]


def _inline_counts(blocks: Sequence[Block]) -> np.ndarray:
    """How many of each INLINE_COUNTS tag every block holds."""
    rows, columns, counts = [], [], []
    for i, block in enumerate(blocks):
        for tag, count in block.tag_counts.items():
            column = _INLINE_INDEX.get(tag)
            if column is not None:
                rows.append(i)
                columns.append(column)
                counts.append(count)
    table = np.zeros((len(blocks), len(INLINE_COUNTS)))
    table[rows, columns] = counts
    return table


def _group_sums(keys: Sequence[Hashable], *weights: np.ndarray) -> list[np.ndarray]:
    """Per block: the sums of each ``weights`` over the blocks sharing its key, then the
    log1p of their number."""
    index: dict[Hashable, int] = {}
    which = np.array([index.setdefault(key, len(index)) for key in keys])
    sizes = np.bincount(which)
    sums = [np.bincount(which, weights=w, minlength=len(sizes))[which] for w in weights]
    return [*sums, np.array([log1p(k) for k in sizes.tolist()])[which]]


def _word_key(first: int, last: int, length: int) -> int:
    """A number from a word's first and last code points and length (equal words, equal keys);
    works on NumPy arrays too."""
    return (length << 42) | (first << 21) | last


def _title_overlap(lowered: Sequence[str], title: str
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per lower-cased text: regex words (``\\w+``), how many are title words (of three or
    more letters) and the share of the distinct title words it holds; also its decimal digits.

    Counted on code-point arrays (``\\w`` is ``str.isalnum`` or ``_``, ``\\d`` is
    ``str.isdecimal``; lower-casing keeps digits); only the words whose length and first and
    last characters match a title word's are sliced out and looked up.
    """
    chars = chars_of(lowered)
    flags = chars.flags
    word = (flags & (ALNUM | UNDERSCORE)) != 0
    start, stop = run_starts(word), run_ends(word) + 1
    del word
    n = len(lowered)
    words = chars.count_at(start).astype(float)
    digits = chars.per_block((flags & DECIMAL) != 0)
    hits, cover = np.zeros(n), np.zeros(n)
    title_words = title_keywords(title, min_length=3)
    if not title_words or not len(start):
        return words, hits, cover, digits
    wanted = np.array(sorted({_word_key(ord(w[0]), ord(w[-1]), min(len(w), _LONG))
                              for w in title_words}), dtype=np.int64)
    keys = _word_key(chars.codes_at(start), chars.codes_at(stop - 1),
                     np.minimum(stop - start, _LONG).astype(np.int64))
    place = np.minimum(np.searchsorted(wanted, keys), len(wanted) - 1)
    maybe = np.flatnonzero(wanted[place] == keys)
    joined, owners = chars.joined, chars.block_of(start[maybe]).tolist()
    found: set[tuple[int, str]] = set()
    for a, b, owner in zip(start[maybe].tolist(), stop[maybe].tolist(), owners, strict=True):
        token = joined[a:b]
        if token in title_words:
            hits[owner] += 1
            found.add((owner, token))
    for owner, _ in found:
        cover[owner] += 1
    return words, hits, cover / len(title_words), digits


def context_features(blocks: Sequence[Block], doc: Document | None = None,
                     counts: np.ndarray | None = None) -> FeatureMatrix:
    """One row per block: DOM-context, region, title and position features (see module doc).

    ``counts``: the blocks' ``str.split()`` word counts, when the caller has them already.
    """
    n = len(blocks)
    names = [f"ctx_tag_{t}" for t in BLOCK_TAGS] + ["ctx_tag_other"]
    names += [f"ctx_in_{a}" for a in ANCESTORS] + [f"ctx_cls_{k}" for k in CLASS_KEYWORDS]
    names += [f"ctx_n_{t}" for t in INLINE_COUNTS]
    names += ["ctx_heading", "ctx_ul", "ctx_ol", "ctx_list_depth", "ctx_cell", "ctx_pre",
              "ctx_depth", "ctx_depth_rel", "ctx_region_share", "ctx_region_linkdens",
              "ctx_region_blocks", "ctx_path_share", "ctx_path_blocks", "ctx_position",
              "ctx_words_before", "ctx_words_through", "ctx_title_density", "ctx_title_cover",
              "ctx_ends_sentence", "ctx_pipes", "ctx_commas", "ctx_digits", "ctx_copyright"]
    names += [f"ctx_up{lv}_{s}" for lv in CONTAINER_LEVELS for s in ("share", "linkdens", "blocks")]
    names += ["ctx_page_words", "ctx_page_blocks"]
    if not n:
        return FeatureMatrix(tuple(names), np.zeros((0, len(names))))
    texts = [b.text for b in blocks]
    lowered = [t.lower() for t in texts]
    paths = _split_paths([b.path for b in blocks])
    if counts is None:
        counts = np.array([count_tokens(t) for t in texts], dtype=float)
    links = np.minimum(np.array([b.anchor_words for b in blocks], dtype=float), counts)
    total = max(float(counts.sum()), 1.0)
    region_words, region_links, region_blocks = _group_sums([b.region for b in blocks],
                                                            counts, links)
    path_words, path_blocks = _group_sums([b.path for b in blocks], counts)
    depth = np.array([b.depth for b in blocks], dtype=float)
    max_depth = int(depth.max()) or 1
    words, hits, cover, digits = _title_overlap(lowered, doc.title if doc else "")
    lengths = np.array([len(t) for t in texts], dtype=float)
    through = np.cumsum(counts)

    def column(values: Iterable[float]) -> np.ndarray:
        return np.fromiter(values, float, n)

    flags = [_rows([(b.tag, b.path) for b in blocks], _structure_flags),
             _rows([b.info.get("classes", "") for b in blocks], _class_flags),
             _inline_counts(blocks)]
    columns = [
        column(b.heading for b in blocks), column(b.list_kind == "ul" for b in blocks),
        column(b.list_kind == "ol" for b in blocks), column(b.list_depth for b in blocks),
        column(b.cell is not None for b in blocks), column(b.preformatted for b in blocks),
        depth, depth / max_depth,
        region_words / total, region_links / np.maximum(region_words, 1.0), region_blocks,
        path_words / total, path_blocks,
        np.arange(n) / max(n - 1, 1), (through - counts) / total, through / total,
        hits / np.maximum(words, 1.0), cover,
        column(t.rstrip().endswith(_END) for t in texts),
        column(t.count("|") for t in texts) / np.maximum(counts, 1.0),
        column(t.count(",") for t in texts) / np.maximum(counts, 1.0),
        digits / np.maximum(lengths, 1.0),
        column("\u00a9" in t or "copyright" in lt for t, lt in zip(texts, lowered, strict=True)),
    ]
    columns += _container_mass(paths, counts, links)
    columns += [np.full(n, np.log1p(total)), np.full(n, np.log1p(n))]
    return FeatureMatrix(tuple(names), np.hstack([*flags, side_by_side(columns)]))


def with_neighbours(matrix: FeatureMatrix, columns: Sequence[str],
                    offsets: Sequence[int] = (-1, 1)) -> FeatureMatrix:
    """Append the values of ``columns`` at the given block offsets (0 beyond the page's edges)."""
    if not offsets:
        return matrix
    return matrix.hstack(neighbour_columns(matrix.select(columns), offsets))


def neighbour_columns(picked: FeatureMatrix, offsets: Sequence[int]) -> FeatureMatrix:
    """The columns of ``picked`` at each block offset (0 beyond the page's edges), named
    ``prev{k}_{name}`` / ``next{k}_{name}``."""
    values, n = picked.values, len(picked)
    names: list[str] = []
    parts: list[np.ndarray] = []
    for off in offsets:
        shifted = np.zeros_like(values)
        if off < 0 and n > -off:
            shifted[-off:] = values[:off]
        elif off > 0 and n > off:
            shifted[:-off] = values[off:]
        parts.append(shifted)
        label = f"prev{-off}" if off < 0 else f"next{off}"
        names += [f"{label}_{c}" for c in picked.names]
    return FeatureMatrix(tuple(names), np.hstack(parts))
