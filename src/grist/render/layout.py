"""Group a page's kept blocks into the structures the renderers write.

Blocks are flat; renderers need headings, runs of list items, data tables, code and quotes. A run
of consecutive kept table cells is written as a table only when its table is a data table
(``grist.segment.tables``: markup and size, and a grid of short cells); the cells of a layout
table are laid out like the rest of the page. A run of list blocks keeps what a ``li`` holds in
its item: further paragraphs, headings, code, tables, and blockquotes (whether a quote is inside
an item or around its list, and a table inside an item or a list inside a cell, is read from the
block's path). A ``caption`` right before a data table's cells is the table's. Parts hold the
blocks themselves, so a renderer can write their inline markup (links, images, emphasis).

An image that stood alone in a list item or a data table's cell was put with a neighbouring
block (``grist.segment.blocks.place_images``); when images are written (``images=``) and that
block is in another item of the same list or another cell of the same table, the image is
written as a block of its own in the item or cell it stood in (``_apart``).
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field, replace
from operator import attrgetter

from grist.document import Block
from grist.render.inline import safe_url, shown_text
from grist.segment.inline import Alone, alone_at, alone_marks, image_source, set_apart
from grist.segment.tables import cell_contents, looks_like_data

# Slots a table's spanning cells may cover, summed over them (overlapping ones included): past it
# the other cells are written one slot each, so a hostile table stays cheap to write.
MAX_SPANNED_SLOTS = 100_000
# Lists nested deeper than this are written at this depth: real pages nest a few levels, hostile
# ones thousands, and a renderer's nested elements (TEI's list in item in list) must stay few.
MAX_LIST_NESTING = 32
_LISTS = frozenset(("ol", "ul"))
_CELLS = frozenset(("td", "th"))
# Per place a block has where an image may have stood alone: where an ``Alone`` holds it, and
# how many of its first numbers name the place ((list, item), (table, row, column)).
_PLACES = {"list_item": (2, 2), "cell": (3, 3)}


@dataclass(frozen=True)
class Item:
    """A block of a list (or a table inside one of its items) as the renderers write it.

    ``number``: what an ordered item shows (the page's ``start``/``value``/``reversed``, else
    counted from 1). The block is written inside containers: per level of nesting (from 0,
    never skipping one: a renderer could not write the skipped list) a list, its item, and the
    blockquotes inside that item around the next level's list (or, at the block's level, around
    the block). ``closes``: how many of the containers open after the item before close
    (innermost first); ``opens``: the containers the block then opens, outermost first
    (``list``, ``item``, ``quote``: a list and an item at the block's level, so the item's
    number and kind are this item's). A list opens at the block's level for the first item
    there, the page's next list, or a list of another kind. ``part``: what is written there (a
    heading, paragraph, code or table ``Part``).
    """

    kind: str
    part: Part
    number: int
    closes: int
    opens: tuple[str, ...]

    @property
    def opens_item(self) -> bool:
        """The block opens its item and nothing inside it: a paragraph's text goes right in the
        item."""
        return self.opens[-1:] == ("item",)

    @property
    def continues(self) -> bool:
        """The block is another block of the ``li`` written before at its level: it goes into
        that item, not a new one."""
        return "item" not in self.opens


def _quote_nesting(block: Block) -> list[int]:
    """How many lists enclose each blockquote around the block, outermost first, read from its
    path; the quotes its path does not name (past ``PATH_DEPTH``, or a block made by hand) are
    taken to enclose its lists."""
    if not block.quote_depth:
        return []
    tags = block.path.split(">")
    lists = block.list_depth - sum(tag in _LISTS for tag in tags)  # those above the path
    named = []
    for tag in tags:
        if tag in _LISTS:
            lists += 1
        elif tag == "blockquote":
            named.append(lists)
    return [0] * (block.quote_depth - len(named)) + named[: block.quote_depth]


def _outer_quotes(block: Block) -> int:
    """How many blockquotes enclose the block's outermost list (all of them, outside lists)."""
    return sum(lists <= 0 for lists in _quote_nesting(block))


