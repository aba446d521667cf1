"""DOM-context features of blocks: where a block sits in the page, not what its text says.

Tag and ancestor tags, id/class keywords of the enclosing elements (``block.info["classes"]``),
depth, the text mass of the containers around the block, region aggregates (blocks sharing
``block.region`` or the exact DOM path), title-keyword overlap (seed 000 Eq. 4's idea, seed 004's
TKD) and position. ``with_neighbours`` adds the previous/next blocks' values of chosen columns
(seed 000 §4.1.2: the tree looks at the previous, current and next block).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from itertools import pairwise
from math import log1p

import numpy as np

from grist.document import Block, Document
from grist.features.matrix import FeatureMatrix

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
INLINE_COUNTS = ("a", "img", "b", "strong", "em", "i", "span", "input", "button", "time", "sup")
CONTAINER_LEVELS = (1, 2, 3, 5)

_TOKEN = re.compile(r"[a-z0-9]+")
_WORD = re.compile(r"\w+")
_DIGIT = re.compile(r"\d")
_END = (".", "!", "?", '"', "\u201d", ":", ")")
_TAG_INDEX = {t: i for i, t in enumerate(BLOCK_TAGS)}


@lru_cache(maxsize=1 << 16)
def _class_flags(classes: str) -> tuple[float, ...]:
    """Keyword flags of an id/class string (cached: pages of a site repeat the same strings)."""
    lowered = classes.lower()
    tokens = set(_TOKEN.findall(lowered))
    return tuple(
        1.0 if (key in tokens or key + "s" in tokens if len(key) <= 3 else key in lowered) else 0.0
        for key in CLASS_KEYWORDS
    )


@lru_cache(maxsize=1 << 16)
def _structure_flags(tag: str, path: str) -> tuple[float, ...]:
    """One-hot block tag and the ancestor tags present on the path (cached per tag and path)."""
    row = [0.0] * (len(BLOCK_TAGS) + 1)
    row[_TAG_INDEX.get(tag, len(BLOCK_TAGS))] = 1.0
    ancestors = set(path.split(">")[:-1])
    return (*row, *(1.0 if a in ancestors else 0.0 for a in ANCESTORS))


class Runs:
    """Runs of neighbouring blocks that share path components, from their common prefixes.

    ``prefix[k]`` is the common path prefix (in components) of blocks k and k+1. The run of
    block i at ``want`` components ends at the nearest boundaries k with ``prefix[k] < want``.
    A sparse table of range minima lets every block jump by halving powers of two while the
    range allows it: O(n log n) per query, all in NumPy, the table built once per page.
    """

    def __init__(self, prefix: Sequence[int]) -> None:
        table = [np.asarray(prefix, dtype=np.int64)]
        step = 1
        while 2 * step <= len(table[0]):
            last = table[-1]
            table.append(np.minimum(last[:-step], last[step:]))  # min of prefix[k : k + 2 step]
            step *= 2
        self.table = table
        self.n = len(table[0]) + 1

    def starts(self, want: Sequence[int] | np.ndarray) -> np.ndarray:
        """First block of each block's run."""
        wanted = np.asarray(want, dtype=np.int64)
        pos = np.arange(self.n)
        for j in range(len(self.table) - 1, -1, -1):
            target = pos - (1 << j)
            ok = target >= 0
            ok[ok] = self.table[j][target[ok]] >= wanted[ok]
            pos = np.where(ok, target, pos)
        return pos

    def ends(self, want: Sequence[int] | np.ndarray) -> np.ndarray:
        """Last block of each block's run."""
        wanted = np.asarray(want, dtype=np.int64)
        pos = np.arange(self.n)
        for j in range(len(self.table) - 1, -1, -1):
            row = self.table[j]
            ok = pos < len(row)
            ok[ok] = row[pos[ok]] >= wanted[ok]
            pos = np.where(ok, pos + (1 << j), pos)
        return pos


def common_prefixes(paths: list[list[str]]) -> list[int]:
    """Number of leading path components each block shares with the next one."""
    out = []
    for a, b in pairwise(paths):
        k = 0
        for x, y in zip(a, b):
            if x != y:
                break
            k += 1
        out.append(k)
    return out


def _container_mass(blocks: Sequence[Block], paths: list[list[str]], counts: np.ndarray,
                    links: np.ndarray) -> tuple[list[str], list[np.ndarray]]:
    """Share of page words and link density of the run of blocks under each ancestor level."""
    total = max(float(counts.sum()), 1.0)
    cum = np.concatenate([[0.0], np.cumsum(counts)])
    cum_links = np.concatenate([[0.0], np.cumsum(links)])
    runs = Runs(common_prefixes(paths))
    names: list[str] = []
    columns: list[np.ndarray] = []
    for level in CONTAINER_LEVELS:
        want = [max(len(p) - level, 1) for p in paths]
        lo, hi = runs.starts(want), runs.ends(want) + 1
        words = cum[hi] - cum[lo]
        names += [f"ctx_up{level}_share", f"ctx_up{level}_linkdens", f"ctx_up{level}_blocks"]
        columns += [words / total, (cum_links[hi] - cum_links[lo]) / np.maximum(words, 1.0),
                    np.log1p(hi - lo)]
    return names, columns


