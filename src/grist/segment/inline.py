"""Inline markup of a block (links, images, emphasis, code, line breaks) as spans over its
collapsed text.

The segmenter records *marks* while it walks (``(piece index, kind, element, op)``: an element
opens, closes, or an image or a ``<br>`` (element None) stands at a point; ``ALONE``: an image that
stood in a block without text, its element an ``Alone``, recorded at the start of the next block
or the end of the page's last) beside the text pieces it joins, and reads no attribute
(segmentation is on every method's hot path). ``collapse``, called when a renderer asks, turns
pieces and marks into the block's text (whitespace collapsed and the characters a browser does
not draw dropped, exactly as the plain path does: ``grist.whitespace.visible_text``) and
``Inline`` spans over it with the links' and images' attributes. A span opened before a space
starts at the next word and a closing mark ends at the last word, so spaces stay outside the
markup; a ``br`` span is the point before the space the line break became. An image carries the
href of the link around it (``Inline.link``): a link holding only an image has no span. The
renderers take the images that stood alone out of the blocks' marks (``set_apart``) and write
each in a kept block's marks, at its start or end (``alone_at``), or in a block of its own
(``alone_marks``): ``grist.render.placement.written_blocks``."""

from __future__ import annotations

import re
from typing import Any

from grist.document import Inline
from grist.whitespace import drop_invisible

OPEN, CLOSE, POINT, ALONE = 1, 2, 3, 4
Mark = tuple[int, str, Any, int]  # piece index, kind, element (a selectolax node) or None, op
# An image that stood in a block without text (an ``ALONE`` mark's element): the image, the link
# around it (or None), the list item and table cell it stood in, as ``Block.list_item`` and
# ``Block.cell`` say them (or None), and the blockquotes around it (``Block.quote_depth``).
Alone = tuple[Any, Any, tuple[int, int, int] | None, tuple[int, int, int, int, int] | None, int]

# Element -> span kind. ``i``/``b`` are styled as emphasis by every browser; a superscript or a
# subscript (an exponent, a footnote number, a formula's index) is not text on the line.
INLINE_KINDS = {
    "a": "link", "em": "em", "i": "em", "strong": "strong", "b": "strong", "code": "code",
    "kbd": "code", "samp": "code", "del": "del", "s": "del", "strike": "del", "sup": "sup",
    "sub": "sub",
}
# Inline elements nested deeper than this inside one another make no spans: each open one is
# carried into every later block, so a page of thousands nested made work and spans quadratic
# in them (a 116 KB page: 3.5 million spans, 14 s to render). Real pages nest a handful.
MAX_OPEN_INLINE = 32
# Lazy-loading pages put the real image here and a placeholder in ``src``.
_LAZY_SOURCES = ("data-src", "data-lazy-src", "data-original", "data-srcset", "srcset")
_PLACEHOLDER = re.compile(r"placeholder|lazy", re.IGNORECASE)
# Images that show nothing: spacers and tracking pixels by name, an address without a host.
_SHOWS_NOTHING = re.compile(r"(?:^|/)(?:spacer|blank|clear|pixel|transparent|trans)\.(?:gif|png)"
                            r"|\b1x1\b|^(?:https?:)?//:", re.IGNORECASE)
_LANGUAGE = re.compile(
    r"(?:^|\s)(?:language-|lang-|highlight-source-|brush:\s*|sourceCode\s+)([A-Za-z0-9_+#.-]{1,30})"
)


def image_source(attrs: dict[str, str | None]) -> str:
    """The URL an ``<img>`` shows: ``src``, or a lazy-loading page's real image when ``src`` is
    missing or a placeholder; none for an image that shows nothing (a spacer or a tracking
    pixel: a file name or a size of one pixel, an address with no host, such as ``//:0``)."""
    if any((attrs.get(side) or "").strip().removesuffix("px") in ("0", "1")
           for side in ("width", "height")):
        return ""
    src = (attrs.get("src") or "").strip()
    if src and not src.startswith("data:") and not _PLACEHOLDER.search(src):
        return "" if _SHOWS_NOTHING.search(src) else src
    for name in _LAZY_SOURCES:
        value = (attrs.get(name) or "").strip()
        if value and not value.startswith("data:"):
            return value.split(",")[0].split()[0]  # first candidate of a srcset
    return "" if not src or src.startswith("data:") or _SHOWS_NOTHING.search(src) else src


def code_language(attrs: dict[str, str | None]) -> str:
    """The language a ``pre``/``code`` element names (``class="language-js"``, ``data-lang``)."""
    for name in ("data-lang", "data-language", "lang"):
        value = (attrs.get(name) or "").strip()
        if value and " " not in value:
            return value.lower()
    found = _LANGUAGE.search(attrs.get("class") or "")
    return found.group(1).lower() if found else ""


def _words(value: str | None) -> str:
    """An attribute's text with its whitespace collapsed, as a renderer writes it."""
    return " ".join((value or "").split())


def link_href(link: Any) -> str:
    """A link element's href as written (``""`` without a link)."""
    return (link.attrs.get("href") or "").strip() if link is not None else ""


