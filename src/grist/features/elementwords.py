"""The id/class keywords of a page's elements, looked up once per page for every feature that
reads them.

Two feature families read the words of the elements above a block (``grist.segment.elements``):
``context`` the keywords of its four nearest elements (``ctx_cls_*``), ``ancestry`` the nearest
ancestor holding each of its own keywords (``anc_*``). Both vocabularies are matched in one
pass over each distinct words string of the page, and a block's four-nearest flags are the
union of its elements' flags. Matching each block's joined string of four elements again
(``class_string_flags``, for blocks without an element table) cost as much as the ancestry
flags on pages of unseen sites.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from itertools import repeat
from operator import attrgetter, itemgetter, methodcaller

import numpy as np

from grist.document import Block
from grist.features.keywords import Keywords
from grist.features.numbering import ids_of
from grist.segment.elements import NEAREST_CLASSES, Elements

# Keywords whose presence anywhere above a block says what it is (body, furniture or noise).
ANCESTRY_KEYWORDS = (
    "nav", "menu", "breadcrumb", "pagination", "toolbar", "footer", "copyright", "legal",
    "header", "masthead", "comment", "reply", "discussion", "disqus", "respond", "related",
    "recommend", "popular", "trending", "more", "tease", "card", "tile", "rail", "outbrain",
    "taboola", "widget", "sidebar", "aside", "ad", "ads", "advert", "sponsor", "promo", "banner",
    "newsletter", "subscribe", "signup", "cookie", "consent", "donate", "paywall", "share",
    "social", "modal", "popup", "dialog", "article", "content", "post", "body", "entry", "story",
    "main", "text", "prose", "rich", "markdown", "headline", "title", "heading", "dek",
    "standfirst", "subtitle", "subhead", "summary", "excerpt", "lede", "intro", "description",
    "byline", "author", "date", "time", "published", "updated", "dateline", "meta", "bio",
    "caption", "credit", "figure", "media", "photo", "image", "gallery", "list", "item",
    "product", "price", "cart", "review", "rating", "search", "login", "user", "avatar", "tag",
    "label", "btn", "thread", "message", "forum", "question", "answer", "faq", "accordion",
    "collapse", "tab",
)
# Keywords of the nearest elements; a keyword matches a token that contains it (short ones must
# equal it, or be its plural).
CLASS_KEYWORDS = tuple(dict.fromkeys((
    "nav", "menu", "footer", "header", "comment", "share", "social", "related", "sidebar", "side",
    "widget", "ad", "ads", "advert", "sponsor", "promo", "banner", "breadcrumb", "tag", "meta",
    "byline", "author", "date", "time", "caption", "article", "content", "post", "body", "entry",
    "text", "story", "main", "hidden", "copyright", "login", "subscribe", "newsletter", "popular",
    "recommend", "link", "title", "headline", "summary", "teaser", "card", "list", "item",
    "button", "btn", "modal", "cookie", "top", "bottom", "col", "wrap", "container", "page",
    "blog", "prose", "rich", "intro", "lead", "desc", "detail", "foot", "head", "column", "right",
    "left", "search", "more", "next", "prev", "print", "email", "rss", "widget", "reply", "user",
    "avatar", "rating", "price", "cart", "product",
)))
# Only for the ancestry keywords, ``nav`` also matches a token it starts (``navbar1``).
ANCESTRY_STARTS = ("nav",)

# Bits of a words string: the ancestry keywords, then the context keywords (both vocabularies in
# one ``Keywords``; the ``starts`` apply to the first ``nav``, the ancestry one), then whether it
# names schema.org's articleBody.
_BOTH = Keywords(ANCESTRY_KEYWORDS + CLASS_KEYWORDS, starts=ANCESTRY_STARTS)
_CONTEXT_AT = len(ANCESTRY_KEYWORDS)
ARTICLE_BODY_AT = _CONTEXT_AT + len(CLASS_KEYWORDS)
_WIDTH = ARTICLE_BODY_AT + 1
_WORDS = (_WIDTH + 63) // 64  # 64-bit words per string
_ARTICLE_BODY = re.compile(r"article[-_ ]?body")  # schema.org itemprop="articleBody"
_TOKEN = re.compile(r"[a-z0-9]+")
_ELEMENT = methodcaller("get", "element", -1)  # a block's element index in its ``info``


def block_elements(blocks: Sequence[Block]) -> np.ndarray:
    """Each block's innermost recorded element (``Block.info["element"]``; -1: none)."""
    # (read by maps in C: no Python frame per block)
    return np.fromiter(map(_ELEMENT, map(attrgetter("info"), blocks)), np.int64, len(blocks))


