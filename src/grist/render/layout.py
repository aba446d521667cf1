"""Group a page's kept blocks into the structures the renderers write.

Blocks are flat; renderers need headings, runs of list items, data tables, code and quotes. A run
of consecutive kept table cells is written as a table only when its table is a data table
(``grist.segment.tables``: markup and size, and a grid of short cells); the cells of a layout
table are laid out like the rest of the page. A run of list blocks keeps what a ``li`` holds in
its item: further paragraphs, headings, code, tables, and blockquotes (whether a quote is inside
an item or around its list, and a table inside an item or a list inside a cell, is read from the
block's path). A ``caption`` of a data table is the table's, before its cells or after them (a
browser's parser keeps a ``caption`` written after the rows where it stands). A run of
consecutive kept terms and definitions (``dt``, ``dd``) of one definition list (``dl``: the
segmenter's ``Block.definition``) is a definition list, also in a list item. Parts hold the blocks
themselves, so a renderer can write their inline markup (links, images, emphasis).

The images that stood alone are placed before layout, by ``grist.render.placement``.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass, field
from operator import attrgetter

from grist.document import Block
from grist.render.inline import shown_text
from grist.segment.tables import cell_contents, looks_like_data

# Slots a table's spanning cells may cover, summed over them (overlapping ones included): past it
# the other cells are written one slot each, so a hostile table stays cheap to write.
MAX_SPANNED_SLOTS = 100_000
# Lists nested deeper than this are written at this depth: real pages nest a few levels, hostile
# ones thousands, and a renderer's nested elements (TEI's list in item in list) must stay few.
MAX_LIST_NESTING = 32
_LISTS = frozenset(("ol", "ul"))
_CELLS = frozenset(("td", "th"))
_DEFINED = frozenset(("dt", "dd"))
# elements inside a term or definition whose blocks are written as parts of their own (a list,
# a table, a quote, code), not in the definition list
_OUT_OF_DEFINITIONS = frozenset(("ul", "ol", "li", "table", "td", "th", "caption", "blockquote",
                                 "pre"))


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
    heading, paragraph, code, table or definitions ``Part``).
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


def list_items(blocks: list[Block]) -> list[Item]:
    """The list blocks of a run as ``Item``s: where each list opens, each item begins, and the
    blockquotes inside items open and close."""
    low = min(b.list_depth for b in blocks)
    levels: list[_Level] = []
    open_count = 0  # the containers open: per level its list, its item and their quotes
    items = []
    for block, part in _item_parts(blocks):
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


def _item_parts(blocks: list[Block]) -> list[tuple[Block, Part]]:
    """What a run's list items hold, each with the block that places it in its list: a data
    table inside an item (with its caption) is one table placed by its outermost block (a list
    inside a cell is not the table's place), a definition list inside an item one definitions
    part placed by its first block, the other blocks are parts of their own."""
    parts = []
    i = 0
    while i < len(blocks):
        j = _table_end(blocks, i)
        table = (_table_part(blocks[i:j]) if j > i and _lists_around_table(blocks[j - 1])
                 else None)
        if table is not None:
            parts.append((min(blocks[i:j], key=attrgetter("list_depth")), table[0]))
            parts += [(block, _single(block)) for block in table[1]]
        elif blocks[i].cell is None and _defined(blocks[i]):
            j = _definitions_end(blocks, i, lambda block: block.cell is None)
            parts += _definitions_parts(blocks[i:j])
        else:
            j = max(j, i + 1)
            parts += [(block, _single(block)) for block in blocks[i:j]]
        i = j
    return parts


@dataclass(frozen=True)
class Entry:
    """A definition list's entry: its ``terms`` (``dt``) and the ``definitions`` (``dd``) that
    follow them, each as its blocks in page order (a ``dd`` holding paragraphs has several).
    An entry of a definitions part has both (``_definitions_parts``)."""

    terms: tuple[tuple[Block, ...], ...]
    definitions: tuple[tuple[Block, ...], ...]


@dataclass(frozen=True)
class Part:
    """One rendered unit: ``kind`` is heading, paragraph, code, list, table or definitions.

    heading/paragraph/code hold their ``block`` (and ``level`` for headings); a list holds its
    ``items`` (``Item``); a table holds its ``rows`` of ``Cell``s (the cell's blocks; none for
    an empty slot or one a spanning cell covers), the first row being the header, and
    ``table_spans``, and its caption's ``block`` when it has one; a definition list holds its
    ``entries`` (``Entry``).
    ``quote`` is how many blockquotes enclose the part (a list's: those around the list, not
    the ones inside its items).
    """

    kind: str
    block: Block | None = None
    level: int = 0
    items: list[Item] = field(default_factory=list)
    rows: list[list[Cell]] = field(default_factory=list)
    quote: int = 0
    entries: list[Entry] = field(default_factory=list)

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


def table_rows(run: list[Block]) -> list[list[Cell]] | None:
    """The rows of a run of cells from one table, or None when it is a layout table (by its
    markup, or cells that are not short values: ``cell_contents``). Cells without table markup
    (built by hand) are judged by their shape, that of the cells with text: an image that stood
    alone in a cell (``written_blocks``) is written in it, its row or column even when it holds
    no text, but makes no table a data table."""
    if not run:  # (a late caption whose table's cells were all dropped)
        return None
    info = run[0].table
    if info is not None and not looks_like_data(info):
        return None
    if cell_contents([block for block in run if block.text]) is None:
        return None
    grid: dict[tuple[int, int], list[Block]] = {}
    for block in run:
        grid.setdefault((block.cell[1], block.cell[2]), []).append(block)
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
    out like the rest of the page, so lists and headings in them keep their structure. A table
    inside a list item is written in its list.
    """
    parts: list[Part] = []
    i, n = 0, len(blocks)
    while i < n:
        block = blocks[i]
        j = i if in_layout_table else _table_end(blocks, i)
        if j > i and not _lists_around_table(blocks[j - 1]):
            table = _table_part(blocks[i:j])
            parts += ([table[0], *map(_single, table[1])] if table
                      else layout(blocks[i:j], in_layout_table=True))
        elif _is_item(block):
            quote = _outer_quotes(block)
            j = i + 1
            while (j < n and _is_item(blocks[j]) and _outer_quotes(blocks[j]) == quote
                   and (in_layout_table or blocks[j].cell is None
                        or _lists_around_table(blocks[j]))):
                j += 1
            parts.append(Part("list", items=list_items(blocks[i:j]), quote=quote))
        elif _defined(block):
            j = _definitions_end(blocks, i, lambda b: in_layout_table or b.cell is None)
            parts += [part for _, part in _definitions_parts(blocks[i:j])]
        else:
            j = i + 1
            parts.append(_single(block))
        i = j
    return parts


def _defined(block: Block) -> str:
    """``dt`` or ``dd`` when the block is written in a definition list: a term or definition of
    the innermost ``dl`` around it (``Block.definition``; also inside ``div``s grouping them, as
    HTML allows and pages nest) holds it and no list, table, quote or code inside that ``dl``
    does (those are parts of their own: only the path names them); "" when there is none, or
    the block is a heading or code."""
    if block.definition is None or block.heading or block.preformatted:
        return ""
    tags = block.path.split(">")
    if "dl" not in tags:  # (a path cut short, PATH_DEPTH, may not reach its dl)
        return ""
    inside = tags[len(tags) - tags[::-1].index("dl") :]
    kind = next((tag for tag in inside if tag in _DEFINED), "")
    return kind if _OUT_OF_DEFINITIONS.isdisjoint(inside) else ""


def _definitions_end(blocks: list[Block], i: int, fits: Callable[[Block], bool]) -> int:
    """Where the run of blocks of the definition list of ``blocks[i]`` ends: past the
    consecutive blocks written in that ``dl`` (``_defined``) that ``fits`` (no table cell, but
    in a layout table). Another ``dl`` beside it, even with the same path, is a list of its
    own."""
    here = blocks[i].definition[0]
    j = i + 1
    while (j < len(blocks) and fits(blocks[j]) and _defined(blocks[j])
           and blocks[j].definition[0] == here):
        j += 1
    return j


def _definitions_parts(run: list[Block]) -> list[tuple[Block, Part]]:
    """A run of a definition list's blocks (``_definitions_end``) as parts, each with the block
    that places it: definitions parts of its entries (``_entries``), and the blocks of an entry
    that lacks a term or a definition as parts of their own, as they were before (a lone
    ``dd``, an indent in wiki markup, or a term whose definition the method dropped: HTML and
    TEI pair every term with a definition, and an empty one would say there is none)."""
    parts: list[tuple[Block, Part]] = []
    whole: list[Entry] = []
    for entry in _entries(run):
        if entry.terms and entry.definitions:
            whole.append(entry)
            continue
        if whole:
            parts.append(_definitions(whole))
            whole = []
        parts += [(block, _single(block)) for group in entry.terms + entry.definitions
                  for block in group]
    if whole:
        parts.append(_definitions(whole))
    return parts


def _definitions(entries: list[Entry]) -> tuple[Block, Part]:
    """Whole entries as a definitions part, placed by their first block."""
    first = entries[0].terms[0][0]
    return first, Part("definitions", entries=entries, quote=first.quote_depth)


def _entries(run: list[Block]) -> list[Entry]:
    """A run of a definition list's blocks as its entries: the blocks of one ``dt`` or ``dd``
    (``Block.definition``: a ``dd`` holding paragraphs) are one term or definition, and the
    next ``dt`` or ``dd`` begins another (two ``dd`` each holding a ``p`` are two definitions,
    though their blocks' paths are the same); a term after a definition begins an entry, and so
    does a term or definition after one of its kind with a ``dt`` or ``dd`` of which nothing is
    written between (an empty ``dd`` parts two terms, a dropped term two definitions; between a
    term and a definition either leaves them one entry's)."""
    entries: list[Entry] = []
    terms: list[list[Block]] = []
    definitions: list[list[Block]] = []
    previous: tuple | None = None
    for block in run:
        kind = _defined(block)
        skipped = (previous is not None and previous[0] == kind and block.definition is not None
                   and previous[1] is not None and block.definition[1] > previous[1][1] + 1)
        if (kind == "dt" and definitions) or (skipped and (terms or definitions)):
            entries.append(Entry(tuple(map(tuple, terms)), tuple(map(tuple, definitions))))
            terms, definitions = [], []
        group = terms if kind == "dt" else definitions
        if (kind, block.definition) != previous:
            group.append([])
        group[-1].append(block)
        previous = kind, block.definition
    entries.append(Entry(tuple(map(tuple, terms)), tuple(map(tuple, definitions))))
    return entries


def data_tables(kept: list[Block]) -> set[int]:
    """The tables whose kept cells are written as a data table (``table_rows``)."""
    tables = set()
    i = 0
    while i < len(kept):
        j = _table_end(kept, i)
        if j > i and table_rows(_caption(kept[i:j])[1]) is not None:
            tables.add(kept[j - 1].cell[0])
        i = max(j, i + 1)
    return tables


def _is_item(block: Block) -> bool:
    """A block written as (part of) a list item: in a list, and not code outside its items (a
    heading in an item, an award list's name or a product card's, stays in its item, and so
    does a tutorial step's code)."""
    return bool(block.list_kind) and (not block.preformatted or bool(block.list_item
                                                                     and block.list_item[1]))


def _lists_around_table(cell: Block) -> int:
    """How many lists enclose a cell's table: the cell's lists but those its path names inside
    the cell (a table in a list item is written in the item, a list in a cell in the cell), or
    inside the table's ``caption`` for a block of a caption after the rows (``_caption``)."""
    tags = cell.path.split(">")
    inner = next((i for i in range(len(tags) - 1, -1, -1)
                  if tags[i] in _CELLS or tags[i] == "caption"), -1)
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


def _table_part(run: list[Block]) -> tuple[Part, list[Block]] | None:
    """A table run (``_table_end``) as a table part and the blocks of its caption written after
    it as paragraphs (``_caption``), or None when it is a layout table."""
    caption, cells, after = _caption(run)
    rows = table_rows(cells)
    if rows is None:
        return None
    return Part("table", caption, rows=rows, quote=cells[0].quote_depth), after


def _caption(run: list[Block]) -> tuple[Block | None, list[Block], list[Block]]:
    """A table run's caption, its cells, and the blocks of a caption that came after the rows
    and cannot be the table's. The segmenter gives the blocks of such a late ``caption`` the
    place of the cell before it; its path (the table's ``caption`` past its innermost
    ``table``) tells them apart. A late caption of one block is the table's when the table has
    none before its rows; else they are written after the table."""
    first = run[0] if run[0].cell is None else None
    rest = run[1:] if first else run
    late = [block for block in rest if _in_late_caption(block)]
    if not late:
        return first, rest, []
    cells = [block for block in rest if not _in_late_caption(block)]
    if first is None and len(late) == 1 and late[0].tag == "caption":
        return late[0], cells, []
    return first, cells, late


def _in_late_caption(block: Block) -> bool:
    """Whether a block of a table's run (with a cell) is in the table's ``caption``."""
    tags = block.path.split(">")
    return ("caption" in tags and "table" in tags
            and tags[len(tags) - tags[::-1].index("table"):][:1] == ["caption"])
