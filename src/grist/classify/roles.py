"""Block roles for training: what each block is, from the gold alignment plus the page's structure.

The shared datasets disagree on the article's furniture: the older ones (CleanEval, Dragnet,
L3S-GN1, Readability, CleanPortalEval) count the headline, bylines and captions as main text,
the current ones (modern-dev, wcxb-dev) do not. Labels that only say "in the gold or not" make
the same headline content on one page and boilerplate on the next. Roles name the furniture
whatever the gold says, so a model learns the body and the furniture apart and the convention
becomes an output choice (``grist.document.ROLES``):

- ``title``: the article's headline — the heading or title-matching block closest before the
  first paragraph of the body (an ``h1``, a block holding most of the ``<title>``'s words, or a
  short block under a ``headline``/``title`` class).
- ``subtitle``: a dek or standfirst — a block between the title and the body that is not a
  byline or caption, or a short block under a ``dek``/``standfirst``/``subtitle``... class.
- ``byline``: a short block near the title with a ``<time>``, an author/date class or
  ``itemprop``, or starting with "By" / "Updated" / "Published".
- ``caption``: a short block of the article in a ``figcaption``/``figure`` or under a
  ``caption``/``credit`` class (photo and gallery captions, credits).
- ``comment``: aligned with Dragnet's ``gold_comments``, or under a ``comment``/``reply``/
  ``disqus`` class, in the gold or not (CleanEval counts readers' comments as main text,
  Dragnet and L3S-GN1 do not) — unless most of the page's gold is under such classes: then the
  page is a thread and its posts are the body.
- ``body``: every other gold block.
- The rest, outside the gold: ``navigation``, ``footer``, ``promo``, ``related`` after the
  nearest ancestor class word of their kind (or the ``nav``/``footer`` element), else ``other``.

Every rule reads columns of the stage-1 feature matrix (``grist.features.auto``), so the same
derivation names the roles of dropped blocks at extraction time (``structural_roles``). "Nearest
ancestor" stops below ``body``: a word on ``html`` or ``body`` describes the page, not a block.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache, reduce

import numpy as np

from grist.document import ROLES
from grist.features.matrix import FeatureMatrix

ROLE_INDEX = {role: i for i, role in enumerate(ROLES)}
FURNITURE = ("title", "subtitle", "byline", "caption")
# Ancestor keywords (grist.features.ancestry) of each kind of noise, nearest one wins.
NOISE_WORDS = {
    "navigation": ("nav", "menu", "breadcrumb", "pagination", "toolbar"),
    "footer": ("footer", "copyright", "legal"),
    "promo": ("ad", "ads", "advert", "sponsor", "promo", "banner", "newsletter", "subscribe",
              "signup", "cookie", "consent", "donate", "paywall", "share", "social", "modal",
              "popup", "dialog"),
    "related": ("related", "recommend", "popular", "trending", "more", "tease", "card", "tile",
                "rail", "outbrain", "taboola", "sidebar", "aside", "widget"),
    "comment": ("comment", "reply", "discussion", "disqus", "respond"),
}
TITLE_WORDS = ("headline", "title")
SUBTITLE_WORDS = ("dek", "standfirst", "subtitle", "subhead")
BYLINE_WORDS = ("byline", "author", "date", "time", "published", "updated", "dateline")
CAPTION_WORDS = ("caption", "credit")
MEDIA_WORDS = ("photo", "image", "gallery", "media", "figure")
BYLINE_START = re.compile(  # English, then German, French, Spanish, Italian, Portuguese, Dutch
    r"^(?:by|von|par|por|updated|published|posted|written by|last updated?|staff|reporter"
    r"|aktualisiert|veröffentlicht|geschrieben von|publié|mis à jour|actualizado|publicado"
    r"|escrito por|aggiornato|pubblicato|atualizado|bijgewerkt|gepubliceerd)\b", re.I)
# "By", "von", "par", "por" open a byline before a name; before a lower-case word or a number
# they open a sentence ("By default, ...", "Par exemple, ...", "By 2030, ...") unless the line is
# as short as "by admin" or "by the Associated Press"
NAME_PREPOSITIONS = frozenset({"by", "von", "par", "por"})
SHORT_BYLINE_WORDS = 6
# Furniture word groups ignored on a page whose body paragraphs mostly carry them too
# (``_forget_shared_words``)
SHARED_FURNITURE = ("subtitle", "byline", "media")
NEAR_CLOSENESS = 0.34  # the closeness of a word on the block's element, parent or grandparent
HEADER_ZONE = 25  # blocks before the body's first paragraph where a title may stand
MAX_FURNITURE_WORDS = 60


# (the noise groups first, in NOISE_WORDS order: ``_noise_roles`` reads them as the first rows)
GROUPS = {**NOISE_WORDS, "title": TITLE_WORDS, "subtitle": SUBTITLE_WORDS,
          "byline": BYLINE_WORDS, "caption": CAPTION_WORDS, "media": MEDIA_WORDS}
COLUMNS = ("num_words", "link_density", "date_tokens", "ctx_cell", "ctx_pre", "ctx_list_depth",
           "ctx_heading", "ctx_title_cover", "ctx_title_density", "ctx_n_time",
           "ctx_tag_figcaption", "ctx_in_figure", "ctx_in_blockquote", "ctx_ends_sentence",
           "ctx_tag_nav", "ctx_in_nav", "ctx_tag_footer", "ctx_in_footer", "ctx_copyright",
           "ctx_depth")


@lru_cache(maxsize=8)
def _layout(names: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Where the columns the rules read sit in a feature matrix: the plain columns, and every
    group's ``anc_`` columns, one row per group, short rows padded with their own first column
    (a repeat leaves a maximum unchanged)."""
    at = {name: i for i, name in enumerate(names)}
    width = max(map(len, GROUPS.values()))
    padded = [[at[f"anc_{w}"] for w in words] for words in GROUPS.values()]
    return (np.array([at[c] for c in COLUMNS]),
            np.array([row + row[:1] * (width - len(row)) for row in padded]))


