"""Group a page's kept blocks into the structures the renderers write.

Blocks are flat; renderers need headings, runs of list items, data tables, code and quotes. A run
of consecutive kept table cells is written as a table only when its table is a data table
(``grist.segment.tables``: markup and size, and a grid of short cells); the cells of a layout
table are laid out like the rest of the page. Parts hold the blocks themselves, so a renderer can
write their inline markup (links, images, emphasis).
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field

from grist.document import Block
from grist.render.inline import shown_text
from grist.segment.tables import cell_contents, looks_like_data

# Slots a table's spanning cells may cover, summed over them (overlapping ones included): past it
# the other cells are written one slot each, so a hostile table stays cheap to write.
MAX_SPANNED_SLOTS = 100_000
# Lists nested deeper than this are written at this depth: real pages nest a few levels, hostile
# ones thousands, and a renderer's nested elements (TEI's list in item in list) must stay few.
MAX_LIST_NESTING = 32


@dataclass(frozen=True)
class Item:
    """A block of a list as the renderers write it.

    ``level``: nesting from 0, never skipping one (a renderer could not write the skipped list);
    ``new_list``: the item opens a list at its level (the first there, or the page's next list,
    or a list of another kind); ``continues``: it is another block of the ``li`` written just
    before at its level, so it goes into that item, not a new one; ``number``: what an ordered
    item shows (the page's ``start``/``value``/``reversed``, else counted from 1).
    """

    level: int
    kind: str
    block: Block
    new_list: bool
    continues: bool
    number: int


def list_items(blocks: list[Block]) -> list[Item]:
    """The list blocks of a run as ``Item``s: where each list opens and each item begins."""
    low = min(b.list_depth for b in blocks)
    open_lists: list[list] = []  # per level: [kind, list id, item id, the next item's number]
    items = []
    for block in blocks:
        deep = block.list_depth - low >= MAX_LIST_NESTING  # written at the deepest level
        level = min(block.list_depth - low, len(open_lists), MAX_LIST_NESTING - 1)
        del open_lists[level + 1 :]
        list_id, item_id, number = block.list_item or (None, 0, 0)
        here = open_lists[level] if level < len(open_lists) else None
        new_list = (here is None or here[0] != block.list_kind
                    or (here[1] != list_id and not deep))
        continues = not new_list and item_id != 0 and here[2] == item_id
        if not item_id:  # a block in no li of its list (or made without one): counted
            number = 1 if new_list else here[3]
        if new_list:
            open_lists[level:] = [[block.list_kind, list_id, item_id, number + 1]]
        else:
            here[2:] = item_id, number + 1
        items.append(Item(level, block.list_kind, block, new_list, continues, number))
    return items


@dataclass(frozen=True)
class Part:
    """One rendered unit: ``kind`` is heading, paragraph, code, list or table.

    heading/paragraph/code hold their ``block`` (and ``level`` for headings); a list holds its
    ``items`` (``Item``); a table holds its ``rows`` of ``Cell``s (the cell's blocks; none for
    an empty slot or one a spanning cell covers), the first row being the header, and
    ``table_spans``.
    ``quote`` is how many blockquotes enclose the part.
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
        """The part's block's text as rendered (``shown_text``)."""
        return shown_text(self.block) if self.block is not None else ""


def _single(block: Block) -> Part:
    if block.preformatted:
        return Part("code", block, quote=block.quote_depth)
    if block.heading:
        return Part("heading", block, level=block.heading, quote=block.quote_depth)
    return Part("paragraph", block, quote=block.quote_depth)


Cell = tuple[Block, ...]  # a table cell's blocks as written, in page order; () when empty


def table_rows(run: list[Block]) -> list[list[Cell]] | None:
    """The rows of a run of cells from one table, or None when it is a layout table (by its
    markup, or cells that are not short values: ``cell_contents``). Cells without table markup
    (built by hand) are judged by their shape."""
    info = run[0].table
    if info is not None and not looks_like_data(info):
        return None
    grid = cell_contents(run)
    if grid is None:
        return None
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


def layout(blocks: list[Block], *, in_layout_table: bool = False) -> list[Part]:
    """Turn kept blocks (in page order) into parts: tables and list runs grouped.

    Inside a layout table (``in_layout_table``) the cells are ignored and their blocks are laid
    out like the rest of the page, so lists and headings in them keep their structure.
    """
    parts: list[Part] = []
    i, n = 0, len(blocks)
    while i < n:
        block = blocks[i]
        j = i + 1
        if block.cell is not None and not in_layout_table:
            table_id = block.cell[0]
            while j < n and blocks[j].cell is not None and blocks[j].cell[0] == table_id:
                j += 1
            rows = table_rows(blocks[i:j])
            if rows is None:
                parts.extend(layout(blocks[i:j], in_layout_table=True))
            else:
                parts.append(Part("table", rows=rows, quote=block.quote_depth))
        elif _is_item(block):
            while (j < n and _is_item(blocks[j]) and blocks[j].quote_depth == block.quote_depth
                   and (in_layout_table or blocks[j].cell is None)):
                j += 1
            parts.append(Part("list", items=list_items(blocks[i:j]), quote=block.quote_depth))
        else:
            parts.append(_single(block))
        i = j
    return parts


def _is_item(block: Block) -> bool:
    """A block written as (part of) a list item: in a list, and not code (a heading in an item,
    an award list's name or a product card's, stays in its item)."""
    return bool(block.list_kind) and not block.preformatted