def collapse(pieces: list[str], marks: list[Mark]) -> tuple[str, tuple[Inline, ...]]:
    """The text of ``pieces`` as ``visible_text`` makes it (``" ".join("".join(pieces).split())``
    without the invisible characters) and the spans ``marks`` delimit in it; empty spans are
    dropped, and so is an image right after the same image (a lazy-loaded image and the copy in
    its ``noscript`` fallback are one image). An image says whether whitespace stood right
    before and right after it (``Inline.spaced_before`` / ``spaced_after``), its title, the
    href of the link open around it and whether it stood alone (an ``ALONE`` mark)."""
    out: list[str] = []
    length = 0
    space = False
    gap = False  # whitespace since the last word or image
    unsettled: list[int] = []  # images (indices in spans) waiting for what follows them
    spans: list[Inline] = []
    last_image = (-1, "")  # where the last image stands and its source
    stack: list[list] = []  # open elements: [kind, url, start or None until the next word, n]
    opened: list[int] = []  # for each span, how many elements had opened before its own
    k, n_marks, n_pieces = 0, len(marks), len(pieces)
    for i in range(n_pieces + 1):
        while k < n_marks and marks[k][0] == i:
            _, kind, node, op = marks[k]
            k += 1
            if op == OPEN:
                stack.append([kind, link_href(node), None, k])
            elif op == POINT and node is None:  # a <br>
                spans.append(Inline(length, length, kind))
                opened.append(k)
            elif op != CLOSE:  # an image (an ``Alone`` with the link that was around it)
                image, link = (node[0], link_href(node[1])) if op == ALONE else (node, None)
                attrs = image.attributes
                src = image_source(attrs)
                if src and (length, src) != last_image:
                    if link is None:
                        link = next((url for open_kind, url, *_ in reversed(stack)
                                     if open_kind == "link"), "")
                    for j in unsettled:  # (whitespace between two images is the second's)
                        spans[j] = spans[j]._replace(spaced_after=False)
                    unsettled[:] = [len(spans)]
                    spans.append(Inline(length, length, kind, src, _words(attrs.get("alt")),
                                        spaced_before=gap and length > 0,
                                        title=_words(attrs.get("title")), link=link,
                                        alone=op == ALONE))
                    opened.append(k)
                    last_image = (length, src)
                    gap = False
            else:
                for j in range(len(stack) - 1, -1, -1):
                    if stack[j][0] == kind:
                        _, href, start, order = stack.pop(j)
                        if start is not None and start < length:
                            spans.append(Inline(start, length, kind, href))
                            opened.append(order)
                        break
        if i == n_pieces:
            break
        piece = drop_invisible(pieces[i])
        words = piece.split()
        if not words:
            space = space or bool(piece)
            gap = gap or bool(piece)
            continue
        for j in unsettled:  # (the words that follow tell whether whitespace did)
            spans[j] = spans[j]._replace(spaced_after=gap or piece[0].isspace())
        unsettled.clear()
        if length and (space or piece[0].isspace()):
            out.append(" ")
            length += 1
        for entry in stack:
            if entry[2] is None:
                entry[2] = length
        joined = " ".join(words)
        out.append(joined)
        length += len(joined)
        space = gap = piece[-1].isspace()
    for kind, url, start, order in stack:
        if start is not None and start < length:
            spans.append(Inline(start, length, kind, url))
            opened.append(order)
    # outer spans first: the longer, or of two alike (<b><code>x</code></b>) the one opened
    # first, but code innermost (nothing is written inside code: <code><i>x</i></code> keeps
    # its emphasis around the code)
    order = sorted(range(len(spans)), key=lambda j: (
        spans[j].start, spans[j].kind != "image", -spans[j].end, spans[j].kind == "code",
        opened[j]))
    return "".join(out), tuple(spans[j] for j in order)


def break_offsets(pieces: list[str], marks: list[Mark]) -> list[int]:
    """Where ``collapse`` puts the ``<br>`` spans of ``marks`` in the text, found without its
    work on the other marks (no element's attribute is read): plain text needs only these."""
    offsets = []
    length, space, k, n_marks = 0, False, 0, len(marks)
    for i, piece in enumerate(pieces):
        while k < n_marks and marks[k][0] == i:
            if marks[k][3] == POINT and marks[k][2] is None:
                offsets.append(length)
            k += 1
        piece = drop_invisible(piece)
        words = piece.split()
        if not words:
            space = space or bool(piece)
            continue
        if length and (space or piece[0].isspace()):
            length += 1
        length += sum(map(len, words)) + len(words) - 1
        space = piece[-1].isspace()
    offsets += (length for _, kind, node, op in marks[k:] if op == POINT and node is None)
    return offsets


def set_apart(marks: tuple[list[str], list[Mark]]
              ) -> tuple[list[Alone], tuple[list[str], list[Mark]], list[Alone]]:
    """Take the images that stood alone out of a block's marks: those at the block's start, the
    marks left, and those at its end."""
    pieces, marks_in = marks
    at_start: list[Alone] = []
    at_end: list[Alone] = []
    kept: list[Mark] = []
    for mark in marks_in:
        if mark[3] == ALONE:
            (at_end if mark[0] else at_start).append(mark[2])
        else:
            kept.append(mark)
    return at_start, (pieces, kept), at_end


def alone_at(images: list[Alone], at: int) -> list[Mark]:
    """The marks of images that stood alone, put at piece ``at`` of a block."""
    return [(at, "image", image, ALONE) for image in images]


def alone_marks(image: Alone) -> tuple[list[str], list[Mark]]:
    """The marks of a block holding nothing but an image that stood alone."""
    return [], alone_at([image], 0)
