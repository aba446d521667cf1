"""DOM-context features of blocks: where a block sits in the page, not what its text says.

Tag and ancestor tags, id/class keywords of the four nearest enclosing elements
(``block.info["classes"]``, or the page's element table through
``grist.features.elementwords``), depth, the text mass of the containers around the block,
region aggregates (blocks sharing ``block.region`` or the exact DOM path), title-keyword
overlap (seed 000 Eq. 4's idea, seed 004's TKD) and position. ``with_neighbours`` adds the
previous/next blocks' values of chosen columns (seed 000 §4.1.2: the tree looks at the
previous, current and next block).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cached_property, lru_cache
from itertools import compress, repeat
from math import log1p
from operator import eq, is_not

import numpy as np

from grist.document import Block, Document
from grist.features.chars import (
    ALNUM,
    BAR,
    DECIMAL,
    UNDERSCORE,
    Chars,
    chars_of,
    run_edges,
)
from grist.features.elementwords import CLASS_KEYWORDS, ElementWords, class_string_flags
from grist.features.matrix import FeatureMatrix, side_by_side
from grist.features.numbering import ids_of
from grist.features.tokens import title_keywords
from grist.whitespace import count_tokens

BLOCK_TAGS = ("p", "div", "li", "td", "th", "dd", "dt", "pre", "blockquote", "figcaption",
              "caption", "section", "article", "header", "footer", "nav", "aside", "form",
              "option", "body", "span", "center", "address", "summary", "main")
ANCESTORS = ("article", "main", "section", "nav", "header", "footer", "aside", "form", "table",
             "ul", "ol", "blockquote", "figure", "p", "span", "a", "center", "font", "dl")
INLINE_COUNTS = ("a", "img", "b", "strong", "em", "i", "span", "input", "button", "time", "sup")
CONTAINER_LEVELS = (1, 2, 3, 5)
NAMES = (*(f"ctx_tag_{t}" for t in BLOCK_TAGS), "ctx_tag_other",
         *(f"ctx_in_{a}" for a in ANCESTORS), *(f"ctx_cls_{k}" for k in CLASS_KEYWORDS),
         *(f"ctx_n_{t}" for t in INLINE_COUNTS),
         "ctx_heading", "ctx_ul", "ctx_ol", "ctx_list_depth", "ctx_cell", "ctx_pre",
         "ctx_depth", "ctx_depth_rel", "ctx_region_share", "ctx_region_linkdens",
         "ctx_region_blocks", "ctx_path_share", "ctx_path_blocks", "ctx_position",
         "ctx_words_before", "ctx_words_through", "ctx_title_density", "ctx_title_cover",
         "ctx_ends_sentence", "ctx_pipes", "ctx_commas", "ctx_digits", "ctx_copyright",
         *(f"ctx_up{lv}_{s}" for lv in CONTAINER_LEVELS for s in ("share", "linkdens", "blocks")),
         "ctx_page_words", "ctx_page_blocks")

_END = (".", "!", "?", '"', "\u201d", ":", ")")
_TAG_INDEX = {t: i for i, t in enumerate(BLOCK_TAGS)}
_INLINE_INDEX = {t: i for i, t in enumerate(INLINE_COUNTS)}
_LONG = 1 << 12  # word lengths are capped here in word keys
_NEVER = np.iinfo(np.int64).min  # a path prefix no run asks for
DENSE_RUNS = 1 << 18  # entries of the largest table of run edges ``Runs.bounds`` builds


@lru_cache(maxsize=1 << 16)
def _ancestor_bits(path: str) -> int:
    """Which ANCESTORS tags a path holds above its last element, as bits (bit ``k``:
    ``ANCESTORS[k]``; cached per path)."""
    ancestors = set(path.split(">")[:-1])
    return sum(1 << k for k, a in enumerate(ANCESTORS) if a in ancestors)


def _structure_flags(tags: Sequence[str], which: np.ndarray, paths: Sequence[str]
                     ) -> np.ndarray:
    """One-hot block tag and the ancestor tags present on the block's path; block ``i``'s
    path is ``paths[which[i]]`` (each distinct path looked at once)."""
    n, width = len(tags), len(BLOCK_TAGS) + 1
    out = np.zeros((n, width + len(ANCESTORS)))
    out[np.arange(n), np.fromiter(map(_TAG_INDEX.get, tags, repeat(len(BLOCK_TAGS))),
                                  np.int64, n)] = 1.0
    bits = np.fromiter(map(_ancestor_bits, paths), np.int64, len(paths))[which]
    out[:, width:] = (bits[:, None] >> np.arange(len(ANCESTORS))) & 1
    return out


class Runs:
    """Runs of neighbouring blocks that share path components, from their common prefixes.

    ``prefix[k]`` is the common path prefix (in components) of blocks k and k+1. The run of
    block i at ``want`` components ends at the nearest boundaries k with ``prefix[k] < want``.
    A sparse table of range minima lets every block jump by halving powers of two while the
    range allows it: O(n log n) per query, all in NumPy, the table built once per page. A query
    may stack several ``want`` rows (shape ``(levels, blocks)``) to answer them in one pass.
    """

    def __init__(self, prefix: Sequence[int]) -> None:
        self.prefix = np.asarray(prefix, dtype=np.int64)
        self.n = len(self.prefix) + 1
        self._table: tuple[np.ndarray, np.ndarray] | None = None  # ``_edges``, once built

    @cached_property
    def levels(self) -> list[np.ndarray]:
        """The sparse table, level ``j`` holding the minima of ``2**j`` boundaries."""
        row = self.prefix
        levels = [self._padded(row, 1)]
        step = 1
        while 2 * step < self.n:
            row = np.minimum(row[:-step], row[step:])  # min of prefix[k : k + 2 step]
            step *= 2
            levels.append(self._padded(row, step))
        return levels

    def _padded(self, row: np.ndarray, step: int) -> np.ndarray:
        """Level ``row`` shifted by its ``step`` and padded on both sides with a minimum no
        ``want`` reaches, so that a probe is a plain index: ``pos`` backward, ``pos + step``
        forward."""
        level = np.full(self.n + step, _NEVER)
        level[step : step + len(row)] = row
        return level

    def starts(self, want: Sequence[int] | np.ndarray) -> np.ndarray:
        """First block of each block's run."""
        return self._jump(want, forward=False)

    def ends(self, want: Sequence[int] | np.ndarray) -> np.ndarray:
        """Last block of each block's run."""
        return self._jump(want, forward=True)

    def bounds(self, want: Sequence[int] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``starts`` and ``ends`` of each block's run. When the page is small enough for a
        table of every block's run edges at every ``want`` up to the largest asked for
        (``DENSE_RUNS`` entries), they are read from it: a few passes over the table cost
        less than the jumps on the pages of a few hundred blocks most are, and later queries
        of smaller ``want`` read the same table."""
        wanted = np.asarray(want, dtype=np.int64)
        edges = self._edges(int(wanted.max()) if wanted.size else 0)
        if edges is None:
            return self.starts(wanted), self.ends(wanted)
        index = np.arange(self.n)
        rows = np.maximum(wanted, 0)  # (a want below 0 is one of 0: the whole page)
        return edges[0][rows, index], edges[1][rows, index]

    def _edges(self, top: int) -> tuple[np.ndarray, np.ndarray] | None:
        """Every block's first and last block of its run at each ``want`` 0 .. ``top`` (or
        more: the table is kept and reused), None when that table is too large."""
        if self._table is not None and len(self._table[0]) > top:
            return self._table
        if (top + 1) * self.n > DENSE_RUNS:
            return None
        n = self.n
        index = np.arange(n)
        # cut[w, k]: runs of ``want`` w end at block k (and the next starts at k + 1)
        cut = self.prefix < np.arange(top + 1)[:, None]
        first = np.zeros((top + 1, n), np.int64)
        np.multiply(cut, index[1:], out=first[:, 1:])
        np.maximum.accumulate(first, axis=1, out=first)
        last = np.full((top + 1, n), n - 1, np.int64)
        last[:, :-1] = np.where(cut, index[:-1], n - 1)
        last = np.minimum.accumulate(last[:, ::-1], axis=1)[:, ::-1]
        self._table = first, last
        return self._table

    def _jump(self, want: Sequence[int] | np.ndarray, forward: bool) -> np.ndarray:
        """Move each block by halving powers of two while the boundary minimum allows it."""
        wanted = np.asarray(want, dtype=np.int64)
        pos = np.array(np.broadcast_to(np.arange(self.n), wanted.shape))
        for j in range(len(self.levels) - 1, -1, -1):
            # the range minimum the move crosses: of prefix[pos:] forward (the level read
            # ``step`` further on), prefix[pos - step:] backward
            step = 1 << j
            level = self.levels[j][step:] if forward else self.levels[j]
            ok = level.take(pos) >= wanted
            pos = pos + ok * step if forward else pos - ok * step
        return pos


def _shared_length(a: Sequence[str], b: Sequence[str]) -> int:
    """How many leading components two paths share."""
    k = 0
    for x, y in zip(a, b):
        if x != y:
            break
        k += 1
    return k


def common_prefixes(paths: Sequence[Sequence[str]], which: np.ndarray | None = None
                    ) -> list[int]:
    """Number of leading path components each block shares with the next one. Block ``i``'s
    path is ``paths[i]``, or ``paths[which[i]]`` when ``which`` numbers the blocks' distinct
    ``paths`` (``ids_of``): then neighbours sharing a path (half of them) cost no component
    loop, and each distinct pair of neighbouring paths is compared once.
    """
    if which is None:
        which = np.arange(len(paths))
    size = len(paths)
    a, b = which[:-1], which[1:]
    out = np.array([len(p) for p in paths], dtype=np.int64)[a]
    differ = np.flatnonzero(a != b)
    pairs, inverse = np.unique(a[differ] * size + b[differ], return_inverse=True)
    shared = [_shared_length(paths[p // size], paths[p % size]) for p in pairs.tolist()]
    out[differ] = np.array(shared, dtype=np.int64)[inverse]
    return out.tolist()


def _container_mass(paths: Sequence[Sequence[str]], which: np.ndarray, counts: np.ndarray,
                    links: np.ndarray) -> list[np.ndarray]:
    """Share of page words and link density of the run of blocks under each ancestor level;
    block ``i``'s path components are ``paths[which[i]]``."""
    total = max(float(counts.sum()), 1.0)
    cum = np.concatenate([[0.0], np.cumsum(counts)])
    cum_links = np.concatenate([[0.0], np.cumsum(links)])
    runs = Runs(common_prefixes(paths, which))
    lengths = np.array([len(p) for p in paths], dtype=np.int64)[which]
    want = np.maximum(lengths - np.array(CONTAINER_LEVELS)[:, None], 1)
    lo, hi = runs.bounds(want)
    hi += 1
    words = cum[hi] - cum[lo]
    share, linkdens = words / total, (cum_links[hi] - cum_links[lo]) / np.maximum(words, 1.0)
    columns: list[np.ndarray] = []
    for k in range(len(CONTAINER_LEVELS)):  # per level: share, link density, log1p(blocks)
        columns += [share[k], linkdens[k], np.log1p(hi[k] - lo[k])]
    return columns


