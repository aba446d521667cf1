"""What entering and leaving an element changes in the context the segmenter records on blocks.

A dispatch table per tag (``ENTER``, ``LEAVE``): the walk in ``grist.segment.blocks`` looks a
tag up once per page, and most elements need nothing. The handlers keep the open lists and
definition lists, headings, tables (with what a data-table test reads, ``TableInfo``),
blockquotes, ``pre`` and its code language, links and inline markup (``grist.segment.inline``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from grist.document import TableInfo
from grist.segment.inline import CLOSE, INLINE_KINDS, MAX_OPEN_INLINE, OPEN, POINT, code_language

if TYPE_CHECKING:  # pragma: no cover
    from grist.segment.blocks import _BlockBuilder, _Open

# Containers that open a new region (seed 001's DIV/TD blocks, generalised to HTML5 sections).
REGION_TAGS = frozenset((
    "div", "td", "th", "table", "section", "article", "aside", "nav", "header", "footer", "main",
    "form",
))

HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}


def _enter_region(b: _BlockBuilder, o: _Open, tag: str, node) -> None:
    b.region_count += 1
    o.regions.append(b.region_count)


def _leave_region(b: _BlockBuilder, o: _Open, tag: str) -> None:
    o.regions.pop()


def _enter_link(b: _BlockBuilder, o: _Open, tag: str, node) -> None:
    o.anchors += 1
    if not o.pre:  # links do not nest (the tree builder closes an open one): no stack needed
        b.link = node
        b.marks.append((len(b.pieces), "link", node, OPEN))


def _leave_link(b: _BlockBuilder, o: _Open, tag: str) -> None:
    o.anchors -= 1
    if not o.pre:
        b.link = None
        b.marks.append((len(b.pieces), "link", None, CLOSE))


def _enter_inline(b: _BlockBuilder, o: _Open, tag: str, node) -> None:
    """Emphasis, code, deletion open a span; in ``pre`` only a ``code``'s language matters."""
    if not o.pre:
        if len(b.open_marks) >= MAX_OPEN_INLINE:
            b.unmarked += 1
            return
        kind = INLINE_KINDS[tag]
        b.open_marks.append((kind, None))
        b.marks.append((len(b.pieces), kind, None, OPEN))
    elif tag == "code":
        langs = o.code_languages
        langs.append(code_language(node.attributes) or (langs[-1] if langs else ""))


def _leave_inline(b: _BlockBuilder, o: _Open, tag: str) -> None:
    if not o.pre:
        if b.unmarked:  # the walk leaves elements in the reverse order it entered them
            b.unmarked -= 1
            return
        b.close_mark(INLINE_KINDS[tag])
    elif tag == "code":
        o.code_languages.pop()


def _enter_image(b: _BlockBuilder, o: _Open, tag: str, node) -> None:
    """An image stands where it is in its block; before any text, it may stand in a block
    without text (``_BlockBuilder.loose``)."""
    b.marks.append((len(b.pieces), "image", node, POINT))
    if b.start is None:
        b.loose.append((node, b.link))


def _enter_pre(b: _BlockBuilder, o: _Open, tag: str, node) -> None:
    o.pre += 1
    o.code_languages.append(code_language(node.attributes))


def _leave_pre(b: _BlockBuilder, o: _Open, tag: str) -> None:
    o.pre -= 1
    o.code_languages.pop()


def _enter_heading(b: _BlockBuilder, o: _Open, tag: str, node) -> None:
    o.headings.append(HEADINGS[tag])


def _leave_heading(b: _BlockBuilder, o: _Open, tag: str) -> None:
    o.headings.pop()


# HTML's rules for parsing integers: spaces, a sign, digits; whatever follows is ignored.
_INTEGER = re.compile(r"[\t\n\f\r ]*([-+]?)([0-9]+)")
_INTEGER_DIGITS = 10  # a longer number is out of a 32-bit integer's range: not read


def html_integer(value: str | None) -> int | None:
    """An attribute's integer as HTML reads it (``" 3rd"`` is 3), or None when it holds none
    or one out of a 32-bit integer's range (browsers then ignore the attribute)."""
    found = _INTEGER.match(value) if value else None
    if found is None or len(found[2].lstrip("0")) > _INTEGER_DIGITS:
        return None
    number = int(found[1] + found[2])
    return number if -2**31 <= number < 2**31 else None


