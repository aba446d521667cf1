"""The one data model every stage reads and writes: a Document and its Blocks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:  # pragma: no cover
    from selectolax.lexbor import LexborHTMLParser

CONTENT = "content"
BOILERPLATE = "boilerplate"
# What a block is on its page. ``body`` is the main text; title, subtitle (dek), byline and caption
# surround it; comment, related (teasers), navigation, promo (ads, newsletter, cookie, appeals) and
# footer (legal, copyright) are the rest of the page; ``other`` is anything else.
ROLES = ("body", "title", "subtitle", "byline", "caption", "comment", "related", "navigation",
         "promo", "footer", "other")
# The roles reported beside the body, by the ``with_*`` option that puts them into the text.
ON_REQUEST = {"with_title": ("title", "subtitle"), "with_byline": ("byline",),
              "with_captions": ("caption",), "with_comments": ("comment",)}
REPORTED_ROLES = frozenset(role for roles in ON_REQUEST.values() for role in roles)


@dataclass(frozen=True)
class RawPage:
    """A page as it arrives, before decoding: what every source yields and every runner consumes.

    content:      the page's bytes (decoded as a browser would) or an already decoded str.
    url:          where the page lives, when known (used for links, hosts, site and stream models).
    input:        how outputs and error records name the page: a path, a URL, ``<stdin>``, a record id.
    http_charset: the charset of the HTTP ``Content-Type`` header, when the page was fetched.
    date:         when the page was fetched or published (ISO 8601), when known.
    """

    content: bytes | str
    url: str | None = None
    input: str = ""
    http_charset: str | None = None
    date: str | None = None


@dataclass
class Document:
    """A decoded page: its source text, where it came from, and (once parsed) its DOM.

    ``dom`` is filled by ``grist.html.parse.parse_document``; methods that work on the raw
    source (``lineblock``) never parse it. Stages read a Document; what they find travels in
    their return values, never on the Document.
    """

    html: str
    url: str | None = None
    encoding: str | None = None
    title: str = ""
    dom: LexborHTMLParser | None = None

    def __repr__(self) -> str:
        """The page's facts and size; its source is ``html``."""
        return (f"Document(url={self.url!r}, encoding={self.encoding!r}, title={self.title!r}, "
                f"html=<{len(self.html):,} characters>, parsed={self.dom is not None})")


class Inline(NamedTuple):
    """Inline markup inside a block's text: ``text[start:end]`` is a ``link`` (``url`` is its
    href as written), ``em``, ``strong``, ``code``, ``del``, ``sup`` or ``sub``; an ``image`` is
    a point (start == end) with its ``url`` (src), ``alt`` and ``title``, the href of the link
    around it (``link``: a link holding only an image has no span, as it holds no character),
    whether the page has whitespace right before and right after it (``spaced_before``,
    ``spaced_after``: the text holds one space for both, at ``start``, so it cannot say on which
    side it was), and whether it stood alone in a block without text just before this block
    (``alone``: recorded at the block's start, or after the page's last block at its end; the
    renderers write it beside a kept block on a line of its own: ``grist.render.placement``'s
    ``written_blocks``); a ``br`` is a point where the line breaks (the space at ``start``,
    when text follows, is where the ``<br>`` stood)."""

    start: int
    end: int
    kind: str
    url: str = ""
    alt: str = ""
    spaced_before: bool = False
    spaced_after: bool = False
    title: str = ""
    link: str = ""
    alone: bool = False


@dataclass(slots=True)
class TableInfo:
    """What the segmenter saw of one ``<table>``: its size (rows, widest row), header markup
    (``th`` cells; ``thead``/``tfoot``/``colgroup``/``col``; a ``caption``), whether it holds
    another table, and its ``role``/``summary`` attributes. Data-table tests read it."""

    id: int
    rows: int = 0
    cols: int = 0
    th: int = 0
    head: bool = False
    caption: bool = False
    nested: bool = False
    role: str = ""
    summary: bool = False