def _item_quotes(block: Block, low: int, level: int) -> list[int]:
    """Per level of a run, 0 to ``level``, the blockquotes inside its item that enclose the
    block (at ``level``, around the block itself; deeper ones, and those inside a list outside
    the run's, at the nearest level written). A path names ``PATH_DEPTH`` elements at most, so
    a hostile page's thousands of quotes give a renderer few to nest."""
    counts = [0] * (level + 1)
    for lists in _quote_nesting(block):
        if lists > 0:
            counts[min(max(lists - low, 0), level)] += 1
    return counts


@dataclass
class _Level:
    """A level of the lists open in a run: its list, its item and the quotes open in the item."""

    kind: str
    list_id: int | None
    item_id: int
    next_number: int
    quotes: int


def _outer_levels(levels: list[_Level], quotes: list[int], level: int
                  ) -> tuple[int, list[int], int, list[str]]:
    """What stays open above ``level`` for a block with ``quotes`` (per level, ``_item_quotes``):
    its level and quotes, how many containers stay and the quotes it opens there. At the first
    level whose item holds other quotes around its nested list, that list closes and the block
    moves up below it (the deeper levels' quotes around the block)."""
    kept = 0
    for k in range(level):
        held = levels[k].quotes
        if held != quotes[k]:
            shared = min(held, quotes[k])
            levels[k].quotes = quotes[k]
            del levels[k + 1 :]
            return (k + 1, [*quotes[: k + 1], sum(quotes[k + 1 :])], kept + 2 + shared,
                    ["quote"] * (quotes[k] - shared))
        kept += 2 + held
    return level, quotes, kept, []


def _apart(block: Block, place_name: str) -> list[Block]:
    """The block as written where its images that stood alone in another item of its list or
    another cell of its table stood (``place_name``: ``list_item`` or ``cell``, the block's
    place): each such image a block of its own, without text, in the place it stood, before or
    after the block as it is before or after the block's text."""
    place = getattr(block, place_name)
    if block.marks is None or place is None:
        return [block]
    index, named = _PLACES[place_name]

    def elsewhere(image: Alone) -> bool:
        stood = image[index]
        return (stood is not None and stood[0] == place[0] and stood[:named] != place[:named]
                and _written(image))

    at_start, marks, at_end = set_apart(block.marks, elsewhere)
    if not (at_start or at_end):
        return [block]
    own = [replace(block, text="", marks=alone_marks(image), **{place_name: image[index]})
           for image in at_start + at_end]
    return [*own[: len(at_start)], replace(block, marks=marks), *own[len(at_start) :]]


def list_items(blocks: list[Block], images: bool = False) -> list[Item]:
    """The list blocks of a run as ``Item``s: where each list opens, each item begins, and the
    blockquotes inside items open and close; with ``images``, an image that stood alone in
    another item of its block's list is an item of its own (``_apart``)."""
    if images:
        blocks = [written for block in blocks for written in _apart(block, "list_item")]
    low = min(b.list_depth for b in blocks)
    levels: list[_Level] = []
    open_count = 0  # the containers open: per level its list, its item and their quotes
    items = []
    for block, part in _item_parts(blocks, images):
        deep = block.list_depth - low >= MAX_LIST_NESTING  # written at the deepest level
        level = min(block.list_depth - low, len(levels), MAX_LIST_NESTING - 1)
        level, quotes, kept, opens = _outer_levels(levels, _item_quotes(block, low, level), level)
        del levels[level + 1 :]
        list_id, item_id, number = block.list_item or (None, 0, 0)
        here = levels[level] if level < len(levels) else None
        new_list = (here is None or here.kind != block.list_kind
                    or (here.list_id != list_id and not deep))
        continues = not new_list and item_id != 0 and here.item_id == item_id
        if not item_id:  # a block in no li of its list (or made without one): counted
            number = 1 if new_list else here.next_number
        own = quotes[level]  # (around the block, in its item)
        if continues:
            shared = min(here.quotes, own)
            kept += 2 + shared
            opens += ["quote"] * (own - shared)
        else:
            kept += 0 if new_list else 1
            opens += ["list", "item"] if new_list else ["item"]
            opens += ["quote"] * own
        if new_list:
            levels[level:] = [_Level(block.list_kind, list_id, item_id, number + 1, own)]
        else:
            here.item_id, here.next_number, here.quotes = item_id, number + 1, own
        items.append(Item(block.list_kind, part, number, open_count - kept, tuple(opens)))
        open_count = kept + len(opens)
    return items


