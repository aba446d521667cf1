"""Split a parsed page into atomic text blocks, as seed 000 §4.1.1 describes.

Non-content elements (``script``, ``style``, ``select``, comments, ...) are dropped. A block ends at
every block-level tag (the paper's list: BLOCKQUOTE ... UL) and at a run of two or more ``<br>``.
Inline tags, ``<a>`` above all, do not split a block, so link density can be computed.
The traversal is iterative: no recursion limit on deeply nested pages.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from grist.document import Block, Document
from grist.errors import GristError
from grist.segment.elements import Elements, describe

# Seed 000 §4.1.1, verbatim.
PAPER_BLOCK_TAGS = frozenset((
    "blockquote", "caption", "center", "col", "colgroup", "dd", "div", "dl", "dt", "fieldset",
    "form", "h1", "h2", "h3", "h4", "h5", "h6", "legend", "li", "optgroup", "option", "p", "pre",
    "table", "td", "textarea", "tfoot", "th", "thead", "tr", "ul",
))
# HTML5 elements that browsers also render as blocks; the paper predates them.
HTML5_BLOCK_TAGS = PAPER_BLOCK_TAGS | frozenset((
    "ol", "article", "section", "header", "footer", "nav", "aside", "main", "figure", "figcaption",
    "address", "hr", "body", "details", "summary", "dialog", "menu", "tbody", "html",
))
# Elements whose whole subtree carries no visible main text.
DEFAULT_SKIP_TAGS = frozenset((
    "head", "script", "style", "select", "template", "svg", "math", "canvas", "iframe", "object",
    "embed", "frameset", "frame", "audio", "video", "map", "datalist",
))
# Containers that open a new region (seed 001's DIV/TD blocks, generalised to HTML5 sections).
REGION_TAGS = frozenset((
    "div", "td", "th", "table", "section", "article", "aside", "nav", "header", "footer", "main",
    "form",
))

_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_TEXT = "-text"


@dataclass(frozen=True)
class SegmentConfig:
    """Which tags split blocks and which are dropped; ``min_br_run`` BRs in a row split a block."""

    block_tags: frozenset[str] = HTML5_BLOCK_TAGS
    skip_tags: frozenset[str] = DEFAULT_SKIP_TAGS
    min_br_run: int = 2
    keep_classes: bool = True


@dataclass
class _Open:
    """What is known about the enclosing elements while walking the tree."""

    path: list[str] = field(default_factory=list)
    classes: list[str] = field(default_factory=list)
    block_tags: list[str] = field(default_factory=list)
    regions: list[int] = field(default_factory=lambda: [0])
    lists: list[str] = field(default_factory=list)
    tables: list[list[int]] = field(default_factory=list)  # [table id, row, column]
    anchors: int = 0
    pre: int = 0
    headings: list[int] = field(default_factory=list)
    elements: list[int] = field(default_factory=lambda: [-1])  # open recorded elements


class _BlockBuilder:
    """Accumulates the text of the current block and emits Blocks."""

    def __init__(self, config: SegmentConfig) -> None:
        self.config = config
        self.blocks: list[Block] = []
        self.open = _Open()
        self.region_count = 0
        self.table_count = 0
        self._reset()

    def _reset(self) -> None:
        self.pieces: list[str] = []
        self.anchor_chars = 0
        self.anchor_words = 0
        self.tag_counts: dict[str, int] = {}
        self.brs = 0
        self.start: Block | None = None

    def _begin(self) -> Block:
        """Record where the block starts: the context of its first visible text."""
        o = self.open
        table = o.tables[-1] if o.tables else None
        return Block(
            text="",
            tag=o.block_tags[-1] if o.block_tags else "body",
            path=">".join(o.path),
            depth=len(o.path),
            index=len(self.blocks),
            region=o.regions[-1],
            heading=o.headings[-1] if o.headings else 0,
            list_kind=o.lists[-1] if o.lists else "",
            list_depth=len(o.lists),
            cell=(table[0], table[1], table[2]) if table and table[2] >= 0 else None,
            preformatted=o.pre > 0,
            info={"classes": " ".join(filter(None, reversed(o.classes[-4:]))),
                  "element": o.elements[-1]}
            if self.config.keep_classes
            else {},
        )

    def text(self, raw: str) -> None:
        if not raw:
            return
        visible = not raw.isspace()
        if self.start is None:
            if not visible:
                return
            self.start = self._begin()
        if visible:
            self.brs = 0
        self.pieces.append(raw)
        if self.open.anchors and visible:
            self.anchor_chars += len(raw.strip())
            self.anchor_words += len(raw.split())

    def line_break(self) -> None:
        self.brs += 1
        if self.brs >= self.config.min_br_run:
            self.flush()
            self.brs = self.config.min_br_run  # stay in the run until visible text comes
        elif self.start is not None:
            self.pieces.append("\n" if self.open.pre else " ")

    def flush(self) -> None:
        """End the current block; keep it if it has visible text. A run of BRs survives."""
        block = self.start
        if block is None:
            return
        raw = "".join(self.pieces)
        if block.preformatted:
            text = raw.strip("\n").rstrip()
        else:
            text = " ".join(raw.split())  # collapse whitespace runs (faster than a regex)
        if text:
            block.text = text
            block.anchor_chars = min(self.anchor_chars, len(text))
            block.anchor_words = self.anchor_words
            block.tag_counts = self.tag_counts
            self.blocks.append(block)
        brs = self.brs
        self._reset()
        self.brs = brs


# Inline tags whose id/class rarely says anything about the block: not read, to save time.
_PLAIN_INLINE = frozenset((
    "a", "b", "i", "em", "strong", "u", "s", "small", "sup", "sub", "font", "abbr", "code", "img",
    "wbr", "time",
))
# Tags whose entering or leaving changes the context recorded on blocks.
_CONTEXT_TAGS = frozenset(
    ["a", "pre", "ul", "ol", "table", "tr", "td", "th", *_HEADINGS, *REGION_TAGS]
)


def _enter_context(builder: _BlockBuilder, o: _Open, tag: str) -> None:
    """Update the open-element context on entering ``tag`` (one of _CONTEXT_TAGS)."""
    if tag == "a":
        o.anchors += 1
    elif tag == "pre":
        o.pre += 1
    elif tag in _HEADINGS:
        o.headings.append(_HEADINGS[tag])
    elif tag == "ul" or tag == "ol":
        o.lists.append(tag)
    elif tag == "table":
        builder.table_count += 1
        o.tables.append([builder.table_count, -1, -1])
    elif tag == "tr" and o.tables:
        o.tables[-1][1] += 1
        o.tables[-1][2] = -1
    elif (tag == "td" or tag == "th") and o.tables:
        o.tables[-1][2] += 1
    if tag in REGION_TAGS:
        builder.region_count += 1
        o.regions.append(builder.region_count)


def _leave_context(o: _Open, tag: str) -> None:
    """Undo ``_enter_context`` on leaving ``tag``."""
    if tag == "a":
        o.anchors -= 1
    elif tag == "pre":
        o.pre -= 1
    elif tag in _HEADINGS:
        o.headings.pop()
    elif tag == "ul" or tag == "ol":
        o.lists.pop()
    elif tag == "table":
        o.tables.pop()
    if tag in REGION_TAGS:
        o.regions.pop()


def segment(doc: Document, config: SegmentConfig | None = None) -> list[Block]:
    """Return the page's atomic text blocks in document order (requires ``doc.dom``)."""
    return segment_elements(doc, config)[0]