@dataclass(slots=True)
class Block:
    """One atomic text block of a page, in page order.

    text:         the block's visible text, whitespace collapsed (``pre`` keeps its own).
    tag:          the block-level tag that closed the block (``p``, ``h2``, ``li``, ``td``, ...).
    path:         DOM path of the enclosing elements, e.g. ``html>body>div.main>p``.
    depth:        number of elements enclosing the block.
    anchor_words: tokens of the block inside ``<a>`` elements (for link density).
    anchor_chars: characters of the block inside ``<a>`` elements.
    tag_counts:   tags opened inside the block (``a``, ``b``, ``img``, ``br`` ...).
    index:        position of the block in the page (0-based).
    region:       id of the nearest enclosing DIV/TD/TABLE-like container (seed 001 blocks).
    heading:      heading level 1-6, 0 when the block is not a heading.
    list_kind:    ``ul``/``ol`` when the block is a list item, else ``""``; ``list_depth`` nests.
    list_item:    (list, item, number) in a list: which list and ``li`` of the page (ordinals
                  from 1; item 0 outside every ``li`` of it) and the number the item shows
                  (``start``, ``value``, ``reversed``); the blocks of one ``li`` share it.
    definition:   (list, entry) in a definition list: which ``dl`` of the page and which ``dt``
                  or ``dd`` of it (ordinals from 1; entry 0 outside every ``dt`` and ``dd`` of
                  it), so the blocks of one term or definition share it and two lists or two
                  definitions side by side stay apart (their paths can be the same).
    cell:         (table id, row, column, rows, columns) when the block is a table cell, else
                  None: the column as a browser lays the table out (after ``colspan`` and
                  ``rowspan``), and the rows and columns the cell spans there.
    preformatted: the block is inside ``pre``/``code`` whose whitespace must be kept.
    code_language: the language a ``pre`` block's markup names (``class="language-python"``).
    quote_depth:  how many ``blockquote`` elements enclose the block.
    marks:        what the segmenter recorded of the inline markup (links, images, emphasis),
                  read through ``inline``.
    table:        the table a cell belongs to (shared by its cells), when ``cell`` is set.
    label:        ``content`` or ``boilerplate`` once classified, else None.
    reason:       why the label was given (the rule that fired, the model's explanation).
    score:        a method's confidence or importance score, when it has one.
    role:         what the block is on its page (``body``, ``title``, ``byline``, ``caption``,
                  ``navigation``, ...; see ``grist.document.ROLES``), when the method knows it.
    decided_by:   what set the label: ``page`` (the method) or a cross-page model's ``source``.
    info:         method-specific details (e.g. jusText's context-free class).
    """

    text: str
    tag: str = "p"
    path: str = ""
    depth: int = 0
    anchor_words: int = 0
    anchor_chars: int = 0
    tag_counts: dict[str, int] = field(default_factory=dict)
    index: int = 0
    region: int = 0
    heading: int = 0
    list_kind: str = ""
    list_depth: int = 0
    list_item: tuple[int, int, int] | None = None
    definition: tuple[int, int] | None = None
    cell: tuple[int, int, int, int, int] | None = None
    preformatted: bool = False
    code_language: str = ""
    quote_depth: int = 0
    marks: tuple[list[str], list[Any]] | None = field(default=None, repr=False, compare=False)
    table: TableInfo | None = None
    label: str | None = None
    reason: str | None = None
    score: float | None = None
    role: str | None = None
    decided_by: str = "page"
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def is_content(self) -> bool:
        return self.label == CONTENT

    @property
    def inline(self) -> tuple[Inline, ...]:
        """Links, images and emphasis inside ``text`` as spans (computed when asked); none in
        code, whose text is as the page spaces it (the marks a code block holds are the images
        that stood alone beside it, for the renderers to place)."""
        if self.marks is None or self.preformatted:
            return ()
        from grist.segment.inline import collapse

        return collapse(*self.marks)[1]