def _inline_counts(tag_counts: Sequence[dict[str, int]]) -> np.ndarray:
    """How many of each INLINE_COUNTS tag every block holds (from the blocks' ``tag_counts``;
    most are empty and skipped in C)."""
    rows, columns, counts = [], [], []
    for i, held in compress(enumerate(tag_counts), tag_counts):
        for tag, number in held.items():
            column = _INLINE_INDEX.get(tag)
            if column is not None:
                rows.append(i)
                columns.append(column)
                counts.append(number)
    table = np.zeros((len(tag_counts), len(INLINE_COUNTS)))
    table[rows, columns] = counts
    return table


def _group_sums(which: np.ndarray, *weights: np.ndarray) -> list[np.ndarray]:
    """Per block: the sums of each ``weights`` over the blocks of its group (``which``: the
    group of every block, numbered from 0 without gaps), then the log1p of their number."""
    sizes = np.bincount(which)
    sums = [np.bincount(which, weights=w, minlength=len(sizes))[which] for w in weights]
    return [*sums, np.array([log1p(k) for k in sizes.tolist()])[which]]


def _word_key(first: int, last: int, length: int) -> int:
    """A number from a word's first and last code points and length (equal words, equal keys);
    works on NumPy arrays too."""
    return (length << 42) | (first << 21) | last