def context_features(blocks: Sequence[Block], doc: Document | None = None) -> FeatureMatrix:
    """One row per block: DOM-context, region, title and position features (see module doc)."""
    n = len(blocks)
    title_words = {w for w in _WORD.findall((doc.title if doc else "").lower()) if len(w) > 2}
    paths = [b.path.split(">") if b.path else [] for b in blocks]
    counts = np.array([len(b.text.split()) for b in blocks], dtype=float)
    links = np.array([min(b.anchor_words, c) for b, c in zip(blocks, counts, strict=True)])
    total = max(float(counts.sum()), 1.0)
    region_words: dict[int, float] = {}
    region_links: dict[int, float] = {}
    region_blocks: dict[int, int] = {}
    path_words: dict[str, float] = {}
    path_blocks: dict[str, int] = {}
    for b, c, a in zip(blocks, counts, links, strict=True):
        region_words[b.region] = region_words.get(b.region, 0.0) + c
        region_links[b.region] = region_links.get(b.region, 0.0) + a
        region_blocks[b.region] = region_blocks.get(b.region, 0) + 1
        path_words[b.path] = path_words.get(b.path, 0.0) + c
        path_blocks[b.path] = path_blocks.get(b.path, 0) + 1
    max_depth = max((b.depth for b in blocks), default=1) or 1
    rows = []
    before = 0.0
    for i, (b, c) in enumerate(zip(blocks, counts, strict=True)):
        text = b.text
        lowered = _WORD.findall(text.lower())
        in_title = sum(1 for w in lowered if w in title_words)
        tc = b.tag_counts
        row = [*_structure_flags(b.tag, b.path), *_class_flags(b.info.get("classes", ""))]
        row += [float(tc.get(t, 0)) for t in INLINE_COUNTS]
        row += [
            float(b.heading), float(b.list_kind == "ul"), float(b.list_kind == "ol"),
            float(b.list_depth), float(b.cell is not None), float(b.preformatted),
            float(b.depth), b.depth / max_depth,
            region_words[b.region] / total, region_links[b.region] / max(region_words[b.region], 1),
            log1p(region_blocks[b.region]),
            path_words[b.path] / total, log1p(path_blocks[b.path]),
            i / max(n - 1, 1), before / total, (before + c) / total,
            in_title / max(len(lowered), 1),
            len({w for w in lowered if w in title_words}) / max(len(title_words), 1),
            float(text.rstrip().endswith(_END)), text.count("|") / max(c, 1),
            text.count(",") / max(c, 1), len(_DIGIT.findall(text)) / max(len(text), 1),
            float("\u00a9" in text or "copyright" in text.lower()),
        ]
        before += c
        rows.append(row)
    names = [f"ctx_tag_{t}" for t in BLOCK_TAGS] + ["ctx_tag_other"]
    names += [f"ctx_in_{a}" for a in ANCESTORS] + [f"ctx_cls_{k}" for k in CLASS_KEYWORDS]
    names += [f"ctx_n_{t}" for t in INLINE_COUNTS]
    names += ["ctx_heading", "ctx_ul", "ctx_ol", "ctx_list_depth", "ctx_cell", "ctx_pre",
              "ctx_depth", "ctx_depth_rel", "ctx_region_share", "ctx_region_linkdens",
              "ctx_region_blocks", "ctx_path_share", "ctx_path_blocks", "ctx_position",
              "ctx_words_before", "ctx_words_through", "ctx_title_density", "ctx_title_cover",
              "ctx_ends_sentence", "ctx_pipes", "ctx_commas", "ctx_digits", "ctx_copyright"]
    values = np.array(rows, dtype=float).reshape(n, len(names))
    if n:
        extra_names, extra = _container_mass(blocks, paths, counts, links)
        page = [np.full(n, np.log1p(total)), np.full(n, np.log1p(n))]
        values = np.column_stack([values, *extra, *page])
        names += extra_names + ["ctx_page_words", "ctx_page_blocks"]
    else:
        names += [f"ctx_up{lv}_{s}" for lv in CONTAINER_LEVELS
                  for s in ("share", "linkdens", "blocks")] + ["ctx_page_words", "ctx_page_blocks"]
        values = np.zeros((0, len(names)))
    return FeatureMatrix(tuple(names), values)


def with_neighbours(matrix: FeatureMatrix, columns: Sequence[str],
                    offsets: Sequence[int] = (-1, 1)) -> FeatureMatrix:
    """Append the values of ``columns`` at the given block offsets (0 beyond the page's edges)."""
    picked = matrix.values[:, [matrix.names.index(c) for c in columns]]
    n = len(matrix)
    names: list[str] = []
    parts: list[np.ndarray] = []
    for off in offsets:
        shifted = np.zeros_like(picked)
        if off < 0 and n > -off:
            shifted[-off:] = picked[:off]
        elif off > 0 and n > off:
            shifted[:-off] = picked[off:]
        parts.append(shifted)
        label = f"prev{-off}" if off < 0 else f"next{off}"
        names += [f"{label}_{c}" for c in columns]
    if not parts:
        return matrix
    return matrix.hstack(FeatureMatrix(tuple(names), np.hstack(parts)))