def _item_parts(blocks: list[Block], images: bool) -> list[tuple[Block, Part]]:
    """What a run's list items hold, each with the block that places it in its list: a data
    table inside an item (with its caption; ``images`` as ``table_rows``) is one table placed by
    its outermost block (a list inside a cell is not the table's place), the other blocks are
    parts of their own."""
    parts = []
    i = 0
    while i < len(blocks):
        j = _table_end(blocks, i)
        table = (_table_part(blocks[i:j], images) if j > i and _lists_around_table(blocks[j - 1])
                 else None)
        if table is None:
            j = max(j, i + 1)
            parts += [(block, _single(block)) for block in blocks[i:j]]
        else:
            parts.append((min(blocks[i:j], key=attrgetter("list_depth")), table))
        i = j
    return parts


@dataclass(frozen=True)
class Part:
    """One rendered unit: ``kind`` is heading, paragraph, code, list or table.

    heading/paragraph/code hold their ``block`` (and ``level`` for headings); a list holds its
    ``items`` (``Item``); a table holds its ``rows`` of ``Cell``s (the cell's blocks; none for
    an empty slot or one a spanning cell covers), the first row being the header, and
    ``table_spans``, and its caption's ``block`` when it has one.
    ``quote`` is how many blockquotes enclose the part (a list's: those around the list, not
    the ones inside its items).
    """

    kind: str
    block: Block | None = None
    level: int = 0
    items: list[Item] = field(default_factory=list)
    rows: list[list[Cell]] = field(default_factory=list)
    quote: int = 0

    @property
    def table_spans(self) -> TableSpans:
        """A table's cells that span others, for the formats that can say so."""
        return table_spans(self.rows)

    @property
    def text(self) -> str:
        """The part's block's text as rendered (``shown_text``; a table's caption)."""
        return shown_text(self.block) if self.block is not None else ""


def _single(block: Block) -> Part:
    if block.preformatted:
        return Part("code", block, quote=block.quote_depth)
    if block.heading:
        return Part("heading", block, level=block.heading, quote=block.quote_depth)
    return Part("paragraph", block, quote=block.quote_depth)


Cell = tuple[Block, ...]  # a table cell's blocks as written, in page order; () when empty


def table_rows(run: list[Block], images: bool = False) -> list[list[Cell]] | None:
    """The rows of a run of cells from one table, or None when it is a layout table (by its
    markup, or cells that are not short values: ``cell_contents``). Cells without table markup
    (built by hand) are judged by their shape. With ``images``, an image that stood alone in
    another cell than its block's is in that cell (``_apart``; its row or column is written
    even when it holds no text)."""
    info = run[0].table
    if info is not None and not looks_like_data(info):
        return None
    grid = cell_contents(run)
    if grid is None:
        return None
    if images:
        grid = {}
        for cell in (written for block in run for written in _apart(block, "cell")):
            grid.setdefault((cell.cell[1], cell.cell[2]), []).append(cell)
    rows = sorted({r for r, _ in grid})
    columns = sorted({c for _, c in grid})
    return [[tuple(grid.get((r, c), ())) for c in columns] for r in rows]


@dataclass(frozen=True)
class TableSpans:
    """Where a table's cells span rows or columns, in its rows as written (``Part.rows``).

    ``spans``: (row, column) of a cell covering more than its slot -> the (rows, columns) it
    covers; ``covered``: the other slots those cover, which a format with spans leaves out;
    ``head_rows``: the rows of the header, the first and those its cells span into (one when
    that would be every row: the header's spans are then cut to its row).
    """

    spans: dict[tuple[int, int], tuple[int, int]]
    covered: frozenset[tuple[int, int]]
    head_rows: int

    def written(self, i: int, row: list[Cell]) -> list[tuple[Cell, int, int]]:
        """The cells of row ``i`` a format with spans writes: (cell, rows, columns) each."""
        return [(cell, *self.spans.get((i, j), (1, 1))) for j, cell in enumerate(row)
                if (i, j) not in self.covered]


