"""Group a page's kept blocks into the structures the Markdown and HTML renderers write.

Blocks are flat; renderers need headings, runs of list items, data tables and code. A run of
consecutive kept table cells is a *data table* only when it looks like one (two or more rows and
columns, each cell one short block with no heading, list or code inside); otherwise it is a layout
table, whose cells are written as ordinary paragraphs. The cell-length cap is grist's heuristic.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from grist.document import Block

MAX_CELL_CHARS = 300


@dataclass(frozen=True)
class Part:
    """One rendered unit: ``kind`` is heading, paragraph, code, list or table.

    heading/paragraph/code use ``text`` (and ``level`` for headings); a list holds its items as
    ``(depth, kind, text)`` with kind ``ul`` or ``ol``; a table holds its ``rows`` of cell texts,
    the first row being the header.
    """

    kind: str
    text: str = ""
    level: int = 0
    items: list[tuple[int, str, str]] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)


def _single(block: Block) -> Part:
    if block.preformatted:
        return Part("code", block.text)
    if block.heading:
        return Part("heading", block.text, level=block.heading)
    return Part("paragraph", block.text)


def _table_rows(run: list[Block]) -> list[list[str]] | None:
    """The rows of a run of cells from one table, or None when it is a layout table."""
    cells: dict[tuple[int, int], str] = {}
    for block in run:
        assert block.cell is not None
        key = (block.cell[1], block.cell[2])
        if (
            key in cells
            or block.heading
            or block.list_kind
            or block.preformatted
            or len(block.text) > MAX_CELL_CHARS
        ):
            return None
        cells[key] = block.text
    rows = sorted({r for r, _ in cells})
    columns = sorted({c for _, c in cells})
    if len(rows) < 2 or len(columns) < 2:
        return None
    return [[cells.get((r, c), "") for c in columns] for r in rows]


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
            rows = _table_rows(blocks[i:j])
            if rows is None:
                parts.extend(layout(blocks[i:j], in_layout_table=True))
            else:
                parts.append(Part("table", rows=rows))
        elif _is_item(block):
            while j < n and _is_item(blocks[j]) and (in_layout_table or blocks[j].cell is None):
                j += 1
            items = [(b.list_depth, b.list_kind, b.text) for b in blocks[i:j]]
            parts.append(Part("list", items=items))
        else:
            parts.append(_single(block))
        i = j
    return parts


def _is_item(block: Block) -> bool:
    return bool(block.list_kind) and not block.preformatted and not block.heading