@lru_cache(maxsize=1 << 16)
def _word_bits(words: str) -> int:
    """The bits of an element's words (lower-case runs of letters and digits) as laid out
    above."""
    lowered = words.lower()
    bits = _BOTH.bits(_TOKEN.findall(lowered))
    if _ARTICLE_BODY.search(lowered):
        bits |= 1 << ARTICLE_BODY_AT
    return bits


class ElementWords:
    """The keyword flags of a page's recorded elements, one row per distinct words string."""

    def __init__(self, elements: Elements) -> None:
        rows, size = elements.rows, len(elements)
        # (read by maps in C, counts known: no Python frame per element)
        self.parent = np.fromiter(map(itemgetter(0), rows), np.int64, size)
        self.depth = np.fromiter(map(itemgetter(1), rows), np.int64, size)
        self.word, self.distinct = ids_of(list(map(itemgetter(3), rows)))
        self.packed = _packed(self.distinct)

    def ancestry_rows(self) -> np.ndarray:
        """Bool rows (``distinct`` x (ancestry keywords + articleBody)) of the ancestry
        keywords, then whether the string names articleBody; an element's row is its ``word``."""
        rows = _unpack(self.packed)
        return np.concatenate([rows[:, :_CONTEXT_AT], rows[:, ARTICLE_BODY_AT:]], axis=1)

    def nearest_context_flags(self, blocks: Sequence[Block]) -> np.ndarray:
        """Bool rows (blocks x ``CLASS_KEYWORDS``): the context keywords of the words of each
        block's ``NEAREST_CLASSES`` innermost elements, as ``class_string_flags`` reads them
        from ``Block.info["classes"]``. The recorded elements among them are those on the chain up
        from the block's element with a DOM depth of at least ``Block.depth - NEAREST_CLASSES``
        (the plain inline elements between are not recorded and have no words)."""
        at = block_elements(blocks)
        if not len(self.word):
            return np.zeros((len(at), len(CLASS_KEYWORDS)), bool)
        reach = np.fromiter(map(attrgetter("depth"), blocks), np.int64, len(blocks))
        reach -= NEAREST_CLASSES
        union = np.zeros((len(at), _WORDS), np.uint64)
        for _ in range(NEAREST_CLASSES):  # (-1, no element, reads the last row, masked)
            within = (at >= 0) & (self.depth[at] >= reach)
            union |= self.packed[self.word[at]] * within[:, None]
            at = np.where(within, self.parent[at], -1)
        return _unpack(union)[:, _CONTEXT_AT:ARTICLE_BODY_AT]


def class_string_flags(classes: Sequence[str]) -> np.ndarray:
    """Bool rows (strings x ``CLASS_KEYWORDS``): the context keywords of id/class strings such
    as ``Block.info["classes"]``, for blocks without an element table (each distinct string
    matched once)."""
    which, distinct = ids_of(classes)
    return _unpack(_packed(distinct))[which, _CONTEXT_AT:ARTICLE_BODY_AT]


def _packed(strings: Sequence[str]) -> np.ndarray:
    """The bits of each words string as rows of 64-bit words (so that the union over four
    elements is a few ORs of short rows)."""
    packed = b"".join(map(int.to_bytes, map(_word_bits, strings), repeat(8 * _WORDS),
                          repeat("little")))
    return np.frombuffer(packed, np.uint64).reshape(len(strings), _WORDS)


def _unpack(packed: np.ndarray) -> np.ndarray:
    """Bool rows of the ``_WIDTH`` bits of each row of 64-bit words."""
    bits = np.unpackbits(packed.view(np.uint8), axis=1, bitorder="little")
    return bits[:, :_WIDTH].astype(bool)
