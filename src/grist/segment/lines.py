"""Lines and line-blocks of the raw HTML source, as seed 004 §IV-A and §V (Steps 1-2) define them.

No DOM is built: the decoded source string is scanned with a few regular expressions compiled
once, each of them linear (possessive quantifiers, no nested repetition), so the work is linear in
the page size.

Step 1 ``filter_useless_tags`` drops ``<head>``, ``<script>``, ``<style>``, comments and similar
elements with all they contain. Step 2 ``get_lines`` breaks the source into lines — at source
newlines (the paper's literal "logic lines"), at block-level tags (our reading of
``break_original_lines``), or both — and ``line_blocks`` merges neighbouring text lines whose
distance (textless lines in between) is at most ``max_gap`` into line-blocks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from grist.html.entities import unescape
from grist.segment.blocks import DEFAULT_SKIP_TAGS, HTML5_BLOCK_TAGS
from grist.whitespace import count_tokens, visible_text

# Elements dropped with their content; void elements (embed, frame) have nothing to drop, and
# ruby annotations (rt, rp) often leave out their end tags, which a filter of the source cannot
# tell (it would drop the text up to the next one's end tag).
USELESS_TAGS = DEFAULT_SKIP_TAGS - {"embed", "frame", "rt", "rp"}
# Tags that end a line when lines are broken at tags: block-level elements and <br>.
BREAK_TAGS = HTML5_BLOCK_TAGS | {"br"}

# Any tag: name captured for start/end tags; comments left after filtering, doctype, <?...?>.
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:-]*+)[^<>]*+>|<[!?/][^<>]*+>")


def _opener(names: frozenset[str]) -> re.Pattern[str]:
    alternatives = "|".join(sorted(names))
    return re.compile(rf"<!--|<({alternatives})(?=[\s/>])", re.IGNORECASE)


def _closer(name: str) -> re.Pattern[str]:
    pattern = rf"</{name}(?=[\s/>])[^>]*+>"
    if name == "head":  # a page that never closes its head starts its body anyway
        pattern += r"|(?=<body[\s/>])"
    return re.compile(pattern, re.IGNORECASE)


_OPENERS: dict[frozenset[str], re.Pattern[str]] = {USELESS_TAGS: _opener(USELESS_TAGS)}
_CLOSERS: dict[str, re.Pattern[str]] = {name: _closer(name) for name in USELESS_TAGS}


def filter_useless_tags(source: str, useless: frozenset[str] = USELESS_TAGS) -> str:
    """Seed 004 Step 1: the source without comments and the elements in ``useless``.

    An element or comment that is never closed loses only its opening tag, so one stray
    ``<script`` cannot swallow the page. Linear: a closer found missing once is not searched again.
    """
    opener = _OPENERS.get(useless) or _opener(useless)
    kept: list[str] = []
    missing: set[str] = set()
    position = 0
    while True:
        match = opener.search(source, position)
        if match is None:
            break
        kept.append(source[position : match.start()])
        name = (match.group(1) or "--").lower()
        end = -1
        if name not in missing:
            if name == "--":
                found = source.find("-->", match.end())
                end = found + 3 if found >= 0 else -1
            else:
                closer = _CLOSERS.get(name) or _closer(name)
                close = closer.search(source, match.end())
                end = close.end() if close else -1
        if end < 0:
            missing.add(name)
            end = match.end()
        kept.append(" ")  # a dropped element still separates the words around it
        position = end
    kept.append(source[position:])
    return "".join(kept)


@dataclass(frozen=True)
class LineConfig:
    """How the source is cut into lines and lines are merged into line-blocks.

    break_at_tags:     a block-level tag (``BREAK_TAGS``) ends the current line.
    break_at_newlines: a newline of the source ends the current line (the paper's literal lines).
    max_gap:           two text lines belong to one line-block when at most this many textless
                       lines lie between them ("the distance of any two neighbor lines with text").
    useless_tags:      elements dropped with their content in Step 1.
    break_tags:        the tags that break lines when ``break_at_tags`` is set.
    """

    break_at_tags: bool = True
    break_at_newlines: bool = False
    max_gap: int = 0
    useless_tags: frozenset[str] = USELESS_TAGS
    break_tags: frozenset[str] = BREAK_TAGS


@dataclass(slots=True)
class Line:
    """One line of the filtered source: its text (entities decoded, whitespace collapsed) and tags.

    tags:         number of tags on the line (start, end and comment-like tags alike).
    anchor_chars: characters of the line's text inside ``<a>``; ``anchor_words`` its tokens.
    tag:          the block-level tag that opened the line, or ``"line"``.
    """

    text: str = ""
    tags: int = 0
    anchor_chars: int = 0
    anchor_words: int = 0
    tag: str = "line"
    tag_counts: dict[str, int] = field(default_factory=dict)


class _LineBuilder:
    """Collects text and tags into the current line; ``end_line`` starts the next one."""

    def __init__(self) -> None:
        self.lines: list[Line] = []
        self.pieces: list[str] = []
        self.line = Line()
        self.from_newline = False  # the current line was started by a source newline

    def add_text(self, raw: str, in_anchor: bool) -> None:
        if "&" in raw:
            raw = unescape(raw)
        self.pieces.append(raw)
        if in_anchor:
            self.line.anchor_chars += len(raw.strip())
            self.line.anchor_words += count_tokens(raw)

    def add_tag(self, name: str) -> None:
        line = self.line
        line.tags += 1
        if name:
            line.tag_counts[name] = line.tag_counts.get(name, 0) + 1

    def end_line(self, newline: bool) -> None:
        """Close the current line; an empty line is only kept when it is a blank source line."""
        line = self.line
        text = visible_text("".join(self.pieces)) if self.pieces else ""
        if not text and not line.tags and not (newline and self.from_newline):
            self.from_newline = self.from_newline or newline
            self.pieces = []
            return
        line.text = text
        line.anchor_chars = min(line.anchor_chars, len(text))
        self.lines.append(line)
        self.line = Line()
        self.pieces = []
        self.from_newline = newline


def _add_source_text(builder: _LineBuilder, raw: str, in_anchor: bool, newlines: bool) -> None:
    if not newlines or "\n" not in raw:
        builder.add_text(raw, in_anchor)
        return
    parts = raw.split("\n")
    for part in parts[:-1]:
        builder.add_text(part, in_anchor)
        builder.end_line(newline=True)
    builder.add_text(parts[-1], in_anchor)


def get_lines(filtered: str, config: LineConfig | None = None) -> list[Line]:
    """Seed 004 ``break_original_lines`` + ``get_lines``: the filtered source as a list of Lines.

    A start tag in ``break_tags`` begins a new line and an end tag in it (or ``<br>``) closes the
    current one, so ``<p>a</p><p>b</p>`` gives two lines each holding its own two tags.
    """
    config = config or LineConfig()
    builder = _LineBuilder()
    break_tags = config.break_tags if config.break_at_tags else frozenset()
    newlines = config.break_at_newlines
    in_anchor = False
    position = 0
    for match in _TAG.finditer(filtered):
        start, end = match.span()
        if start > position:
            _add_source_text(builder, filtered[position:start], in_anchor, newlines)
        position = end
        slash, name = match.group(1, 2)
        name = name.lower() if name else ""
        closing = slash == "/"
        if name == "a":
            in_anchor = not closing
        if name in break_tags:
            if closing or name == "br":  # the tag belongs to the line it ends
                builder.add_tag(name)
                builder.end_line(newline=False)
            else:
                builder.end_line(newline=False)
                builder.add_tag(name)
                builder.line.tag = name
        else:
            builder.add_tag(name)
        if newlines and "\n" in match.group(0):
            builder.end_line(newline=True)
    if position < len(filtered):
        _add_source_text(builder, filtered[position:], in_anchor, newlines)
    builder.end_line(newline=False)
    return builder.lines


def line_blocks(lines: list[Line], max_gap: int = 0) -> np.ndarray:
    """Seed 004 ``get_line_blocks``: the line-block id of every line, -1 outside any block.

    Text lines whose distance (number of textless lines between them) is at most ``max_gap``
    share a block; a textless line belongs to a block only when it lies between two of its lines.
    """
    n = len(lines)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    has_text = np.fromiter((bool(line.text) for line in lines), dtype=bool, count=n)
    text_at = np.flatnonzero(has_text)
    ids = np.full(n, -1, dtype=np.int64)
    if text_at.size == 0:
        return ids
    gaps = np.diff(text_at) - 1
    starts = np.concatenate(([0], (gaps > max_gap).astype(np.int64)))
    ids[text_at] = np.cumsum(starts)
    # Textless lines: same block on both sides -> inside that block.
    index = np.arange(n)
    before = np.maximum.accumulate(np.where(has_text, index, -1))
    after = np.minimum.accumulate(np.where(has_text, index, n)[::-1])[::-1]
    inner = (~has_text) & (before >= 0) & (after < n)
    inner_at = np.flatnonzero(inner)
    same = ids[before[inner_at]] == ids[after[inner_at]]
    ids[inner_at[same]] = ids[before[inner_at[same]]]
    return ids
