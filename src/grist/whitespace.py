"""Whitespace-separated tokens (those of ``str.split()``; ideographs are words of their own) of
texts of any size.

``str.split()`` on a 20 MB block builds a list of millions of strings (hundreds of megabytes);
above ``HUGE_TEXT`` characters these functions work a chunk at a time, cut at whitespace so no
token is split, and give the same results.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from grist.features.chars import TOKEN_CUT, TOKEN_RE, may_hold_ideographs, split_words

HUGE_TEXT = 1 << 20  # characters from which a text is handled a chunk at a time
_SPACE = re.compile(r"\s")  # in str patterns, \s is exactly str.isspace()


def space_chunks(text: str, cut: re.Pattern[str] = _SPACE) -> Iterator[str]:
    """``text`` in consecutive pieces of about ``HUGE_TEXT`` characters, each cut just before
    a whitespace character, or whatever ``cut`` finds (a text without one is one piece)."""
    start = 0
    while start < len(text):
        found = cut.search(text, start + HUGE_TEXT)
        stop = found.start() if found else len(text)
        yield text[start:stop]
        start = stop


# Characters a browser does not draw and that only tell it where it may break a line (soft
# hyphen, zero-width space, word joiner), are a stray byte-order mark, or are C0 control
# characters other than whitespace (ESC, BEL, NUL) and DEL: dropped from a block's text, as a
# reader copying it would not know they are there ("extra\xadordinary" is one word), and so that
# no terminal escape sequence reaches a reader's terminal. The joiners that change how letters
# are drawn (ZWJ, ZWNJ) are part of the text and stay.
CONTROLS = "".join(chr(c) for c in (*range(0x20), 0x7F) if not chr(c).isspace())
# The C1 controls (U+0080-U+009F) in a page's text are nearly always windows-1252 bytes read as
# Latin-1 ("we\x92re", "York\x97Union"): they become the characters windows-1252 has there, as
# HTML maps the character references &#128;-&#159; (``we’re``, ``York—Union``); the five it
# leaves undefined are dropped, and NEL (U+0085), whitespace to Python, stays whitespace.
_C1 = {c: bytes([c]).decode("cp1252", "ignore") or None for c in range(0x80, 0xA0) if c != 0x85}
INVISIBLE = CONTROLS + "".join(map(chr, _C1)) + "\u00ad\u200b\u2060\ufeff"  # (text changed)
_VISIBLE = {**dict.fromkeys(map(ord, INVISIBLE)), **_C1}
_SHOWN_IN_CODE = {**dict.fromkeys(map(ord, CONTROLS)), **_C1}
_HOLDS_INVISIBLE = re.compile(f"[{re.escape(INVISIBLE)}]")


def drop_invisible(text: str) -> str:
    """``text`` without the ``INVISIBLE`` characters (C1 controls as windows-1252's)."""
    if _HOLDS_INVISIBLE.search(text):
        return text.translate(_VISIBLE)
    return text


def drop_controls(text: str) -> str:
    """``text`` without the ``CONTROLS`` characters (C1 controls as windows-1252's):
    preformatted text (code) keeps its soft hyphens and zero-width spaces, as a browser copies
    them, but no terminal escape."""
    return text.translate(_SHOWN_IN_CODE)


def visible_text(text: str) -> str:
    """A block's text as a reader sees it: ``collapse_spaces`` of ``text`` without the
    ``INVISIBLE`` characters."""
    return collapse_spaces(drop_invisible(text))


def collapse_spaces(text: str) -> str:
    """``text`` with each whitespace run made one space and its ends stripped
    (``" ".join(text.split())``)."""
    if len(text) < HUGE_TEXT:
        return " ".join(text.split())
    return " ".join(part for part in map(" ".join, map(str.split, space_chunks(text))) if part)


def count_tokens(text: str) -> int:
    """How many words ``text`` holds: its whitespace-separated tokens (``len(text.split())``),
    each ideograph counted as a word of its own (``grist.features.chars.token_edges``)."""
    if len(text) < HUGE_TEXT:  # (ASCII holds no ideograph: split() without split_words' calls)
        return len(text.split() if text.isascii() else split_words(text))
    if may_hold_ideographs(text):  # cut before ideographs too: CJK text has no spaces
        return sum(len(TOKEN_RE.findall(part)) for part in space_chunks(text, TOKEN_CUT))
    return sum(len(part.split()) for part in space_chunks(text))