_PLAIN = {c: i for i, c in enumerate(COLUMNS)}
_GROUP = {g: i for i, g in enumerate(GROUPS)}
_SHARED_ROWS = np.array([_GROUP[g] for g in SHARED_FURNITURE])
_NOISE_CODES = np.array([ROLE_INDEX[k] for k in NOISE_WORDS])


class _Evidence:
    """The columns the role rules read, taken out of the feature matrix once (one row per
    column, so each is contiguous), and the nearest ancestor of every word group."""

    def __init__(self, matrix: FeatureMatrix) -> None:
        plain, padded = _layout(matrix.names)
        columns = matrix.values.T  # (gathering its rows copies them contiguous)
        self.plain = columns[plain]
        # one max over the padded (group, column) rows: ``np.maximum.reduceat`` over the groups
        # takes twice as long on a page's few blocks
        self.groups = columns[padded].max(axis=1)
        # A word on ``html`` or ``body`` (DOM distance depth - 1 or more) describes the page, not
        # the block: Gawker's ``<html class="feature_newcomments">`` made every block a comment.
        # Closeness is 1 / distance: distance >= depth - 1 is closeness * (depth - 1.5) < 1, with
        # room for float32 rounding at any depth (body's child, depth - 2, gives more than 1).
        self.groups[self.groups * (self["ctx_depth"] - 1.5) < 1.0] = 0.0

    def __getitem__(self, name: str) -> np.ndarray:
        return self.plain[_PLAIN[name]]

    def near(self, *groups: str) -> np.ndarray:
        """Closeness (1 / DOM distance, 0 when absent) of the nearest ancestor with any word of
        the groups."""
        # (pairwise maxima: cheaper than gathering the rows and reducing them, for a few)
        return reduce(np.maximum, [self.groups[_GROUP[g]] for g in groups])