def list_numbering(node) -> tuple[int, int]:
    """What an ``ol``'s first item shows and the step to the next: ``start`` (else 1) counting
    up, or for a ``reversed`` list, counting down from ``start`` (else its number of items)."""
    attrs = node.attributes
    step = -1 if "reversed" in attrs else 1
    start = html_integer(attrs.get("start"))
    if start is None:
        start = 1 if step == 1 else sum(child.tag == "li" for child in node.iter())
    return start, step


def item_value(node) -> int | None:
    """The number an ``li`` of an ``ol`` says it shows (``value``), if it says one."""
    return html_integer(node.attributes.get("value"))


def _enter_list(b: _BlockBuilder, o: _Open, tag: str, node) -> None:
    o.lists.append(tag)
    b.list_count += 1
    start, step = list_numbering(node) if tag == "ol" else (1, 1)
    o.items.append([b.list_count, start, step, 0, 0])


def _leave_list(b: _BlockBuilder, o: _Open, tag: str) -> None:
    o.lists.pop()
    o.items.pop()


def _enter_item(b: _BlockBuilder, o: _Open, tag: str, node) -> None:
    """An ``li`` of the innermost open list takes its number (an ``li`` outside lists none)."""
    if o.items:
        item = o.items[-1]
        value = item_value(node) if o.lists[-1] == "ol" else None
        number = item[1] if value is None else value
        b.item_count += 1
        item[1] = number + item[2]
        item[3:] = b.item_count, number


def _leave_item(b: _BlockBuilder, o: _Open, tag: str) -> None:
    if o.items:  # text after it and before the next li is in the list, in no item
        o.items[-1][3:] = 0, 0


def _enter_definition_list(b: _BlockBuilder, o: _Open, tag: str, node) -> None:
    b.definition_list_count += 1
    o.definitions.append([b.definition_list_count, 0, 0])


def _leave_definition_list(b: _BlockBuilder, o: _Open, tag: str) -> None:
    o.definitions.pop()


def _enter_defined(b: _BlockBuilder, o: _Open, tag: str, node) -> None:
    """A ``dt`` or ``dd`` is the next of the innermost open ``dl`` (one outside lists none)."""
    if o.definitions:
        definitions = o.definitions[-1]
        definitions[1] += 1
        definitions[2] = definitions[1]


def _leave_defined(b: _BlockBuilder, o: _Open, tag: str) -> None:
    if o.definitions:  # text after it and before the next dt or dd is in the list, in neither
        o.definitions[-1][2] = 0


def _enter_quote(b: _BlockBuilder, o: _Open, tag: str, node) -> None:
    o.quotes += 1


def _leave_quote(b: _BlockBuilder, o: _Open, tag: str) -> None:
    o.quotes -= 1


def new_table(table_id: int, node) -> TableInfo:
    """What a ``<table>`` element says of itself when it opens: its ``role`` and ``summary``."""
    attrs = node.attributes
    return TableInfo(table_id, role=(attrs.get("role") or "").lower(),
                     summary=bool(attrs.get("summary")))


def _enter_table(b: _BlockBuilder, o: _Open, tag: str, node) -> None:
    b.table_count += 1
    info = new_table(b.table_count, node)
    if o.tables:
        o.tables[-1][3].nested = True
    # id, row, cell in the row, info, column in the grid, next free column, {column: last row
    # taken}, rows and columns the cell spans
    o.tables.append([b.table_count, -1, -1, info, -1, 0, None, 1, 1])
    _enter_region(b, o, tag, node)


def _leave_table(b: _BlockBuilder, o: _Open, tag: str) -> None:
    o.tables.pop()
    o.regions.pop()


def _enter_row(b: _BlockBuilder, o: _Open, tag: str, node) -> None:
    if o.tables:
        table = o.tables[-1]
        table[1] += 1
        table[2] = -1
        table[5] = 0
        table[3].rows += 1


_SPANS = frozenset(("rowspan", "colspan"))
_MAX_ROWSPAN, _MAX_COLSPAN = 65534, 1000  # HTML's own limits
# Columns the cells of a page spanning rows may take, plus the taken slots its cells may skip;
# past them a cell spans one row and skips nothing: placing cells stays cheap on hostile pages.
MAX_SPAN_SLOTS = 100_000


