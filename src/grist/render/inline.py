"""A block's text with its inline markup, as a tree every renderer walks the same way.

``inline_tree(block, options, base)`` keeps the spans the options ask for (emphasis, code,
deletions, superscripts and subscripts always; links and images with ``links=`` / ``images=``),
resolves their URLs against the page's base and drops the unsafe ones (``javascript:`` and other
active schemes), and returns nested ``Node``s over plain text pieces. Renderers write the tree
in their own syntax. An image inside a link is written in it (a ``link`` node around the image
when the link holds no text); an image that stood alone in a block without text
(``Inline.alone``, which ``grist.render.placement.written_blocks`` puts in no heading) is on a
line of its own, after a ``br`` at the block's end or before one at its start.

A permalink (a link to an anchor of the page whose text is a glyph, such as the ``¶``
documentation generators put after every heading and API signature, or rustdoc's ``§`` before a
heading, and show only on hover) is not part of the text as rendered: ``shown_text`` and the tree
leave out one that ends a block or starts a heading.

A ``<br>`` inside a block's text (an address, a poem, a forum post's lines) is a newline in
``shown_text`` and a ``br`` leaf in the tree, so each format writes its own line break
(Markdown's hard break, HTML's ``<br>``, TEI's ``<lb/>``); the block's text, which features and
methods read, keeps a space there. A heading stays one line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from operator import itemgetter
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

from grist.document import Block, Inline
from grist.segment.inline import break_offsets

if TYPE_CHECKING:  # pragma: no cover
    from grist.render import RenderOptions

# Schemes a reader may follow; anything else (javascript:, vbscript:, data:, file:) is dropped.
SAFE_SCHEMES = frozenset(("http", "https", "mailto", "ftp", "tel"))
_URL_NOISE = re.compile(r"[\x00-\x1f\x7f]")  # browsers drop tabs and newlines inside URLs
_ALWAYS = frozenset(("em", "strong", "code", "del", "sup", "sub"))
_STYLES = frozenset(("em", "strong", "del"))  # spans that add nothing inside one of their kind
# The text of a permalink (Sphinx and MkDocs write a pilcrow, others a section sign, a hash, a
# link symbol or Font Awesome's link icon, a private-use character).
PERMALINK_GLYPHS = frozenset(("\u00b6", "\u00a7", "#", "\U0001f517", "\uf0c1"))
_MARK_KIND = itemgetter(1)  # of a segmenter's mark (``grist.segment.inline.Mark``)


def permalink_bounds(block: Block) -> tuple[int, int]:
    """Where a block's text as shown starts and ends: before a permalink that ends it (Sphinx's
    and MkDocs' headings and API signatures, Docusaurus) and, in a heading, after one that
    starts it (rustdoc, VuePress), a permalink being a link to an anchor (``#`` in its address)
    that shows only one of ``PERMALINK_GLYPHS``. A paragraph that starts with one keeps it
    (rustdoc's ``§1.0.0``, a variant's Rust version). Most blocks are known to have none
    without reading their inline markup."""
    text = block.text
    first, last = 0, len(text)
    if (not block.marks or not text
            or (text[-1] not in PERMALINK_GLYPHS
                and not (block.heading and text[0] in PERMALINK_GLYPHS))):
        return first, last
    for span in block.inline:
        if (span.kind == "link" and "#" in span.url
                and text[span.start:span.end].strip() in PERMALINK_GLYPHS):
            if span.end == len(text):
                last = span.start
            elif span.start == 0 and block.heading:
                first = span.end
    last = len(text[:last].rstrip())
    while first < last and text[first].isspace():
        first += 1
    return min(first, last), last


def line_breaks(block: Block, text: str, spans: tuple[Inline, ...] | None = None) -> list[int]:
    """Where ``text`` (the block's text, or the start of it) breaks a line: the positions of
    the spaces that ``<br>`` elements became (a break with no text after it breaks nothing).
    A heading is one line: a ``<br>`` in one only wraps it on the page. ``spans``: the block's
    ``inline``, when the caller has it."""
    if block.heading or not block.marks or "br" not in map(_MARK_KIND, block.marks[1]):
        return []
    found = (break_offsets(*block.marks) if spans is None
             else [span.start for span in spans if span.kind == "br"])
    return sorted({at for at in found if at < len(text) and text[at] == " "})


def shown_text(block: Block) -> str:
    """The block's text as rendered: without its permalinks (``permalink_bounds``) and with a
    newline where a ``<br>`` broke the line."""
    first, last = permalink_bounds(block)
    if block.heading:  # (one line)
        return block.text[first:last]
    text = block.text[:last]
    breaks = line_breaks(block, text)
    if not breaks:
        return text
    starts = [0, *(at + 1 for at in breaks)]
    return "\n".join(map(text.__getitem__, map(slice, starts, [*breaks, len(text)])))


def safe_url(href: str, base: str | None) -> str | None:
    """``href`` made absolute against ``base``, or None when it is empty or has a scheme other
    than http(s), mailto, ftp or tel once control characters are removed."""
    cleaned = _URL_NOISE.sub("", href).strip(" ")
    if not cleaned:
        return None
    try:
        url = urljoin(base, cleaned) if base else cleaned
        scheme = urlsplit(url).scheme.lower()
    except ValueError:  # a malformed IPv6 host, say
        return None
    if scheme and scheme not in SAFE_SCHEMES:
        return None
    return url


@dataclass
class Node:
    """A span of inline markup (``kind`` link, em, strong, code, del, sup, sub; ``root`` for the
    block) holding text strings and child nodes in order; an image is a leaf node of kind
    ``image`` (with its ``alt`` and ``title``), a line break one of kind ``br``."""

    kind: str
    url: str = ""
    alt: str = ""
    children: list[str | Node] = field(default_factory=list)
    title: str = ""

    @property
    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text for c in self.children)


def _wanted(span: Inline, options: RenderOptions, base: str | None, breaks: set[int]
            ) -> Inline | None:
    """The span with its URL resolved, or None when the options leave it out, it is unsafe or
    it is a line break that breaks nothing (not in ``breaks``); an image's link is kept with
    ``links=`` when it is safe."""
    if span.kind in _ALWAYS:
        return span
    if span.kind == "br":
        return span if span.start in breaks else None
    if (span.kind == "link" and options.links) or (span.kind == "image" and options.images):
        url = safe_url(span.url, base)
        if url and span.link:
            return span._replace(url=url, link=options.links and safe_url(span.link, base) or "")
        return span._replace(url=url) if url else None
    return None


def inline_tree(block: Block, options: RenderOptions, base: str | None) -> Node:
    """The block's text as a tree of the spans the options keep (well nested; a span crossing
    another is dropped, nothing nests inside code, and emphasis inside emphasis of its kind adds
    nothing). The segmenter makes no span past ``grist.segment.inline.MAX_OPEN_INLINE``
    levels, so the renderers' recursion stays shallow.
    Permalinks are left out, and a line break is a ``br`` leaf that takes the place of the
    space it became (``shown_text``)."""
    first, last = permalink_bounds(block)
    text = block.text[:last]
    found = block.inline
    breaks = set(line_breaks(block, text, found))
    spans = [s for s in (_wanted(s, options, base, breaks) for s in found) if s is not None]
    images_at: dict[int, list[Inline]] = {}  # (the images at one point are written together)
    for span in spans:
        if span.kind == "image":
            images_at.setdefault(span.start, []).append(span)
    spans = [s for s in spans if s.kind != "image" or s is images_at[s.start][0]]
    root = Node("root")
    stack: list[tuple[Node, int]] = [(root, len(text))]
    position = first  # (a span starting before it is skipped as overlapping what was written)
    for span in spans:
        if span.end > len(text):
            continue
        while span.start >= stack[-1][1] and len(stack) > 1:  # close spans that ended
            node, end = stack.pop()
            _add_text(node, text[position:end])
            position = end
        parent, parent_end = stack[-1]
        if span.end > parent_end or parent.kind == "code" or span.start < position:
            continue  # crosses its parent, inside code, or overlaps what was written
        _add_text(parent, text[position:span.start])
        position = span.start
        if span.kind == "br":
            parent.children.append(Node("br"))
            position += 1  # (the space it became)
            continue
        if span.kind == "image":
            linked = any(open_node.kind == "link" for open_node, _ in stack)
            position = _add_images(parent, images_at[span.start], text, position, first, linked)
            continue
        if span.kind in _STYLES and any(open_node.kind == span.kind for open_node, _ in stack):
            continue  # bold inside bold is bold: written twice, Markdown would misread it
        node = Node(span.kind, span.url)
        parent.children.append(node)
        stack.append((node, span.end))
    while stack:
        node, end = stack.pop()
        _add_text(node, text[position:end])
        position = end
    return root


def _add_images(parent: Node, images: list[Inline], text: str, position: int, first: int,
                linked: bool) -> int:
    """Write the images that stand at ``position``: between words with the whitespace the page
    has on either side of each (the text's one space there, if any, stands for it and is passed
    over), at the start or end of the block apart from its text, and one that stood alone on a
    line of its own. Inside a link (``linked``) their own links are not written (links do not
    nest). Returns the position the text goes on from."""
    if text.startswith(" ", position) and any(i.spaced_before or i.spaced_after for i in images):
        position += 1
    text_before, text_after = position > first, position < len(text)
    last = len(images) - 1
    for n, image in enumerate(images):
        if image.alone and not text_after and (text_before or n):
            parent.children.append(Node("br"))
        elif text_before and (image.spaced_before or (n == 0 and not text_after)):
            _add_text(parent, " ")
        node = Node("image", image.url, image.alt, title=image.title)
        in_link = image.link and not linked
        parent.children.append(Node("link", image.link, children=[node]) if in_link else node)
        if image.alone and not text_before and (text_after or n < last):
            parent.children.append(Node("br"))
        elif text_after and (image.spaced_after or (n == last and not text_before)):
            _add_text(parent, " ")
    return position


def _add_text(node: Node, piece: str) -> None:
    if piece:
        node.children.append(piece)
