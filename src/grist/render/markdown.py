"""Markdown: headings, lists, pipe tables and fenced code from the kept blocks; text escaped.

Ordinary text has the CommonMark special characters backslash-escaped, plus a leading ``-``,
``+``, ``=``, ``~`` or ``1.``/``1)`` that would otherwise start a list, a rule or a fence.
Code keeps its whitespace and is never escaped; its fence is longer than any backtick run inside.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from grist.render.layout import Part, layout

if TYPE_CHECKING:  # pragma: no cover
    from grist.render import Extraction

_SPECIAL = re.compile(r"([\\*_\[\]#<>|`])")
_LEADING_MARK = re.compile(r"^([-+=~])")
_LEADING_NUMBER = re.compile(r"^(\d{1,9})([.)])(?=\s|$)")
_BACKTICKS = re.compile(r"`{3,}")
_INDENT = "    "  # four spaces nest a list item under both "- " and "1. " markers


def escape_inline(text: str) -> str:
    """Escape the characters Markdown treats specially anywhere in a line."""
    return _SPECIAL.sub(r"\\\1", text)


def escape(text: str) -> str:
    """Escape ``text`` so Markdown shows it literally at the start of a line."""
    text = _LEADING_MARK.sub(r"\\\1", escape_inline(text))
    return _LEADING_NUMBER.sub(r"\1\\\2", text)


def _code(text: str) -> str:
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=2)
    fence = "`" * (longest + 1)
    return f"{fence}\n{text}\n{fence}"


def _list(items: list[tuple[int, str, str]]) -> str:
    lines = []
    levels: list[list] = []  # per nesting level: [list kind, items numbered so far]
    base = min(depth for depth, _, _ in items)
    for depth, kind, text in items:
        level = min(depth - base, len(levels))  # never skip a level: it would become code
        del levels[level + 1 :]
        if len(levels) == level or levels[level][0] != kind:
            levels[level:] = [[kind, 0]]
        levels[level][1] += 1
        marker = f"{levels[level][1]}." if kind == "ol" else "-"
        lines.append(f"{_INDENT * level}{marker} {escape(text)}")
    return "\n".join(lines)


def _cell(text: str) -> str:
    return escape_inline(text.replace("\n", " ")) or " "


def _table(rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    lines.insert(1, "|" + "|".join(" --- " for _ in rows[0]) + "|")
    return "\n".join(lines)


def render_part(part: Part) -> str:
    """One part as Markdown."""
    if part.kind == "heading":
        return "#" * part.level + " " + escape_inline(part.text)
    if part.kind == "code":
        return _code(part.text)
    if part.kind == "list":
        return _list(part.items)
    if part.kind == "table":
        return _table(part.rows)
    return escape(part.text)


def render(result: Extraction) -> str:
    """The kept blocks as Markdown, parts separated by a blank line."""
    return "\n\n".join(render_part(p) for p in layout(result.content_blocks))
