"""TEI XML (P5): the kept blocks as a TEI document with the page's metadata in its header.

What digital-humanities corpora expect: ``teiHeader`` (title, authors, publisher = site name,
date, canonical URL, language, keywords and categories) and a ``body`` of ``div``s, a new one at
each heading (TEI allows a ``head`` only at the start of a division), holding ``p``, ``list``
(nested; an item holds its paragraphs, code, quotes, tables and definition lists), ``table``
(its caption a ``head``, header row ``role="label"``), a definition list as ``list type="gloss"``
of ``label`` (the terms) and ``item`` (the definitions) pairs, ``quote`` and code; inline
``hi`` for emphasis, ``code``, ``del``, and with ``links=`` / ``images=`` ``ref`` and
``graphic``, their URLs percent-encoded as in Markdown (a pointer holds no space). The output
is valid against the TEI P5 ``tei_all`` schema (tested with its RELAX NG grammar). Characters
XML 1.0 does not allow are dropped.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

from grist.render.inline import Node, inline_tree, shown_text
from grist.render.layout import Item, Part, layout
from grist.render.placement import written_blocks
from grist.render.markdown import encoded_url

if TYPE_CHECKING:  # pragma: no cover
    from grist.document import Block
    from grist.metadata import Metadata
    from grist.render import Extraction, RenderOptions

TEI_NS = "http://www.tei-c.org/ns/1.0"
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_REND = {"em": "#i", "strong": "#b", "sup": "sup", "sub": "sub"}


def _clean(text: str) -> str:
    return _NOT_XML.sub("", text)


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    element = ET.SubElement(parent, tag, {k.rstrip("_"): _clean(v) for k, v in attrs.items()})
    if text:
        element.text = _clean(text)
    return element


def _append_text(element: ET.Element, text: str) -> None:
    """Add text after the element's last child (or as its text when it has none)."""
    text = _clean(text)
    children = list(element)
    if children:
        children[-1].tail = (children[-1].tail or "") + text
    else:
        element.text = (element.text or "") + text


def _inline(element: ET.Element, node: Node) -> None:
    for child in node.children:
        if isinstance(child, str):
            _append_text(element, child)
        elif child.kind == "br":
            _sub(element, "lb")
        elif child.kind == "image":
            _sub(element, "graphic", url=encoded_url(child.url),
                 **({"n": child.alt} if child.alt else {}))
        elif child.kind == "link":
            _inline(_sub(element, "ref", target=encoded_url(child.url)), child)
        elif child.kind in _REND:
            _inline(_sub(element, "hi", rend=_REND[child.kind]), child)
        else:  # code, del
            _inline(_sub(element, child.kind), child)


def _block(element: ET.Element, block: Block, options: RenderOptions, base: str | None) -> None:
    if block.marks:
        _inline(element, inline_tree(block, options, base))
    else:
        _append_text(element, block.text)


def _list(parent: ET.Element, items: list[Item], options: RenderOptions,
          base: str | None) -> None:
    """Nested ``list``s: each item closes and opens the lists, items and quotes it leaves and
    enters; a paragraph or heading that opens its item is written in the ``item``, the item's
    other parts in elements of their own."""
    open_: list[ET.Element] = []  # the open containers, outermost first
    for item in items:
        del open_[len(open_) - item.closes :]
        for kind in item.opens:  # (TEI names them list, item and quote too)
            open_.append(_sub(open_[-1] if open_ else parent, kind, **_attributes(kind, item)))
        part = item.part
        if part.kind in ("code", "table", "definitions"):
            _part(open_[-1], part, options, base)
        elif item.opens_item:
            _item_block(open_[-1], part.block, options, base)
        else:
            _item_block(_sub(open_[-1], "p"), part.block, options, base)


def _attributes(kind: str, item: Item) -> dict[str, str]:
    """What a list (its kind) or an ordered item (its number) that ``item`` opens says."""
    if kind == "list":
        return {"rend": item.kind}
    return {"n": str(item.number)} if kind == "item" and item.kind == "ol" else {}


def _item_block(element: ET.Element, block: Block, options: RenderOptions, base: str | None
                ) -> None:
    """A list block's text in ``element``; a heading's marked as one (TEI has no ``head`` in an
    ``item``)."""
    target = _sub(element, "hi", rend=f"h{block.heading}") if block.heading else element
    _block(target, block, options, base)


def _code(parent: ET.Element, block: Block) -> None:
    """A code block: ``ab type="code"`` holding ``code`` with its language."""
    language = block.code_language
    _sub(_sub(parent, "ab", type="code"), "code", shown_text(block),
         **({"lang": language} if language else {}))


