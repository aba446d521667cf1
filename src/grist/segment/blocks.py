"""Split a parsed page into atomic text blocks, as seed 000 §4.1.1 describes.

Non-content elements (``script``, ``style``, ``select``, comments, ...) are dropped, and so is text
that shows no character (whitespace, zero-width and other invisible characters). A block ends at
every block-level tag (the paper's list: BLOCKQUOTE ... UL) and at a run of two or more ``<br>``.
Inline tags, ``<a>`` above all, do not split a block, so link density can be computed.
The traversal is iterative: no recursion limit on deeply nested pages.

An image in a block without text (a picture paragraph, a figure, a list item or table cell
holding only an image) cannot make a block of its own: ``record_alone`` records it, with the
list item, table cell and quotes it stood in, at the start of the next block (at the end of the
page's last one), and the renderers decide where it is written once the method has chosen the
blocks (``grist.render.placement.written_blocks``).

Each block records in ``info["text_nodes"]`` the ordinals of its first and last visible text node
among the text nodes the walk visits (document order, skipped subtrees not counted), so a tool
walking the same parse (the service's inspector) can find the block on the page.

The walk runs in C when ``grist.segment._walk`` was built (``_compiled_walk``), with the same
steps as the Python walk below, which stays the fallback and the reference the tests hold the C
walk to (``docs/decisions.md``, "The segmenter's walk in C").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from grist.document import Block, Document
from grist.errors import GristError, LimitExceededError
from grist.features.chars import IDEOGRAPHS
from grist.limits import Budget
from grist.segment.context import (ENTER, HANDLER_CODES, HEADINGS, LEAVE, MAX_SPAN_SLOTS,
                                   cell_spans, item_value, list_numbering, new_table)
from grist.segment.elements import NEAREST_CLASSES, OTHER_ATTRIBUTES, Elements, describe
from grist.segment.inline import (CLOSE, INLINE_KINDS, MAX_OPEN_INLINE, OPEN, POINT, Alone,
                                  Mark, alone_at, code_language)
from grist.whitespace import HUGE_TEXT, INVISIBLE, count_tokens, drop_controls, visible_text

try:  # the walk in C (setup.py builds it when a compiler is there; same blocks either way)
    from grist.segment import _walk
except ImportError:  # pragma: no cover - an install without a C compiler
    _walk = None

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
    "embed", "frameset", "frame", "noframes", "audio", "video", "map", "datalist",
    "rt", "rp",  # ruby annotations (furigana, pinyin) drawn above the text, not in its line
))
_TEXT = "-text"
# A block's path names its innermost PATH_DEPTH elements; deeper ancestors become one "…", so
# each block costs every later stage O(1), not O(depth), on pages nested thousands deep.
PATH_DEPTH = 128
# Elements entered between two looks at the time budget (with their text nodes and ends, some
# 3000 nodes walked).
_CHECK_EVERY = 1024


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
    # per open list: [list id, the next item's number, step, the open item's id, its number]
    items: list[list[int]] = field(default_factory=list)
    # per open definition list: [list id, its dt and dd so far, the open one's (0 outside them)]
    definitions: list[list[int]] = field(default_factory=list)
    # per open table: [table id, row, the cell's index in its row, TableInfo, the cell's column
    # in the laid-out grid, the next free column, {column: the last row a spanning cell takes}]
    tables: list[list] = field(default_factory=list)
    anchors: int = 0
    pre: int = 0
    quotes: int = 0
    code_languages: list[str] = field(default_factory=list)
    headings: list[int] = field(default_factory=list)
    elements: list[int] = field(default_factory=lambda: [-1])  # open recorded elements


class _BlockBuilder:
    """Accumulates the text of the current block and emits Blocks.

    A block is made (``_begin``) at its first visible text, with the context it starts in; what
    it gathers afterwards (anchor words and characters, ``tag_counts``) goes straight onto it.
    """

    def __init__(self, config: SegmentConfig, max_blocks: int | None = None) -> None:
        self.config = config
        self.max_blocks = max_blocks
        self.blocks: list[Block] = []
        self.open = _Open()
        self.region_count = 0
        self.table_count = 0
        self.list_count = self.item_count = self.definition_list_count = 0
        self.span_slots = MAX_SPAN_SLOTS  # left for the page's cells spanning rows
        self.open_marks: list[tuple[str, Any]] = []  # inline elements open now: (kind, node)
        self.unmarked = 0  # inline elements open now past MAX_OPEN_INLINE (they make no marks)
        self.link: Any = None  # the link open now
        self.brs = 0  # <br> elements since the last visible text
        self.first_node = self.last_node = -1  # the current block's first and last text node
        # images met since the last block ended, before any text: (image, the link open there)
        self.loose: list[tuple[Any, Any]] = []
        self.alone: list[Alone] = []  # images that stood in a block without text, to record
        self._reset()

    def _reset(self) -> None:
        """Start a new (still empty) block."""
        self.pieces: list[str] = []
        # inline elements still open continue into the next block
        self.marks: list[Mark] = []
        if self.open_marks or self.link is not None:
            self._carry_marks()
        self.start: Block | None = None

    def _begin(self) -> Block:
        """Record where the block starts: the context of its first visible text (the images met
        before it are the block's own)."""
        self.loose.clear()
        o = self.open
        table = o.tables[-1] if o.tables else None
        path = o.path if len(o.path) <= PATH_DEPTH else ["\u2026", *o.path[-PATH_DEPTH:]]
        in_cell = table is not None and table[2] >= 0
        return Block(  # positional (in the order of Block's fields): faster than keywords
            "",  # text, set by flush()
            o.block_tags[-1] if o.block_tags else "body",  # tag
            ">".join(path),  # path
            len(o.path),  # depth
            0,  # anchor_words
            0,  # anchor_chars
            {},  # tag_counts
            len(self.blocks),  # index
            o.regions[-1],  # region
            o.headings[-1] if o.headings else 0,  # heading
            o.lists[-1] if o.lists else "",  # list_kind
            len(o.lists),  # list_depth
            _list_item(o),  # list_item
            _definition(o),  # definition
            _cell(o),  # cell
            o.pre > 0,  # preformatted
            o.code_languages[-1] if o.pre and o.code_languages else "",  # code_language
            o.quotes,  # quote_depth
            None,  # marks, set by flush()
            table[3] if in_cell else None,  # table
            None, None, None, None, "page",  # label, reason, score, role, decided_by: defaults
            {"classes": " ".join(filter(None, o.classes[: -NEAREST_CLASSES - 1 : -1])),
             "element": o.elements[-1]}
            if self.config.keep_classes
            else {},  # info
        )

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
        elif self.start is not None and self.open.pre:
            self.pieces.append("\n")
        elif self.start is not None:  # renderers break the line here (grist.render.inline)
            self.marks.append((len(self.pieces), "br", None, POINT))
            self.pieces.append(" ")

    def flush(self) -> None:
        """End the current block; keep it if it shows a character (``shows_a_character``), with
        the images that stood alone before it (``record_alone``). A run of BRs survives. Without
        a block, the images met since the last one stood alone."""
        block = self.start
        if block is None:
            if self.loose:
                self._set_aside()
            return
        pieces = self.pieces
        if block.preformatted:
            text = drop_controls("".join(pieces).strip("\n").rstrip())
        else:  # collapse whitespace runs (faster than a regex), drop what is not drawn
            text = visible_text("".join(pieces))
        if shows_a_character(text):
            block.text = text
            if block.anchor_chars > len(text):
                block.anchor_chars = len(text)
            if self.alone:
                record_alone(self.alone, self.blocks, block, self.marks)
            if self.marks and not block.preformatted:  # spans are computed when asked
                block.marks = (pieces, self.marks)
            block.info["text_nodes"] = (self.first_node, self.last_node)
            self.blocks.append(block)
            if self.max_blocks is not None and len(self.blocks) > self.max_blocks:
                raise LimitExceededError(
                    f"the page has more than {self.max_blocks} text blocks (Limits.max_blocks)")
        self._reset()

    def _set_aside(self) -> None:
        """The images met since the last block ended stood in a block without text: keep them,
        with the list item, table cell and quote depth they were in, for ``record_alone``."""
        item, cell, quotes = _list_item(self.open), _cell(self.open), self.open.quotes
        self.alone.extend((image, link, item, cell, quotes) for image, link in self.loose)
        self.loose.clear()
        self._reset()

    def finish(self) -> list[Block]:
        """End the walk: the last block, and the images left alone after it recorded."""
        self.flush()
        if self.alone:
            record_alone(self.alone, self.blocks, None, None)
        return self.blocks


def _list_item(o: _Open) -> tuple[int, int, int] | None:
    """The list item open now as ``Block.list_item`` says it (None outside lists)."""
    item = o.items[-1] if o.items else None
    return (item[0], item[3], item[4]) if item else None


def _definition(o: _Open) -> tuple[int, int] | None:
    """The term or definition open now as ``Block.definition`` says it (None outside ``dl``s)."""
    definitions = o.definitions[-1] if o.definitions else None
    return (definitions[0], definitions[2]) if definitions else None


def _cell(o: _Open) -> tuple[int, int, int, int, int] | None:
    """The table cell open now as ``Block.cell`` says it (None outside cells)."""
    table = o.tables[-1] if o.tables else None
    return (table[0], table[1], table[4], table[7], table[8]) if table and table[2] >= 0 else None


def record_alone(alone: list[Alone], blocks: list[Block], after: Block | None,
                 marks: list[Mark] | None) -> None:
    """Record the images that stood alone since the last block ended (``alone``, in page order;
    emptied) where they stood: at the start of ``after``, the block being kept (in ``marks``,
    its marks; a code block, which keeps no marks, holds them alone), or, at the page's end
    (``after`` None), at the end of its last block (a page without blocks drops them). Which
    kept block writes each, and how, is decided once the method has chosen the blocks
    (``grist.render.placement.written_blocks``)."""
    if after is None:
        if blocks:
            last = blocks[-1]
            if last.marks is None:
                last.marks = ([last.text], [])
            last.marks[1].extend(alone_at(alone, len(last.marks[0])))
    elif after.preformatted:
        after.marks = ([after.text], alone_at(alone, 0))
    else:
        marks[0:0] = alone_at(alone, 0)
    alone.clear()


def shows_a_character(text: str) -> bool:
    """Whether ``text`` holds a character a reader sees: a printable one other than the space.

    Whitespace, zero-width spaces and joiners, byte-order marks, soft hyphens (format
    characters), private-use code points (icon-font glyphs) and control characters are not
    printable. Site builders fill spacer paragraphs with a lone zero-width joiner: such text
    makes no block (``docs/decisions.md``, "A block must show a character").
    """
    first = text[:1]
    if first.isprintable() and first.strip():  # (settles most texts without the loop)
        return True
    return any(c.isprintable() and not c.isspace() for c in text)


# Inline tags whose id/class rarely says anything about the block: not read, to save time.
_PLAIN_INLINE = frozenset((
    "a", "b", "i", "em", "strong", "u", "s", "small", "sup", "sub", "font", "abbr", "code", "img",
    "wbr", "time",
))


def is_skipped(tag: str | None, skip_tags: frozenset[str]) -> bool:
    """Whether the walk skips an element with this tag and its subtree (comments, ``<?pi?>``,
    ``<!doctype>``, and the ``skip_tags``)."""
    return tag is None or tag[0] in "-_!" or tag in skip_tags


# What entering and leaving a node with a given tag involves, worked out once per tag and walk
# (``_tag_plan``): (tag, whether it splits blocks, whether it gets a row in the element table,
# its ``ENTER`` handler, its ``LEAVE`` handler). The walk keeps it on its stack of open
# elements. A plain tuple, as unpacking one is much faster than unpacking a NamedTuple.
_Tag = tuple[str, bool, bool, Callable[..., None] | None, Callable[..., None] | None]
_TEXT_NODE: _Tag = (_TEXT, False, False, None, None)  # a text node
_SKIPPED: _Tag = ("", False, False, None, None)  # is_skipped(): the subtree is dropped
_LINE_BREAK: _Tag = ("br", False, False, None, None)  # a <br>: counts towards a run
# Under these (foreign content) alone, one tag id names several tags (SVG's ``clipPath`` and
# ``clippath``): when the walk skips them, it finds a node's plan by its tag id, which selectolax
# gives much faster than the tag.
_FOREIGN = frozenset(("svg", "math"))
# lexbor numbers the tags HTML knows with small integers, the same on every page (0xC6 at most in
# the lexbor of selectolax 1.0); another tag's id is the address of its entry in the page's own
# tag table, never this small. Only the plans of the small ids are kept from page to page
# (``_KNOWN_PLANS``), so the cache is bounded and holds nothing a page made up.
_STANDARD_TAG_IDS = 1 << 16
_KNOWN_PLANS: dict[SegmentConfig, dict[int | str | None, _Tag]] = {}


def _tag_plan(tag: str | None, config: SegmentConfig) -> _Tag:
    """How the walk treats nodes with this tag under ``config``."""
    if tag == _TEXT:
        return _TEXT_NODE
    if is_skipped(tag, config.skip_tags):
        return _SKIPPED
    if tag == "br":
        return _LINE_BREAK
    recorded = config.keep_classes and tag not in _PLAIN_INLINE
    return tag, tag in config.block_tags, recorded, ENTER.get(tag), LEAVE.get(tag)


# _tag_plan() as the compiled walk reads it, per SegmentConfig like _KNOWN_PLANS.
_KNOWN_WALK_PLANS: dict[SegmentConfig, dict[int | str | None, tuple]] = {}
_PLAN_KINDS = {_TEXT_NODE: 0, _SKIPPED: 1, _LINE_BREAK: 2}
# Text without a code point from here on holds no ideograph: the C walk counts its link words.
_FIRST_IDEOGRAPH = min(start for start, _ in IDEOGRAPHS)


def walk_plan(tag: str | None, config: SegmentConfig) -> tuple:
    """``_tag_plan`` for ``grist.segment._walk``: (kind: 0 text, 1 skipped, 2 ``br``, 3 an
    element; tag; splits blocks; recorded; enter and leave handler codes (``HANDLER_CODES``);
    the span kind or heading level the handler needs; whether the tag is ``th``, ``caption``,
    ``code`` or ``ol``, which their handlers tell apart)."""
    plan = _tag_plan(tag, config)
    name, is_block, recorded, enter, leave = plan
    detail = INLINE_KINDS.get(name) or HEADINGS.get(name)
    return (_PLAN_KINDS.get(plan, 3), name, is_block, recorded, HANDLER_CODES[enter],
            HANDLER_CODES[leave], detail, name in ("th", "caption", "code", "ol"))


def _compiled_walk(root: Any, config: SegmentConfig, budget: Budget | None,
                   table: Elements) -> list[Block]:
    """The walk of ``segment_elements`` in C (``grist.segment._walk``), filling ``table``."""
    known = _KNOWN_WALK_PLANS.setdefault(config, {})
    return _walk.walk(
        root, known.copy(), known, lambda tag: walk_plan(tag, config),
        _FOREIGN <= config.skip_tags, config.keep_classes, config.min_br_run,
        budget.max_blocks if budget is not None and budget.max_blocks is not None else -1,
        budget, table.rows, table.end,
        (NEAREST_CLASSES, PATH_DEPTH, MAX_OPEN_INLINE, HUGE_TEXT, _CHECK_EVERY,
         _FIRST_IDEOGRAPH, INVISIBLE, MAX_SPAN_SLOTS),
        (Block, describe, OTHER_ATTRIBUTES, code_language, new_table, visible_text,
         drop_controls, count_tokens, LimitExceededError, list_numbering, item_value,
         cell_spans, record_alone))


def compiled_segmenter() -> bool:
    """Whether pages are walked by the C extension (else by the Python walk: same blocks,
    slower)."""
    return _walk is not None


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
    keep_classes = config.keep_classes
    root = doc.dom.root
    table = Elements()
    if root is None or _tag_plan(root.tag, config) in (_TEXT_NODE, _SKIPPED, _LINE_BREAK):
        return [], table
    if _walk is not None:
        return _compiled_walk(root, config, budget, table), table
    # Iterative walk in document order from node to node (first child, else next sibling, else
    # the next sibling of the nearest open element that has one), the open elements on a stack.
    node = root
    by_id = _FOREIGN <= config.skip_tags
    known = _KNOWN_PLANS.setdefault(config, {})
    plans = known.copy()  # _tag_plan() of the tag ids (or tags) met so far
    open_plans: list[_Tag] = []  # the elements open now, outermost first, and their nodes
    open_nodes: list = []
    text_node = -1  # ordinal of the last text node visited
    path, classes, open_blocks = o.path, o.classes, o.block_tags
    steps = 0  # elements entered
    opened, rows, ends = o.elements, table.rows, table.end
    while True:
        key = node.tag_id if by_id else node.tag
        try:  # (costs nothing when no exception is raised, unlike calling plans.get)
            plan = plans[key]
        except KeyError:  # (rare: most tags' plans come from earlier pages)
            plan = plans[key] = _tag_plan(node.tag, config)
            if by_id and key < _STANDARD_TAG_IDS:
                known[key] = plan
        if plan is _TEXT_NODE:
            text_node += 1
            # (whitespace outside a block is dropped: not read)
            block = builder.start
            if block is not None or not node.is_empty_text_node:
                raw = node.text_content
                if raw:
                    # visible text joins the block open now, or begins one (inlined: the
                    # commonest step of the walk)
                    if not raw.isspace():
                        if block is None:
                            block = builder.start = builder._begin()
                            builder.first_node = text_node
                        builder.brs = 0
                        builder.last_node = text_node
                        builder.pieces.append(raw)
                        if o.anchors:
                            block.anchor_chars += len(raw.strip())
                            block.anchor_words += count_tokens(raw)
                    elif block is not None:
                        builder.pieces.append(raw)
            following = node.next
        else:
            steps += 1  # (text nodes and ends come with the elements, so are not counted)
            if steps % _CHECK_EVERY == 0 and budget is not None:
                budget.check("segmentation")
            if plan is _SKIPPED:
                following = node.next
            elif plan is _LINE_BREAK:
                builder.line_break()
                following = node.next
            else:  # entering an element
                tag, is_block, recorded, enter, _ = plan
                if is_block:
                    if builder.start is not None or builder.loose:
                        builder.flush()
                    open_blocks.append(tag)
                elif builder.start is not None:
                    counts = builder.start.tag_counts
                    counts[tag] = counts.get(tag, 0) + 1
                path.append(tag)
                if recorded:
                    attrs = node.attributes
                    words, hidden = describe(attrs) if attrs else ("", False)
                    if o.pre:  # (the code's syntax highlighting: ``hljs-comment``, ``token tag``)
                        words = ""
                    classes.append(words)
                    opened.append(len(rows))
                    rows.append((opened[-2], len(path) - 1, tag, words, hidden))
                    ends.append(0)
                elif keep_classes:
                    classes.append("")
                if enter is not None:
                    enter(builder, o, tag, node)
                open_plans.append(plan)
                open_nodes.append(node)
                following = node.first_child
                if following is not None:
                    node = following
                    continue
        while following is None:  # leaving the elements that end here, innermost first
            tag, is_block, recorded, _, leave = open_plans.pop()
            if is_block:
                if builder.start is not None or builder.loose:  # (else flush() does nothing)
                    builder.flush()
                open_blocks.pop()
            if leave is not None:
                leave(builder, o, tag)
            path.pop()
            if keep_classes:
                classes.pop()
                if recorded:
                    ends[opened.pop()] = len(rows)
            node = open_nodes.pop()
            if not open_nodes:  # (the root: its siblings are not walked)
                return builder.finish(), table
            following = node.next
        node = following