def structural_roles(matrix: FeatureMatrix) -> np.ndarray:
    """The role of every block judged as noise: navigation, footer, promo, related or comment
    after the nearest ancestor class word of that kind (the ``nav``/``footer`` elements count
    as such words), else ``other``. Role indices into ``ROLES``."""
    return _noise_roles(_Evidence(matrix))


def _noise_roles(ev: _Evidence) -> np.ndarray:
    kinds = list(NOISE_WORDS)
    near = ev.groups[: len(kinds)].copy()  # kinds x blocks (the noise groups come first)
    for kind, tag in (("navigation", "nav"), ("footer", "footer")):
        row = near[kinds.index(kind)]
        np.maximum(row, ev[f"ctx_tag_{tag}"], out=row)
        np.maximum(row, 0.5 * ev[f"ctx_in_{tag}"], out=row)
    footer = near[kinds.index("footer")]
    np.maximum(footer, ev["ctx_copyright"], out=footer)
    codes = _NOISE_CODES[near.argmax(axis=0)]
    return np.where(near.max(axis=0) > 0, codes, ROLE_INDEX["other"]).astype(np.int8)


def _paragraphs(ev: _Evidence, gold: np.ndarray) -> np.ndarray:
    """Gold blocks that read as paragraphs of the body: ten words or more, not a heading, not
    marked as a dek, byline or caption by its classes."""
    marked = ev.near("subtitle", "byline", "caption") >= 0.5
    return (gold & (ev["num_words"] >= 10) & (ev["ctx_heading"] == 0) & ~marked
            & (ev["ctx_tag_figcaption"] == 0))


def _opens_byline(text: str, words: float) -> bool:
    """Whether the block starts the way bylines do (``BYLINE_START``); after "by" and its
    translations the next word must not be lower-case or a number, except on a line of a few
    words."""
    found = BYLINE_START.match(text)
    if found is None:
        return False
    if words <= SHORT_BYLINE_WORDS or found.group(0).lower() not in NAME_PREPOSITIONS:
        return True
    following = text[found.end():].split(None, 1)
    return not following or not (following[0][0].islower() or following[0][0].isdigit())


def _forget_shared_words(ev: _Evidence, gold: np.ndarray) -> None:
    """Forget the dek, byline and media words on a page where they sit above most of the body's
    paragraph words (closeness 0.34 or more): a word the body carries too says nothing about
    one block. A Sphinx manual's ``<section id="multimedia-services">`` holds "time" and
    "media" and made its opening paragraph a byline, else a caption. Caption words are left
    alone: on a photo gallery the blocks the model keeps are the captions themselves."""
    body = np.flatnonzero(gold & (ev["num_words"] >= 10) & (ev["ctx_heading"] == 0))
    if not len(body):
        return
    words = ev["num_words"][body]
    # (the groups' rows at once: a page's few blocks make each NumPy call cost more than its work)
    carried = (ev.groups[_SHARED_ROWS][:, body] >= NEAR_CLOSENESS) @ words
    ev.groups[_SHARED_ROWS[carried > 0.5 * words.sum()]] = 0.0