def _definitions(parent: ET.Element, part: Part, options: RenderOptions, base: str | None
                 ) -> None:
    """A definition list: ``list type="gloss"``, per entry a ``label`` holding its terms (on
    lines of their own) and an ``item`` holding its definitions (a ``p`` per block when they
    are several blocks)."""
    gloss = _sub(parent, "list", type="gloss")
    for entry in part.entries:
        label = _sub(gloss, "label")
        for line, block in enumerate(block for term in entry.terms for block in term):
            if line:
                _sub(label, "lb")
            _block(label, block, options, base)
        item = _sub(gloss, "item")
        blocks = [block for definition in entry.definitions for block in definition]
        for block in blocks:
            _block(_sub(item, "p") if len(blocks) > 1 else item, block, options, base)


def _part(parent: ET.Element, part: Part, options: RenderOptions, base: str | None) -> None:
    if part.kind == "code":
        _code(parent, part.block)
    elif part.kind == "list":
        _list(parent, part.items, options, base)
    elif part.kind == "definitions":
        _definitions(parent, part, options, base)
    elif part.kind == "table":
        table = _sub(parent, "table")
        if part.block is not None:
            _block(_sub(table, "head"), part.block, options, base)
        layout = part.table_spans
        for number, row in enumerate(part.rows):
            head = {"role": "label"} if number < layout.head_rows else {}
            row_element = _sub(table, "row", **head)
            for cell, height, width in layout.written(number, row):
                spans = {"rows": str(height)} if height > 1 else {}
                spans |= {"cols": str(width)} if width > 1 else {}
                cell_element = _sub(row_element, "cell", **spans)
                for line, block in enumerate(cell):  # (a cell's blocks on lines of their own)
                    if line:
                        _sub(cell_element, "lb")
                    _block(cell_element, block, options, base)
    else:
        _block(_sub(parent, "p"), part.block, options, base)


def _header(tei: ET.Element, metadata: Metadata, fallback_title: str) -> None:
    header = _sub(tei, "teiHeader")
    file_desc = _sub(header, "fileDesc")
    statement = _sub(file_desc, "titleStmt")
    _sub(statement, "title", metadata.title or fallback_title or "untitled", type="main")
    for author in metadata.authors:
        _sub(statement, "author", author)
    publication = _sub(file_desc, "publicationStmt")
    _sub(publication, "publisher", metadata.sitename or "unknown")
    if metadata.url:
        _sub(publication, "ptr", type="URL", target=encoded_url(metadata.url))
    if metadata.date:
        _sub(publication, "date", metadata.date, when=metadata.date)
    source = _sub(_sub(file_desc, "sourceDesc"), "bibl")
    _sub(source, "title", metadata.title or fallback_title or "untitled", type="main")
    for author in metadata.authors:
        _sub(source, "author", author)
    if metadata.sitename:
        _sub(source, "publisher", metadata.sitename)
    if metadata.date_modified:
        _sub(source, "date", metadata.date_modified, type="modified", when=metadata.date_modified)
    if metadata.url:
        _sub(source, "ptr", type="URL", target=encoded_url(metadata.url))
    if metadata.language or metadata.tags or metadata.categories:
        profile = _sub(header, "profileDesc")
        if metadata.language:
            _sub(_sub(profile, "langUsage"), "language", metadata.language,
                 ident=metadata.language)
        if metadata.tags or metadata.categories:
            classes = _sub(profile, "textClass")
            if metadata.tags:
                keywords = _sub(classes, "keywords")
                for tag in metadata.tags:
                    _sub(keywords, "term", tag)
            for category in metadata.categories:
                _sub(classes, "classCode", category, scheme="category")


def _body(text: ET.Element, parts: list[Part], options: RenderOptions, base: str | None) -> None:
    body = _sub(text, "body")
    division = _sub(body, "div")
    quote: ET.Element | None = None  # the quote consecutive quoted parts go into
    for part in parts:
        if part.kind == "heading":
            if len(division):
                division = _sub(body, "div")
            head = _sub(division, "head", rend=f"h{part.level}")
            _block(head, part.block, options, base)
            quote = None
            continue
        if part.quote and (quote is None or list(division)[-1] is not quote):
            quote = _sub(division, "quote")
        _part(quote if part.quote else division, part, options, base)
    if not len(division) or all(child.tag == "head" for child in division):
        _sub(division, "p")


def render(result: Extraction, options: RenderOptions) -> str:
    """The result as a TEI document (UTF-8, with an XML declaration)."""
    metadata = result.metadata
    base = metadata.base_url if options.links or options.images else None
    tei = ET.Element("TEI", {"xmlns": TEI_NS})
    _header(tei, metadata, result.document.title)
    written = written_blocks(result.blocks, options.images, base)
    _body(_sub(tei, "text"), layout(written), options, base)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(tei, encoding="unicode")
