"""Data tables and layout tables, told apart from what the segmenter recorded.

A *data table* holds rows of values (a price list, a size guide, a timetable); a *layout table*
positions a page's parts (the whole page in cells, a menu beside the article). Only a data table
is a unit: it is kept or dropped whole, and written as a table. The test follows Mozilla
Readability's data-table heuristic (``role="presentation"`` and nesting mean layout; a caption,
a summary, header markup or enough rows and columns mean data) and adds the shape a table must
have to be voted on as one: every cell a single short block with no heading or code. To be
written as a table, a cell may hold a few short blocks (the lines of one value).
"""

from __future__ import annotations

from collections.abc import Iterable

from grist.document import Block, TableInfo

MAX_CELL_CHARS = 300  # a longer cell is prose laid out in a table (grist's heuristic)
_LAYOUT_ROLES = frozenset(("presentation", "none"))


def table_cells(blocks: Iterable[Block]) -> dict[int, list[Block]]:
    """The cell blocks of each table (by table id), in page order. Blocks of a nested table
    belong to that table, not to the one around it."""
    tables: dict[int, list[Block]] = {}
    for block in blocks:
        if block.cell is not None:
            tables.setdefault(block.cell[0], []).append(block)
    return tables


def cell_contents(cells: list[Block]) -> dict[tuple[int, int], list[Block]] | None:
    """The blocks of each cell by (row, column), or None when the cells cannot form a grid of
    short values (at least two rows and two columns): a cell holds a heading, code, or more
    than ``MAX_CELL_CHARS`` of text."""
    grid: dict[tuple[int, int], list[Block]] = {}
    for block in cells:
        assert block.cell is not None
        if block.heading or block.preformatted:
            return None
        grid.setdefault((block.cell[1], block.cell[2]), []).append(block)
    if any(sum(len(b.text) + 1 for b in held) - 1 > MAX_CELL_CHARS for held in grid.values()):
        return None
    rows = {r for r, _ in grid}
    columns = {c for _, c in grid}
    if len(rows) < 2 or len(columns) < 2:
        return None
    return grid


def looks_like_data(info: TableInfo) -> bool:
    """Readability's test on the table's markup and size (without its shape)."""
    if info.role in _LAYOUT_ROLES or info.nested:
        return False
    if info.summary or info.caption or info.head or info.th:
        return True
    if info.rows <= 1 or info.cols <= 1:
        return False
    return info.rows >= 10 or info.cols > 4 or info.rows * info.cols > 10


def is_data_table(cells: list[Block]) -> bool:
    """Whether the cells (all of one table, each with its ``table`` info) form a data table:
    its markup says so and its cells are short values (``cell_contents``) of one block each."""
    info = cells[0].table if cells else None
    if info is None or not looks_like_data(info):
        return False
    grid = cell_contents(cells)
    return grid is not None and all(len(held) == 1 for held in grid.values())