def _title_overlap(chars: Chars, title: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per text of ``chars`` (lower-cased texts): regex words (``\\w+``), how many are title
    words (of three or more letters) and the share of the distinct title words it holds.

    Counted on code-point arrays (``\\w`` is ``str.isalnum`` or ``_``); only the words whose
    length and first and last characters match a title word's are sliced out and looked up.
    """
    flags = chars.flags
    first, last = run_edges((flags & (ALNUM | UNDERSCORE)) != 0)  # the regex words
    start, stop = first.astype(np.int64), last.astype(np.int64) + 1  # (keys shift by 42 bits)
    n = len(chars.starts)
    words = chars.count_at(start).astype(float)
    title_words = title_keywords(title, min_length=3)
    if not title_words or not len(start):
        return words, np.zeros(n), np.zeros(n)
    wanted = np.sort([_word_key(ord(w[0]), ord(w[-1]), min(len(w), _LONG))
                      for w in title_words])
    # each word's first and last character, in order (a word ends before the next one starts)
    codes = chars.codes_at(np.column_stack([start, stop - 1]).ravel())
    keys = _word_key(codes[::2], codes[1::2], np.minimum(stop - start, _LONG))
    # the keys among the wanted ones (the nearest wanted key at or after each), without
    # ``np.isin``'s overhead
    maybe = np.flatnonzero(wanted.take(wanted.searchsorted(keys), mode="clip") == keys)
    tokens = list(map(chars.joined.__getitem__,
                      map(slice, start[maybe].tolist(), stop[maybe].tolist())))
    hit = list(map(title_words.__contains__, tokens))
    owners = list(compress(chars.block_of(start[maybe]).tolist(), hit))
    hits = np.bincount(np.array(owners, dtype=np.int64), minlength=n).astype(float)
    distinct = set(zip(owners, compress(tokens, hit)))  # (block, title word) pairs
    cover = np.bincount(np.array([owner for owner, _ in distinct], dtype=np.int64), minlength=n)
    return words, hits, cover / len(title_words)


def _texts_holding(chars: Chars, needles: Sequence[str]) -> np.ndarray:
    """1.0 for every text that holds one of ``needles`` (none holds the ``\\n`` that joins
    the texts), else 0.0: a few searches of the joined texts, not one per text."""
    found = []
    for needle in needles:
        at = chars.joined.find(needle)
        while at >= 0:
            found.append(at)
            at = chars.joined.find(needle, at + 1)
    out = np.zeros(len(chars.starts))
    out[chars.block_of(np.array(found, dtype=np.int64))] = 1.0
    return out


def _floats(function: Callable[..., object], *arguments: Iterable) -> np.ndarray:
    """``function`` of every block's arguments as floats (mapped in C: no Python frame per
    block)."""
    return np.fromiter(map(function, *arguments), float)


def context_features(blocks: Sequence[Block], doc: Document | None = None,
                     counts: np.ndarray | None = None, chars: Chars | None = None,
                     element_words: ElementWords | None = None) -> FeatureMatrix:
    """One row per block: DOM-context, region, title and position features (see module doc).

    ``counts``: the blocks' ``str.split()`` word counts, and ``chars``: their texts'
    ``chars_of`` (``tokenize``'s), when the caller has them already (its lower-cased form,
    ``Chars.lower``, is then shared with the shallow features). ``element_words``: the keywords
    of the page's elements (from the table ``segment_elements`` made with the blocks), which
    give the class keywords without matching each block's ``info["classes"]`` again.
    """
    n = len(blocks)
    if not n:
        return FeatureMatrix(NAMES, np.zeros((0, len(NAMES))))
    texts, paths = [b.text for b in blocks], [b.path for b in blocks]
    if counts is None:
        counts = np.array([count_tokens(t) for t in texts], dtype=float)
    links = np.minimum(np.array([b.anchor_words for b in blocks], dtype=float), counts)
    total = max(float(counts.sum()), 1.0)
    region_words, region_links, region_blocks = _group_sums(
        ids_of([b.region for b in blocks])[0], counts, links)
    path_ids, distinct_paths = ids_of(paths)
    path_words, path_blocks = _group_sums(path_ids, counts)
    depth = np.array([b.depth for b in blocks], dtype=float)
    max_depth = int(depth.max()) or 1
    # the lower-cased texts, also read for "|", digits, "\u00a9" and "copyright"
    lower = (chars_of(texts) if chars is None else chars).lower
    words, hits, cover = _title_overlap(lower, doc.title if doc else "")
    digits, bars = lower.bit_counts((DECIMAL, BAR))
    through = np.cumsum(counts)
    kinds = [b.list_kind for b in blocks]
    flags = [_structure_flags([b.tag for b in blocks], path_ids, distinct_paths),
             class_string_flags([b.info.get("classes", "") for b in blocks])
             if element_words is None else element_words.nearest_context_flags(blocks),
             _inline_counts([b.tag_counts for b in blocks])]
    columns = [
        np.array([b.heading for b in blocks], dtype=float), _floats(eq, kinds, repeat("ul")),
        _floats(eq, kinds, repeat("ol")), np.array([b.list_depth for b in blocks], dtype=float),
        _floats(is_not, [b.cell for b in blocks], repeat(None)),
        np.array([b.preformatted for b in blocks], dtype=float),
        depth, depth / max_depth,
        region_words / total, region_links / np.maximum(region_words, 1.0), region_blocks,
        path_words / total, path_blocks,
        np.arange(n) / max(n - 1, 1), (through - counts) / total, through / total,
        hits / np.maximum(words, 1.0), cover,
        _floats(str.endswith, map(str.rstrip, texts), repeat(_END)),
        bars / np.maximum(counts, 1.0),
        _floats(str.count, texts, repeat(",")) / np.maximum(counts, 1.0),
        digits / np.maximum(_floats(len, texts), 1.0),
        _texts_holding(lower, ("\u00a9", "copyright")),
    ]
    split = [tuple(p.split(">")) if p else () for p in distinct_paths]
    columns += _container_mass(split, path_ids, counts, links)
    columns += [np.full(n, np.log1p(total)), np.full(n, np.log1p(n))]
    return FeatureMatrix(NAMES, np.hstack([*flags, side_by_side(columns)]))


def with_neighbours(matrix: FeatureMatrix, columns: Sequence[str],
                    offsets: Sequence[int] = (-1, 1)) -> FeatureMatrix:
    """Append the values of ``columns`` at the given block offsets (0 beyond the page's edges)."""
    if not offsets:
        return matrix
    return matrix.hstack(neighbour_columns(matrix.select(columns), offsets))


def neighbour_columns(picked: FeatureMatrix, offsets: Sequence[int]) -> FeatureMatrix:
    """The columns of ``picked`` at each block offset (0 beyond the page's edges), named
    ``prev{k}_{name}`` / ``next{k}_{name}``: each offset's columns are written into their
    place in one zeroed matrix (no matrix per offset, then joined)."""
    values, n = picked.values, len(picked)
    width = values.shape[1]
    out = np.zeros((n, width * len(offsets)), values.dtype)
    names: list[str] = []
    for j, off in enumerate(offsets):
        shifted = out[:, j * width : (j + 1) * width]
        if off < 0 and n > -off:
            shifted[-off:] = values[:off]
        elif off > 0 and n > off:
            shifted[:-off] = values[off:]
        label = f"prev{-off}" if off < 0 else f"next{off}"
        names += [f"{label}_{c}" for c in picked.names]
    return FeatureMatrix(tuple(names), out)
