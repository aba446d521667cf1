"""Data tables and layout tables, told apart from what the segmenter recorded.

A *data table* holds rows of values (a price list, a size guide, a timetable); a *layout table*
positions a page's parts (the whole page in cells, a menu beside the article). Only a data table
is a unit: it is kept or dropped whole, and written as a table. The test follows Mozilla
Readability's data-table heuristic (``role="presentation"`` and nesting mean layout; a caption,
a summary, header markup or enough rows and columns mean data) and adds the shape a table must
have to be written as one: every cell a single short block with no heading or code.
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


def cell_grid(cells: list[Block]) -> dict[tuple[int, int], Block] | None:
    """The cells by (row, column), or None when the cells cannot form a grid of short values:
    a cell holds several blocks, a heading, code, or a long text."""
    grid: dict[tuple[int, int], Block] = {}
    for block in cells:
        assert block.cell is not None
        key = (block.cell[1], block.cell[2])
        if key in grid or block.heading or block.preformatted or len(block.text) > MAX_CELL_CHARS:
            return None
        grid[key] = block
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
    """Whether the cells (all of one table, each with its ``table`` info) form a data table."""
    info = cells[0].table if cells else None
    return info is not None and looks_like_data(info) and cell_grid(cells) is not None