def table_spans(rows: list[list[Cell]]) -> TableSpans:
    """The spans of a table's cells (``Block.cell``) over the rows and columns written: a span
    over rows or columns with no kept cell shrinks, and one that would cover another cell or
    another span's slot is left out (the page's table had overlapping cells), as are those past
    ``MAX_SPANNED_SLOTS``."""
    firsts = [[cell[0].cell if cell else None for cell in row] for row in rows]
    row_keys = sorted({place[1] for row in firsts for place in row if place})
    column_keys = sorted({place[2] for row in firsts for place in row if place})
    wanted = []
    for i, row in enumerate(firsts):
        for j, place in enumerate(row):
            if place is None or len(place) < 5:
                continue
            _, top, left, down, across = place
            height = bisect_left(row_keys, top + down) - bisect_left(row_keys, top)
            width = bisect_left(column_keys, left + across) - bisect_left(column_keys, left)
            if height > 1 or width > 1:
                wanted.append(((i, j), (height, width)))
    head_rows = 1
    for (i, _), (height, _) in wanted:  # (in row order)
        if i < head_rows:
            head_rows = max(head_rows, i + height)
    if head_rows >= len(rows):
        head_rows = 1
        wanted = [((i, j), (1 if i == 0 else h, w)) for (i, j), (h, w) in wanted]
    spans: dict[tuple[int, int], tuple[int, int]] = {}
    covered: set[tuple[int, int]] = set()
    budget = MAX_SPANNED_SLOTS
    for (i, j), (height, width) in wanted:
        budget -= height * width
        if budget < 0:
            break
        slots = {(i + a, j + b) for a in range(height) for b in range(width)} - {(i, j)}
        if height * width > 1 and not any(rows[a][b] or (a, b) in covered for a, b in slots):
            spans[(i, j)] = (height, width)
            covered |= slots
    return TableSpans(spans, frozenset(covered), head_rows)


def written_blocks(blocks: list[Block], images: bool) -> list[Block]:
    """The kept blocks of a page's ``blocks`` (all of them, in order); with ``images``, a kept
    block beside a dropped one takes the images that stood alone between the two and went to
    the dropped one (the segmenter placed them before the method chose): a hero image given to
    a dropped share bar goes to the kept heading after it."""
    if not images:
        return [block for block in blocks if block.is_content]
    given: dict[int, Block] = {}
    for i, block in enumerate(blocks):
        if block.is_content or block.marks is None:
            continue
        at_start, _, at_end = set_apart(block.marks, lambda image: True)
        for images_here, k, to_end in ((at_start, i - 1, True), (at_end, i + 1, False)):
            if images_here and 0 <= k < len(blocks) and blocks[k].is_content:
                given[k] = _with_images(given.get(k, blocks[k]), images_here, to_end)
    return [given.get(i, block) for i, block in enumerate(blocks) if block.is_content]


def _with_images(block: Block, images: list[Alone], to_end: bool) -> Block:
    """A copy of ``block`` with images that stood alone added at its end or its start."""
    pieces, marks = block.marks or ([block.text], [])
    added = alone_at(images, len(pieces) if to_end else 0)
    return replace(block, marks=(pieces, marks + added if to_end else added + marks))


def layout(blocks: list[Block], *, in_layout_table: bool = False, images: bool = False
           ) -> list[Part]:
    """Turn kept blocks (in page order) into parts: tables and list runs grouped.

    Inside a layout table (``in_layout_table``) the cells are ignored and their blocks are laid
    out like the rest of the page, so lists and headings in them keep their structure. A table
    inside a list item is written in its list. With ``images`` (when they are written), an image
    that stood alone in a list item or a data table's cell is written there (``_apart``).
    """
    parts: list[Part] = []
    i, n = 0, len(blocks)
    while i < n:
        block = blocks[i]
        j = i if in_layout_table else _table_end(blocks, i)
        if j > i and not _lists_around_table(blocks[j - 1]):
            table = _table_part(blocks[i:j], images)
            parts += [table] if table else layout(blocks[i:j], in_layout_table=True,
                                                  images=images)
        elif _is_item(block):
            quote = _outer_quotes(block)
            j = i + 1
            while (j < n and _is_item(blocks[j]) and _outer_quotes(blocks[j]) == quote
                   and (in_layout_table or blocks[j].cell is None
                        or _lists_around_table(blocks[j]))):
                j += 1
            run, lead, trail = (_outside_list(blocks[i:j], quote) if images
                                else (blocks[i:j], [], []))
            parts += [*lead, Part("list", items=list_items(run, images), quote=quote), *trail]
        else:
            j = i + 1
            parts += _heading_apart(block) if images and block.heading else [_single(block)]
        i = j
    return parts


