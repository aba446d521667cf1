"""Split a parsed page into atomic text blocks, as seed 000 §4.1.1 describes.

Non-content elements (``script``, ``style``, ``select``, comments, ...) are dropped. A block ends at
every block-level tag (the paper's list: BLOCKQUOTE ... UL) and at a run of two or more ``<br>``.
Inline tags, ``<a>`` above all, do not split a block, so link density can be computed.
The traversal is iterative: no recursion limit on deeply nested pages.

Each block records in ``info["text_nodes"]`` the ordinals of its first and last visible text node
among the text nodes the walk visits (document order, skipped subtrees not counted), so a tool
walking the same parse (the service's inspector) can find the block on the page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from grist.document import Block, Document
from grist.errors import GristError, LimitExceededError
from grist.limits import Budget
from grist.segment.context import ENTER, LEAVE
from grist.segment.elements import Elements, describe
from grist.segment.inline import CLOSE, OPEN, Mark
from grist.whitespace import collapse_spaces, count_tokens

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
_TEXT = "-text"
# A block's path names its innermost PATH_DEPTH elements; deeper ancestors become one "…", so
# each block costs every later stage O(1), not O(depth), on pages nested thousands deep.
PATH_DEPTH = 128
_CHECK_EVERY = 4096  # nodes walked between two looks at the time budget


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
    tables: list[list] = field(default_factory=list)  # [table id, row, column, TableInfo]
    anchors: int = 0
    pre: int = 0
    quotes: int = 0
    code_languages: list[str] = field(default_factory=list)
    headings: list[int] = field(default_factory=list)
    elements: list[int] = field(default_factory=lambda: [-1])  # open recorded elements


class _BlockBuilder:
    """Accumulates the text of the current block and emits Blocks."""

    def __init__(self, config: SegmentConfig, max_blocks: int | None = None) -> None:
        self.config = config
        self.max_blocks = max_blocks
        self.blocks: list[Block] = []
        self.open = _Open()
        self.region_count = 0
        self.table_count = 0
        self.open_marks: list[tuple[str, Any]] = []  # inline elements open now: (kind, node)
        self.link: Any = None  # the link open now
        self._reset()

    def _reset(self) -> None:
        self.pieces: list[str] = []
        # inline elements still open continue into the next block
        self.marks: list[Mark] = []
        if self.open_marks or self.link is not None:
            self._carry_marks()
        self.anchor_chars = 0
        self.anchor_words = 0
        self.tag_counts: dict[str, int] = {}
        self.brs = 0
        self.start: Block | None = None
        self.first_node = self.last_node = -1

    def _begin(self) -> Block:
        """Record where the block starts: the context of its first visible text."""
        o = self.open
        table = o.tables[-1] if o.tables else None
        path = o.path if len(o.path) <= PATH_DEPTH else ["\u2026", *o.path[-PATH_DEPTH:]]
        return Block(
            text="",
            tag=o.block_tags[-1] if o.block_tags else "body",
            path=">".join(path),
            depth=len(o.path),
            index=len(self.blocks),
            region=o.regions[-1],
            heading=o.headings[-1] if o.headings else 0,
            list_kind=o.lists[-1] if o.lists else "",
            list_depth=len(o.lists),
            cell=(table[0], table[1], table[2]) if table and table[2] >= 0 else None,
            table=table[3] if table and table[2] >= 0 else None,
            preformatted=o.pre > 0,
            code_language=o.code_languages[-1] if o.pre and o.code_languages else "",
            quote_depth=o.quotes,
            info={"classes": " ".join(filter(None, reversed(o.classes[-4:]))),
                  "element": o.elements[-1]}
            if self.config.keep_classes
            else {},
        )

    def text(self, raw: str, node: int = -1) -> None:
        """Add the text node ``raw`` (the walk's ``node``-th text node) to the current block."""
        if not raw:
            return
        visible = not raw.isspace()
        if self.start is None:
            if not visible:
                return
            self.start = self._begin()
            self.first_node = node
        if visible:
            self.brs = 0
            self.last_node = node
        self.pieces.append(raw)
        if self.open.anchors and visible:
            self.anchor_chars += len(raw.strip())
            self.anchor_words += count_tokens(raw)

    def _carry_marks(self) -> None:
        """Inline elements open across a block boundary continue in the next block."""
        self.marks = [(0, kind, node, OPEN) for kind, node in self.open_marks]
        if self.link is not None:
            self.marks.append((0, "link", self.link, OPEN))

    def close_mark(self, kind: str) -> None:
        """An inline element ends (the innermost open one of its kind: elements nest)."""
        open_marks = self.open_marks
        for j in range(len(open_marks) - 1, -1, -1):
            if open_marks[j][0] == kind:
                del open_marks[j]
                break
        self.marks.append((len(self.pieces), kind, None, CLOSE))

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
        if block.preformatted:
            text = "".join(self.pieces).strip("\n").rstrip()
        else:  # collapse whitespace runs (faster than a regex)
            text = collapse_spaces("".join(self.pieces))
            if self.marks:  # spans are computed when asked (Block.inline)
                block.marks = (self.pieces, self.marks)
        if text:
            block.text = text
            block.anchor_chars = min(self.anchor_chars, len(text))
            block.anchor_words = self.anchor_words
            block.tag_counts = self.tag_counts
            block.info["text_nodes"] = (self.first_node, self.last_node)
            self.blocks.append(block)
            if self.max_blocks is not None and len(self.blocks) > self.max_blocks:
                raise LimitExceededError(
                    f"the page has more than {self.max_blocks} text blocks (Limits.max_blocks)")
        brs = self.brs
        self._reset()
        self.brs = brs


# Inline tags whose id/class rarely says anything about the block: not read, to save time.
_PLAIN_INLINE = frozenset((
    "a", "b", "i", "em", "strong", "u", "s", "small", "sup", "sub", "font", "abbr", "code", "img",
    "wbr", "time",
))


def is_skipped(tag: str | None, skip_tags: frozenset[str]) -> bool:
    """Whether the walk skips an element with this tag and its subtree (comments, ``<?pi?>``,
    ``<!doctype>``, and the ``skip_tags``)."""
    return tag is None or tag[0] in "-_!" or tag in skip_tags


def segment(doc: Document, config: SegmentConfig | None = None,
            budget: Budget | None = None) -> list[Block]:
    """Return the page's atomic text blocks in document order (requires ``doc.dom``).

    With a ``budget``, its deadline is checked during the walk and its block cap enforced.
    """
    return segment_elements(doc, config, budget)[0]


def segment_elements(doc: Document, config: SegmentConfig | None = None,
                     budget: Budget | None = None) -> tuple[list[Block], Elements]:
    """The page's blocks (as ``segment``) and the table of its elements
    (``grist.segment.elements``; empty unless ``config.keep_classes``)."""
    if doc.dom is None:
        raise GristError("segment() needs a parsed document; call grist.html.parse first")
    config = config or SegmentConfig()
    builder = _BlockBuilder(config, budget.max_blocks if budget is not None else None)
    o = builder.open
    block_tags, skip_tags = config.block_tags, config.skip_tags
    keep_classes = config.keep_classes
    root = doc.dom.root
    table = Elements()
    if root is None:
        return [], table
    # Iterative pre/post-order walk: a node on the stack is entered, a str (its tag) is left.
    stack: list = [root]
    text_node = -1  # ordinal of the last text node visited
    pop, push = stack.pop, stack.append
    path, classes, open_blocks = o.path, o.classes, o.block_tags
    steps = 0
    opened, rows, ends = o.elements, table.rows, table.end
    while stack:
        node = pop()
        steps += 1
        if budget is not None and steps % _CHECK_EVERY == 0:
            budget.check("segmentation")
        if node.__class__ is str:  # leaving an element
            if node in block_tags:
                if builder.start is not None:  # (flush() would do nothing)
                    builder.flush()
                open_blocks.pop()
            leave = LEAVE.get(node)
            if leave is not None:
                leave(builder, o, node)
            path.pop()
            if keep_classes:
                classes.pop()
                if node not in _PLAIN_INLINE:
                    ends[opened.pop()] = len(rows)
            continue
        tag = node.tag
        if tag == _TEXT:
            text_node += 1
            raw = node.text_content
            if raw and (builder.start is not None or not raw.isspace()):  # else text() skips it
                builder.text(raw, text_node)
            continue
        if tag is None or tag[0] in "-_!" or tag in skip_tags:  # as is_skipped(), inlined
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
        enter = ENTER.get(tag)
        if enter is not None:
            enter(builder, o, tag, node)
        push(tag)
        child = node.last_child
        while child is not None:
            push(child)
            child = child.prev
    builder.flush()
    return builder.blocks, table
