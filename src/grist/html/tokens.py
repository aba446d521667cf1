"""The HTML tokenizer's view of tags, comments and raw text, at the level the tree builder needs.

``TAG_BODY`` matches a whole tag after its ``<`` or ``</`` exactly where the WHATWG tokenizer
ends it (quoted attribute values may hold ``>`` and ``<``); ``skip_declaration`` passes comments,
doctypes, CDATA sections and bogus comments; ``raw_text_end`` finds where the content of
``script``, ``style``, ``textarea``, ``title``, ``xmp``, ``iframe``, ``noembed`` and
``noframes`` ends (script's escaped and double-escaped states included). Every search moves
forward and no pattern backtracks, so a page is scanned in linear time.
"""

from __future__ import annotations

import re

# What follows a tag's name: its attributes (values quoted or not), then the separators before ">".
# Possessive runs: the match never backtracks, and it fails only at the end of the input.
TAG_REST = (
    r"((?:[\t\n\f\r /]*+[^\t\n\f\r />][^\t\n\f\r />=]*+"
    r"(?:[\t\n\f\r ]*+=[\t\n\f\r ]*+(?:\"[^\"]*+\"|'[^']*+'|[^\t\n\f\r >]*+))?)*+)"
    r"([\t\n\f\r /]*+)>"
)
# A tag after "<" or "</": 2 name, 3 attributes, 4 separators before ">".
TAG_BODY = r"([a-zA-Z][^\t\n\f\r />]*+)" + TAG_REST
RCDATA = frozenset(("title", "textarea"))
RAWTEXT = frozenset(("style", "xmp", "iframe", "noembed", "noframes"))
# The tokenizer folds ASCII letters only ("ſcript" is no script): re.ASCII.
_RAW_END = {name: re.compile(rf"</{name}[\t\n\f\r />]", re.IGNORECASE | re.ASCII)
            for name in (*RCDATA, *RAWTEXT, "script")}
_SCRIPT_MARK = re.compile(r"<!--|-->|<(/?)script[\t\n\f\r />]", re.IGNORECASE | re.ASCII)
_COMMENT_END = re.compile(r"--!?>")
_DASHES_END = re.compile(r"-*>")


def _past(source: str, mark: str, start: int) -> int:
    """The position after the next ``mark`` (the end of the input when there is none)."""
    found = source.find(mark, start)
    return len(source) if found < 0 else found + len(mark)


def skip_declaration(source: str, at: int, foreign: bool) -> int:
    """The end of the comment, CDATA section (in ``foreign`` content), doctype, bogus comment or
    nameless end tag that starts at ``at`` (the end of the input when it is never closed)."""
    if source.startswith("<!--", at):
        for empty in ("<!-->", "<!--->"):
            if source.startswith(empty, at):
                return at + len(empty)
        found = _COMMENT_END.search(source, at + 4)
        return len(source) if found is None else found.end()
    if foreign and source.startswith("<![CDATA[", at):
        return _past(source, "]]>", at + 9)
    return _past(source, ">", at + 2)


def raw_text_end(source: str, pos: int, name: str) -> int:
    """Where the raw content of element ``name`` that starts at ``pos`` ends (the position of its
    end tag's ``<``), or the length of the input when it is never closed."""
    if name != "script":
        found = _RAW_END[name].search(source, pos)
        return len(source) if found is None else found.start()
    escaped = double = False
    for mark in _SCRIPT_MARK.finditer(source, pos):
        text = mark.group(0)
        if text == "<!--":
            if _DASHES_END.match(source, mark.end()):  # "<!-->" ends any escape at once
                escaped = double = False
            elif not double:  # script data enters the escape; an escaped one stays
                escaped = True
        elif text == "-->":
            escaped = double = False
        elif mark.group(1):  # </script
            if not double:
                return mark.start()
            double = False
        elif escaped:  # <script inside an escaped script starts the double escape
            double = True
    return len(source)