def derive_roles(matrix: FeatureMatrix, texts: Sequence[str], gold: np.ndarray,
                 comments: np.ndarray | None = None) -> np.ndarray:
    """The role of every block (indices into ``ROLES``) from its gold label, the blocks aligned
    with a comments gold (``comments``) and the structure read from the features."""
    n = len(texts)
    gold = np.asarray(gold, dtype=bool)
    ev = _Evidence(matrix)
    roles = np.where(gold, ROLE_INDEX["body"], _noise_roles(ev)).astype(np.int8)
    if not n:
        return roles
    if comments is not None:
        roles[np.asarray(comments, dtype=bool) & ~gold] = ROLE_INDEX["comment"]
    # Readers' comments under an article are comments whether the gold holds them or not; on a
    # thread (most of the gold under comment words) the posts are the body.
    threaded = gold & (ev.near("comment") > 0)
    words = ev["num_words"]
    if 0 < words[threaded].sum() < 0.5 * words[gold].sum():
        roles[threaded] = ROLE_INDEX["comment"]
        gold = gold & ~threaded
    _forget_shared_words(ev, gold)
    paragraphs = np.flatnonzero(_paragraphs(ev, gold))
    if not len(paragraphs):
        paragraphs = np.flatnonzero(gold)
    if not len(paragraphs):
        return roles
    first, last = int(paragraphs[0]), int(paragraphs[-1])
    links = ev["link_density"]
    short = words <= MAX_FURNITURE_WORDS
    index = np.arange(n)
    noise = ev.near("navigation", "related", "comment") >= 0.2
    in_zone = (index >= first - HEADER_ZONE) & (index <= last) & ~noise
    plain = ((ev["ctx_cell"] == 0) & (ev["ctx_pre"] == 0)
             & (ev["ctx_list_depth"] == 0))
    heading = ev["ctx_heading"]
    # (masks read by several rules computed once: each is a NumPy call on a page's few blocks)
    few, unheaded, unlinked = words <= 30, heading == 0, links < 0.5
    zone_few = in_zone & few
    title_match = (ev["ctx_title_cover"] >= 0.6) & (ev["ctx_title_density"] >= 0.6)
    title_class = (ev.near("title") >= 0.5) & few
    title_score = 2.0 * (heading == 1) + 2.0 * title_match + title_class + 0.5 * (heading > 0)
    title_at = np.flatnonzero(zone_few & unlinked & (index <= first) & (title_score >= 2))
    title = int(title_at[np.argmax(title_score[title_at] * 1000 + title_at)]) \
        if len(title_at) else -1
    top = title if title >= 0 else first
    starts = np.zeros(n, bool)
    candidates = np.flatnonzero(zone_few).tolist()
    starts[candidates] = [_opens_byline(texts[i], words[i]) for i in candidates]
    dated = (ev["date_tokens"] >= 1) & (words <= 12)
    byline_evidence = ((ev["ctx_n_time"] > 0) | (ev.near("byline") >= NEAR_CLOSENESS)
                       | starts | dated)
    header = (index >= top - 3) & (index <= first + 3)
    not_title = index != title
    byline = zone_few & header & byline_evidence & not_title
    plain_text = plain & unheaded
    figure = (ev["ctx_tag_figcaption"] > 0) | (
        (ev["ctx_in_figure"] > 0) & plain_text & (ev["ctx_in_blockquote"] == 0))
    media = (ev.near("media") >= 0.5) & few & plain_text
    caption_evidence = figure | (ev.near("caption") >= NEAR_CLOSENESS) | media
    caption = in_zone & short & caption_evidence & unlinked & ~byline & not_title
    after_title = (index > title) & (index < first) & (index <= title + 2) if title >= 0 \
        else np.zeros(n, bool)
    sentence = (heading >= 2) | (ev["ctx_ends_sentence"] > 0) | (words >= 12)
    subtitle_class = (ev.near("subtitle") >= 0.5) & header & (index < first)
    subtitle = (in_zone & ~byline & ~caption & (words >= 4) & (words <= 80) & (links < 0.3)
                & ((after_title & sentence & plain) | subtitle_class) & not_title)
    roles[subtitle] = ROLE_INDEX["subtitle"]
    roles[caption] = ROLE_INDEX["caption"]
    roles[byline] = ROLE_INDEX["byline"]
    if title >= 0:
        roles[title] = ROLE_INDEX["title"]
    return roles


def role_names(codes: np.ndarray) -> list[str]:
    """Role names of role indices."""
    return [ROLES[c] for c in codes.tolist()]