def segment_elements(doc: Document, config: SegmentConfig | None = None
                     ) -> tuple[list[Block], Elements]:
    """The page's blocks and the table of its elements (``grist.segment.elements``; empty
    unless ``config.keep_classes``)."""
    if doc.dom is None:
        raise GristError("segment() needs a parsed document; call grist.html.parse first")
    config = config or SegmentConfig()
    builder = _BlockBuilder(config)
    o = builder.open
    block_tags, skip_tags = config.block_tags, config.skip_tags
    keep_classes = config.keep_classes
    root = doc.dom.root
    table = Elements()
    if root is None:
        return [], table
    # Iterative pre/post-order walk: a node on the stack is entered, a str (its tag) is left.
    stack: list = [root]
    pop, push = stack.pop, stack.append
    path, classes, open_blocks = o.path, o.classes, o.block_tags
    opened, rows, ends = o.elements, table.rows, table.end
    while stack:
        node = pop()
        if node.__class__ is str:  # leaving an element
            if node in block_tags:
                if builder.start is not None:  # (flush() would do nothing)
                    builder.flush()
                open_blocks.pop()
            if node in _CONTEXT_TAGS:
                _leave_context(o, node)
            path.pop()
            if keep_classes:
                classes.pop()
                if node not in _PLAIN_INLINE:
                    ends[opened.pop()] = len(rows)
            continue
        tag = node.tag
        if tag == _TEXT:
            raw = node.text_content
            if raw and (builder.start is not None or not raw.isspace()):  # else text() skips it
                builder.text(raw)
            continue
        if tag is None or tag[0] in "-_!" or tag in skip_tags:  # comments, <?pi?>, dropped
            continue
        if tag == "br":
            builder.line_break()
            continue
        if tag in block_tags:
            if builder.start is not None:
                builder.flush()
            open_blocks.append(tag)
        elif builder.start is not None:
            counts = builder.tag_counts
            counts[tag] = counts.get(tag, 0) + 1
        path.append(tag)
        if keep_classes:
            if tag in _PLAIN_INLINE:
                classes.append("")
            else:
                attrs = node.attributes
                words, hidden = describe(attrs) if attrs else ("", False)
                classes.append(words)
                opened.append(len(rows))
                rows.append((opened[-2], len(path) - 1, tag, words, hidden))
                ends.append(0)
        if tag in _CONTEXT_TAGS:
            _enter_context(builder, o, tag)
        push(tag)
        child = node.last_child
        while child is not None:
            push(child)
            child = child.prev
    builder.flush()
    return builder.blocks, table
