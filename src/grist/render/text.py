"""Plain text: the kept blocks' text, paragraphs separated by one blank line.

A data table is written one row per line with its cells separated by a tab (a cell's blocks by
a space), never one cell per paragraph, after its caption's paragraph; a layout table's cells are
ordinary paragraphs, and so are a definition list's terms and definitions. With
``with_metadata`` a front-matter header comes first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grist.render.frontmatter import front_matter
from grist.render.inline import shown_text
from grist.render.layout import Part, layout

if TYPE_CHECKING:  # pragma: no cover
    from grist.render import Extraction, RenderOptions


def render_part(part: Part) -> str:
    """One part as plain text (a list item's parts are paragraphs; a table one row per line)."""
    if part.kind == "list":
        return "\n\n".join(render_part(item.part) for item in part.items)
    if part.kind == "definitions":
        return "\n\n".join(shown_text(block) for entry in part.entries
                             for group in (*entry.terms, *entry.definitions) for block in group)
    if part.kind == "table":
        rows = "\n".join("\t".join(" ".join(b.text for b in cell) for cell in row)
                         for row in part.rows)
        return "\n\n".join(filter(None, (part.text, rows)))
    return part.text


def render(result: Extraction, options: RenderOptions) -> str:
    blocks = result.content_blocks
    if any(b.cell is not None for b in blocks):
        body = "\n\n".join(filter(None, (render_part(p) for p in layout(blocks))))
    else:  # the common case, without grouping
        body = "\n\n".join(filter(None, map(shown_text, blocks)))
    return front_matter(result.metadata) + body if options.with_metadata else body