def _written(image: Alone) -> bool:
    """Whether a format writes the image (not a data: or javascript: one): only such an image
    is set apart, so that none makes an empty item, cell or paragraph."""
    return safe_url(image_source(image[0].attributes), None) is not None


def _outside_list(run: list[Block], quote: int) -> tuple[list[Block], list[Part], list[Part]]:
    """A list run without the images that stood alone outside any list and went to its first
    block's start or its last block's end, and those images as paragraphs (in the list's
    ``quote``) before and after the list: a figure after a list is no part of its last item."""
    run = list(run)
    lead: list[Alone] = []
    trail: list[Alone] = []
    if run[0].marks is not None:
        lead, marks, _ = set_apart(run[0].marks, _outside, sides=(True, False))
        run[0] = replace(run[0], marks=marks)
    if run[-1].marks is not None:
        _, marks, trail = set_apart(run[-1].marks, _outside, sides=(False, True))
        run[-1] = replace(run[-1], marks=marks)
    return run, _paragraphs(lead, run[0], quote), _paragraphs(trail, run[-1], quote)


def _outside(image: Alone) -> bool:
    """Whether an image that stood alone stood outside any list, and a format writes it."""
    return image[2] is None and _written(image)


def _paragraphs(images: list[Alone], block: Block, quote: int) -> list[Part]:
    """Images that stood alone, each a paragraph of its own (``block`` lends its place)."""
    return [Part("paragraph", replace(block, text="", marks=alone_marks(image), heading=0),
                 quote=quote) for image in images]


def _heading_apart(block: Block) -> list[Part]:
    """A heading's part, with the images that stood alone before or after it (the segmenter
    gave them to it) as paragraphs of their own before or after it: a heading is one line."""
    if block.marks is None:
        return [_single(block)]
    at_start, marks, at_end = set_apart(block.marks, _written)
    return [*_paragraphs(at_start, block, block.quote_depth), _single(replace(block, marks=marks)),
            *_paragraphs(at_end, block, block.quote_depth)]


def _is_item(block: Block) -> bool:
    """A block written as (part of) a list item: in a list, and not code outside its items (a
    heading in an item, an award list's name or a product card's, stays in its item, and so
    does a tutorial step's code)."""
    return bool(block.list_kind) and (not block.preformatted or bool(block.list_item
                                                                     and block.list_item[1]))


def _lists_around_table(cell: Block) -> int:
    """How many lists enclose a cell's table: the cell's lists but those its path names inside
    the cell (a table in a list item is written in the item, a list in a cell in the cell)."""
    tags = cell.path.split(">")
    inner = next((i for i in range(len(tags) - 1, -1, -1) if tags[i] in _CELLS), -1)
    return cell.list_depth - sum(tag in _LISTS for tag in tags[inner + 1 :])


def _table_end(blocks: list[Block], i: int) -> int:
    """Where the table starting at ``blocks[i]`` (its caption or its first cell) ends: past its
    run of cells; ``i`` when no table starts there."""
    first = i + _is_caption(blocks, i)
    if first >= len(blocks) or blocks[first].cell is None:
        return i
    table_id = blocks[first].cell[0]
    j = first + 1
    while j < len(blocks) and blocks[j].cell is not None and blocks[j].cell[0] == table_id:
        j += 1
    return j


def _is_caption(blocks: list[Block], i: int) -> bool:
    """Whether ``blocks[i]`` is the ``caption`` of the table whose cells come next: its path is
    that table's (a table has one caption, before its rows)."""
    caption = blocks[i]
    if caption.tag != "caption" or caption.cell is not None or i + 1 >= len(blocks):
        return False
    cell = blocks[i + 1]
    table = caption.path.rpartition(">")[0] + ">"
    return (cell.cell is not None and cell.path.startswith(table)
            and (cell.table is None or cell.table.caption))


def _table_part(run: list[Block], images: bool) -> Part | None:
    """A table run (``_table_end``) as a table part (``images`` as ``table_rows``), or None when
    it is a layout table."""
    caption = run[0] if run[0].cell is None else None
    cells = run[1:] if caption else run
    rows = table_rows(cells, images)
    if rows is None:
        return None
    return Part("table", caption, rows=rows, quote=cells[0].quote_depth)
