"""Cleaned HTML: a minimal page holding only the kept blocks as h1-h6, p, ul/ol/li, table and pre.

All text is escaped; no attribute, script or style of the source page survives.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from grist.render.layout import Part, layout

if TYPE_CHECKING:  # pragma: no cover
    from grist.render import Extraction


def _list(items: list[tuple[int, str, str]]) -> str:
    """Nested lists: each item opens or closes list elements to reach its depth."""
    out: list[str] = []
    open_lists: list[str] = []  # kinds of the lists currently open, outermost first
    base = min(depth for depth, _, _ in items)
    for depth, kind, text in items:
        level = min(depth - base, len(open_lists))
        while len(open_lists) > level + 1:
            out.append(f"</li></{open_lists.pop()}>")
        if len(open_lists) == level + 1:
            if open_lists[-1] == kind:
                out.append("</li>")
            else:
                out.append(f"</li></{open_lists.pop()}>")
        if len(open_lists) == level:
            out.append(f"<{kind}>")
            open_lists.append(kind)
        out.append(f"<li>{escape(text)}")
    while open_lists:
        out.append(f"</li></{open_lists.pop()}>")
    return "".join(out)


def _table(rows: list[list[str]]) -> str:
    head = "".join(f"<th>{escape(c)}</th>" for c in rows[0])
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows[1:]
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def render_part(part: Part) -> str:
    """One part as an HTML element."""
    if part.kind == "heading":
        return f"<h{part.level}>{escape(part.text)}</h{part.level}>"
    if part.kind == "code":
        return f"<pre>{escape(part.text)}</pre>"
    if part.kind == "list":
        return _list(part.items)
    if part.kind == "table":
        return _table(part.rows)
    return f"<p>{escape(part.text)}</p>"


def render(result: Extraction) -> str:
    """The kept blocks as a small standalone HTML page."""
    body = "\n".join(render_part(p) for p in layout(result.content_blocks))
    return (
        '<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8">\n'
        f"<title>{escape(result.title)}</title>\n</head>\n<body>\n<article>\n"
        f"{body}\n</article>\n</body>\n</html>"
    )