def cell_spans(node) -> tuple[int, int]:
    """How many rows and columns a ``td``/``th`` covers, by HTML's ``rowspan`` and ``colspan``
    (at most 65534 and 1000; a ``rowspan`` of 0, to the end of the row group, counts as 1)."""
    attrs = node.attributes
    if _SPANS.isdisjoint(attrs):
        return 1, 1
    rows, columns = html_integer(attrs.get("rowspan")), html_integer(attrs.get("colspan"))
    return (min(rows, _MAX_ROWSPAN) if rows is not None and rows > 0 else 1,
            min(columns, _MAX_COLSPAN) if columns is not None and columns > 0 else 1)


def _enter_cell(b: _BlockBuilder, o: _Open, tag: str, node) -> None:
    """A cell: the next in its row (``TableInfo.cols`` counts cells) and, placed as a browser
    lays the table out, the first column not taken by a cell spanning rows from above."""
    if o.tables:
        table = o.tables[-1]
        table[2] += 1
        info = table[3]
        info.cols = max(info.cols, table[2] + 1)
        if tag == "th":
            info.th += 1
        rows, columns = cell_spans(node)
        column, taken, row = table[5], table[6], table[1]
        if taken:
            while b.span_slots and taken.get(column, -1) >= row:
                column += 1
                b.span_slots -= 1
        table[4], table[5] = column, column + columns
        table[7], table[8] = 1, columns
        if rows > 1 and columns <= b.span_slots:
            table[7] = rows
            b.span_slots -= columns
            if taken is None:
                taken = table[6] = {}
            last = row + rows - 1
            for taken_column in range(column, column + columns):
                if taken.get(taken_column, -1) < last:
                    taken[taken_column] = last
    _enter_region(b, o, tag, node)


def _enter_table_part(b: _BlockBuilder, o: _Open, tag: str, node) -> None:
    """A caption, or header markup (thead, tfoot, colgroup, col): signs of a data table."""
    if o.tables:
        if tag == "caption":
            o.tables[-1][3].caption = True
        else:
            o.tables[-1][3].head = True


ENTER = {
    **{tag: _enter_region for tag in REGION_TAGS},
    **{tag: _enter_inline for tag in INLINE_KINDS},
    **{tag: _enter_heading for tag in HEADINGS},
    **{tag: _enter_table_part for tag in ("caption", "thead", "tfoot", "colgroup", "col")},
    "a": _enter_link, "img": _enter_image, "pre": _enter_pre, "ul": _enter_list,
    "ol": _enter_list, "blockquote": _enter_quote, "table": _enter_table, "tr": _enter_row,
    "td": _enter_cell, "th": _enter_cell, "li": _enter_item, "dl": _enter_definition_list,
    "dt": _enter_defined, "dd": _enter_defined,
}
LEAVE = {
    **{tag: _leave_region for tag in REGION_TAGS},
    **{tag: _leave_inline for tag in INLINE_KINDS},
    **{tag: _leave_heading for tag in HEADINGS},
    "a": _leave_link, "pre": _leave_pre, "ul": _leave_list, "ol": _leave_list,
    "blockquote": _leave_quote, "table": _leave_table, "li": _leave_item,
    "dl": _leave_definition_list, "dt": _leave_defined, "dd": _leave_defined,
}

# The handlers as the compiled walk (``grist.segment._walk``) numbers them: it runs the same
# steps in C for the tag whose handler is given here.
HANDLER_CODES = {
    None: 0, _enter_region: 1, _leave_region: 1, _enter_link: 2, _leave_link: 2, _enter_inline: 3,
    _leave_inline: 3, _enter_image: 4, _enter_pre: 5, _leave_pre: 5, _enter_heading: 6,
    _leave_heading: 6, _enter_list: 7, _leave_list: 7, _enter_quote: 8, _leave_quote: 8,
    _enter_table: 9, _leave_table: 9, _enter_row: 10, _enter_cell: 11, _enter_table_part: 12,
    _enter_item: 13, _leave_item: 13, _enter_definition_list: 14, _leave_definition_list: 14,
    _enter_defined: 15, _leave_defined: 15,
}
