"""The inspector's view of a page: the page itself, made inert, with each text node marked.

The decoded source is parsed exactly as extraction parses it and written back out by an
allow-list serialiser: no ``script``, frame, plugin, ``base`` or ``meta`` element, no event
handler, no ``javascript:``/``data:`` URL (images excepted), no form action; ``noscript`` becomes
a ``div`` and ``svg``/``math`` are left out (their parsing rules differ from HTML's). Every
visible text node the segmenter counts is wrapped in ``<span data-gn=N>`` with its ordinal N
(``grist.segment.blocks``), so blocks can be outlined by their ``info["text_nodes"]`` range.
Where a method's blocks carry no usable range (``tagscore`` edits the DOM before segmenting,
``lineblock`` has no DOM), blocks are found by matching their text in page order.
"""

from __future__ import annotations

import bisect
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass

from selectolax.lexbor import LexborHTMLParser

from grist.document import Block
from grist.html.parse import close_unterminated_title
from grist.segment.blocks import DEFAULT_SKIP_TAGS, is_skipped

# Elements written out with nothing inside (their content is active, a frame, or parsed by
# other rules); the segmenter's counting still walks them.
_DROPPED = frozenset((
    "script", "iframe", "frame", "frameset", "object", "embed", "applet", "base", "meta",
    "noembed", "noframes", "xmp", "plaintext", "template", "svg", "math", "portal", "param",
    "title",
))
_VOID = frozenset(("area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
                   "source", "track", "wbr", "keygen"))
_RAW_TEXT_PARENTS = frozenset(("textarea", "style", "title", "option"))  # no span inside
_URL_ATTRIBUTES = frozenset(("href", "src", "srcset", "poster", "background", "cite", "action",
                             "data", "lowsrc", "dynsrc", "longdesc", "xlink:href", "manifest",
                             "codebase", "imagesrcset", "formaction", "ping", "usemap"))
_BANNED_ATTRIBUTES = frozenset(("srcdoc", "formaction", "action", "ping", "http-equiv", "nonce",
                                "autofocus", "is", "xmlns"))
_ATTRIBUTE_NAME = re.compile(r"[a-zA-Z_][-a-zA-Z0-9_.:]*")
_TAG_NAME = re.compile(r"[a-z][a-z0-9-]*")
_SAFE_SCHEMES = ("http:", "https:", "mailto:", "tel:")
_IMAGE_DATA = re.compile(r"data:image/(png|gif|jpeg|jpg|webp|avif|bmp);", re.IGNORECASE)
_URL_NOISE = re.compile(r"[\x00-\x20\x7f]+")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_BAD_CSS = re.compile(r"expression\s*\(|javascript:|vbscript:|-moz-binding|behavior\s*:|</style",
                      re.IGNORECASE)
_DOCTYPE = re.compile(r"^\s*(?:<!--.*?-->\s*)*<!doctype", re.IGNORECASE | re.DOTALL)
_TEXT = "-text"

FRAME_STYLE = """
[data-grist-label]{cursor:pointer}
[data-grist-label=content]{outline:2px solid #1a7f37!important;outline-offset:1px;
background-color:rgba(26,127,55,.10)!important}
[data-grist-label=boilerplate]{outline:2px dashed #cf222e!important;outline-offset:1px;
background-color:rgba(207,34,46,.08)!important}
[data-grist-apart]{outline:2px dashed #9a6700!important;background-color:rgba(191,135,0,.10)!important}
[data-grist-label].grist-hover{outline-width:3px!important;background-color:rgba(255,200,0,.25)!important}
[data-grist-label].grist-selected{outline:4px solid #0969da!important}
[data-grist-changed]{box-shadow:0 0 0 5px rgba(130,80,223,.55)!important}
"""


def _safe_url(value: str, image: bool) -> bool:
    """A relative URL, an http(s)/mailto/tel one, or (for images) a raster ``data:`` image."""
    compact = _URL_NOISE.sub("", value)
    if not _SCHEME.match(compact):
        return True
    lowered = compact.lower()
    return lowered.startswith(_SAFE_SCHEMES) or (image and _IMAGE_DATA.match(compact) is not None)


def _safe_srcset(value: str) -> bool:
    candidates = (part.strip() for part in value.split(","))
    return all(_safe_url(c.split(" ")[0], True) for c in candidates if c)


def safe_attributes(tag: str, attributes: dict[str, str | None]) -> str:
    """The attributes worth keeping, escaped, as they go in a start tag (with a leading space)."""
    out = []
    for name, value in attributes.items():
        name = name.lower()
        if (not _ATTRIBUTE_NAME.fullmatch(name) or name.startswith(("on", "data-grist"))
                or name in _BANNED_ATTRIBUTES or name == "data-gn"):
            continue
        value = value or ""
        if name in _URL_ATTRIBUTES:
            image = tag in ("img", "source", "picture", "input", "video")
            if not (_safe_srcset(value) if name.endswith("srcset") else _safe_url(value, image)):
                continue
        if name == "style" and _BAD_CSS.search(value):
            continue
        out.append(f' {name}="{html.escape(value, quote=True)}"')
    return "".join(out)


