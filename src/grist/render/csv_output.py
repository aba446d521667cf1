"""CSV for batches: one row per page (its input, metadata, text and crawl date) under one header
row.

``render`` gives the header and the page's row; a batch writes the header once
(``grist.io.sinks``). Lists (categories, tags) are joined with "; "; the text keeps its line
breaks inside a quoted field, as RFC 4180 allows. ``date`` is the page's own date (its
metadata's); ``crawl_date`` what its source said (a WARC record's WARC-Date, a JSON line's
``date``: the ``date`` of JSON records), empty when unknown. New columns go at the end: scripts
read the columns by position too.
"""

from __future__ import annotations

import csv
import io
from typing import TYPE_CHECKING

from grist.render.text import render as render_text

if TYPE_CHECKING:  # pragma: no cover
    from grist.render import Extraction, RenderOptions

COLUMNS = ("input", "url", "title", "author", "date", "date_modified", "sitename", "language",
           "page_type", "description", "image", "categories", "tags", "text", "crawl_date")


def _line(values: list[str]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(values)
    return out.getvalue().removesuffix("\n")


def header() -> str:
    """The header row."""
    return _line(list(COLUMNS))


def row(result: Extraction, options: RenderOptions, input_name: str = "",
        crawl_date: str | None = None) -> str:
    """The page's row (``input_name``: how the batch names the page; ``crawl_date``: the date
    its source gave, ``grist.io.sinks.page_fields``)."""
    fields = result.metadata.as_dict()
    fields["input"], fields["crawl_date"] = input_name, crawl_date
    fields["url"] = fields["url"] or result.url
    fields["text"] = render_text(result, options.__class__())
    values = []
    for column in COLUMNS:
        value = fields.get(column)
        values.append("; ".join(value) if isinstance(value, list) else value or "")
    return _line(values)


def with_input(rendered: str, input_name: str, *, header: bool) -> str:
    """A page's rendered CSV (header and row) with its ``input`` set, the header kept only when
    asked (a batch rendered elsewhere, e.g. by worker processes)."""
    rows = list(csv.reader(io.StringIO(rendered)))
    rows[-1][0] = input_name
    return "\n".join(_line(r) for r in (rows if header else rows[-1:]))


def render(result: Extraction, options: RenderOptions, *, crawl_date: str | None = None) -> str:
    """The header and the page's row."""
    return header() + "\n" + row(result, options, crawl_date=crawl_date)