@dataclass
class PageView:
    """The inert page (a complete HTML document for an ``iframe srcdoc``) and the text of every
    text node the segmenter counts, by ordinal."""

    html: str
    texts: list[str]


def _head(base_url: str | None, remote: bool) -> str:
    sources = "* data:" if remote else "data:"
    policy = (f"default-src 'none'; script-src 'none'; object-src 'none'; frame-src 'none'; "
              f"form-action 'none'; style-src {'*' if remote else ''} 'unsafe-inline'; "
              f"img-src {sources}; font-src {sources}; media-src {sources}")
    base = ""
    if base_url and base_url.lower().startswith(("http://", "https://")):
        base = f'<base href="{html.escape(base_url, quote=True)}">'
    return (f'<meta charset="utf-8"><meta http-equiv="Content-Security-Policy" '
            f'content="{html.escape(policy, quote=True)}">{base}<style>{FRAME_STYLE}</style>')


def page_view(source: str, base_url: str | None = None, *, remote: bool = True,
              skip_tags: frozenset[str] = DEFAULT_SKIP_TAGS) -> PageView:
    """Parse ``source`` as extraction does and write it out inert, text nodes marked.

    ``remote`` lets the page's stylesheets, images and fonts load (never scripts or frames).
    """
    dom = LexborHTMLParser(close_unterminated_title(source))
    out: list[str] = ["<!DOCTYPE html>"] if _DOCTYPE.match(source[:4096]) else []
    texts: list[str] = []
    root = dom.root
    if root is None:
        return PageView("".join(out), texts)
    # (node, emit, count) entries; a str entry is an end tag to write.
    stack: list = [(root, True, True)]
    parents: list[str] = []
    while stack:
        entry = stack.pop()
        if entry.__class__ is str:
            parents.pop()
            if entry:
                out.append(entry)
            continue
        node, emit, count = entry
        tag = node.tag
        if tag == _TEXT:
            raw = node.text_content or ""
            if count:
                texts.append(raw)
            if emit and raw:
                parent = parents[-1] if parents else ""
                if parent == "style":
                    out.append("" if _BAD_CSS.search(raw) else raw)
                elif count and parent not in _RAW_TEXT_PARENTS and not raw.isspace():
                    text = html.escape(raw, quote=False)
                    out.append(f'<span data-gn="{len(texts) - 1}">{text}</span>')
                else:
                    out.append(html.escape(raw, quote=False))
            continue
        if tag is None or tag[0] in "-_!":  # comments, doctype, processing instructions
            continue
        child_emit = emit and tag not in _DROPPED
        child_count = count and not is_skipped(tag, skip_tags)
        name = "div" if tag == "noscript" else tag if _TAG_NAME.fullmatch(tag) else "span"
        if tag == "link" and "stylesheet" not in (node.attributes.get("rel") or "").lower():
            child_emit = False
        if child_emit:
            out.append(f"<{name}{safe_attributes(name, node.attributes)}>")
            if tag == "head":
                out.append(_head(base_url, remote))
        end = f"</{name}>" if child_emit and tag not in _VOID else ""
        parents.append(tag)
        stack.append(end)
        child = node.last_child
        while child is not None:
            stack.append((child, child_emit, child_count))
            child = child.prev
    return PageView("".join(out), texts)


def _squeeze(text: str) -> str:
    return "".join(text.split())


def locate_blocks(blocks: Sequence[Block], texts: Sequence[str]
                  ) -> tuple[list[list[int] | None], dict[str, int]]:
    """Each block's ``[first, last]`` text-node ordinals on the page, or None where it cannot
    be found, and how many were found by their recorded range, by their text, or not at all.

    A recorded range is trusted when its text nodes hold exactly the block's text (whitespace
    aside); otherwise the block's text is searched in the page's text, after the previous block's
    match first, then anywhere.
    """
    starts: list[int] = []
    owners: list[int] = []
    hay_parts: list[str] = []
    size = 0
    for ordinal, raw in enumerate(texts):
        piece = _squeeze(raw)
        if piece:
            starts.append(size)
            owners.append(ordinal)
            hay_parts.append(piece)
            size += len(piece)
    hay = "".join(hay_parts)
    counts = {"by_nodes": 0, "by_text": 0, "unmapped": 0}
    ranges: list[list[int] | None] = []
    cursor = 0
    for block in blocks:
        needle = _squeeze(block.text)
        recorded = block.info.get("text_nodes")
        if (recorded and 0 <= recorded[0] <= recorded[1] < len(texts)
                and _squeeze("".join(texts[recorded[0]:recorded[1] + 1])) == needle):
            ranges.append([recorded[0], recorded[1]])
            counts["by_nodes"] += 1
            continue
        found = hay.find(needle, cursor) if needle else -1
        if found < 0 and needle:
            found = hay.find(needle)
        if found < 0:
            ranges.append(None)
            counts["unmapped"] += 1
            continue
        cursor = found + len(needle)
        first = owners[bisect.bisect_right(starts, found) - 1]
        last = owners[bisect.bisect_right(starts, cursor - 1) - 1]
        ranges.append([first, last])
        counts["by_text"] += 1
    return ranges, counts
