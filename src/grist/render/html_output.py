"""Clean HTML: a minimal page holding only the kept blocks as h1-h6, p, ul/ol/li, table (with its
caption), dl/dt/dd, pre and blockquote, with emphasis and (``links=`` / ``images=``) links and
images.

Safe by construction: the page is written from the blocks' text, never copied from the source, so
no script, style, event handler or attribute of the source survives; all text is escaped; the only
attributes written are ``href``, ``src``, ``alt`` and ``title`` (escaped), a list's numbers
(``start``, ``value``: integers), and on ``<html>`` the page's language and direction (``dir``: one
of HTML's three values, so a right-to-left page stays one); a URL whose scheme is not http(s),
mailto, ftp or tel (``javascript:``, ``data:``, ...) is dropped, the others are percent-encoded as
in Markdown (a space is no part of a valid URL). The page's metadata goes into ``<head>`` as
``<meta>`` elements.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from grist.render.inline import Node, inline_tree, shown_text
from grist.render.layout import Item, Part, layout
from grist.render.placement import written_blocks
from grist.render.markdown import encoded_url

if TYPE_CHECKING:  # pragma: no cover
    from grist.document import Block, Document
    from grist.metadata import Metadata
    from grist.render import Extraction, RenderOptions

_TAGS = {"em": "em", "strong": "strong", "code": "code", "del": "del", "sup": "sup", "sub": "sub"}
_DIRECTIONS = frozenset(("ltr", "rtl", "auto"))  # the values of HTML's ``dir``


def _node(node: Node) -> str:
    inner = "".join(escape(c, quote=False) if isinstance(c, str) else _node(c)
                    for c in node.children)
    if node.kind == "image":
        title = f' title="{escape(node.title)}"' if node.title else ""
        return f'<img src="{escape(encoded_url(node.url))}" alt="{escape(node.alt)}"{title}>'
    if node.kind == "br":
        return "<br>"
    if node.kind == "link":
        return f'<a href="{escape(encoded_url(node.url))}">{inner}</a>'
    tag = _TAGS.get(node.kind)
    return f"<{tag}>{inner}</{tag}>" if tag else inner


def inline(block: Block, options: RenderOptions, base: str | None) -> str:
    """A block's text as escaped HTML with its inline markup."""
    if not block.marks:
        return escape(block.text, quote=False)
    return _node(inline_tree(block, options, base))


def _heading(block: Block, options: RenderOptions, base: str | None) -> str:
    return f"<h{block.heading}>{inline(block, options, base)}</h{block.heading}>"


def _list(items: list[Item], options: RenderOptions, base: str | None) -> str:
    """Nested lists: each item closes and opens the lists, items and quotes it leaves and
    enters; an ordered item whose number is not the one before plus one says its number
    (``start``, ``value``); a paragraph that opens its item is written bare in the ``li``, the
    item's other parts as elements of their own."""
    out: list[str] = []
    open_: list[list] = []  # per open container: [its end tag, the next number (of a list)]
    for item in items:
        for _ in range(item.closes):
            out.append(open_.pop()[0])
        for kind in item.opens:
            out.append(_open(kind, item, open_))
        part = item.part
        if item.opens_item and part.kind == "paragraph":
            out.append(inline(part.block, options, base))
        else:
            out.append(render_part(part, options, base))
    out.extend(container[0] for container in reversed(open_))
    return "".join(out)


def _open(kind: str, item: Item, open_: list[list]) -> str:
    """Open a list, an item or a quote for ``item``: its start tag, its container pushed on
    ``open_``."""
    if kind == "quote":
        open_.append(["</blockquote>", 0])
        return "<blockquote>"
    if kind == "list":
        open_.append([f"</{item.kind}>", item.number])
        start = item.kind == "ol" and item.number != 1
        return f'<ol start="{item.number}">' if start else f"<{item.kind}>"
    numbers = open_[-1]  # (an item opens in its list)
    value = item.kind == "ol" and item.number != numbers[1]
    numbers[1] = item.number + 1
    open_.append(["</li>", 0])
    return f'<li value="{item.number}">' if value else "<li>"


def _code(block: Block) -> str:
    """A code block: ``pre`` holding ``code`` with its language as a class."""
    language = block.code_language
    attr = f' class="language-{escape(language)}"' if language else ""
    return f"<pre><code{attr}>{escape(shown_text(block), quote=False)}</code></pre>"


def _table(part: Part, options: RenderOptions, base: str | None) -> str:
    """The table with its caption, its header rows in ``thead``, the cells spanning others
    saying so, and a cell's blocks on lines of their own."""
    layout = part.table_spans

    def row_html(i: int, tag: str) -> str:
        cells = []
        for cell, height, width in layout.written(i, part.rows[i]):
            spans = (f' rowspan="{height}"' if height > 1 else "") + (
                f' colspan="{width}"' if width > 1 else "")
            text = "<br>".join(inline(block, options, base) for block in cell)
            cells.append(f"<{tag}{spans}>{text}</{tag}>")
        return f"<tr>{''.join(cells)}</tr>"

    caption = part.block
    caption_html = f"<caption>{inline(caption, options, base)}</caption>" if caption else ""
    head = "".join(row_html(i, "th") for i in range(layout.head_rows))
    body = "".join(row_html(i, "td") for i in range(layout.head_rows, len(part.rows)))
    return f"<table>{caption_html}<thead>{head}</thead><tbody>{body}</tbody></table>"


def _definitions(part: Part, options: RenderOptions, base: str | None) -> str:
    """A definition list: per entry its ``dt``s and ``dd``s; a term's blocks on lines of their
    own, a definition's of several blocks in ``p``s."""
    out = []
    for entry in part.entries:
        for term in entry.terms:
            out.append(f"<dt>{'<br>'.join(inline(block, options, base) for block in term)}</dt>")
        for definition in entry.definitions:
            text = ("".join(f"<p>{inline(block, options, base)}</p>" for block in definition)
                    if len(definition) > 1 else
                    "".join(inline(block, options, base) for block in definition))
            out.append(f"<dd>{text}</dd>")
    return f"<dl>{''.join(out)}</dl>"


def render_part(part: Part, options: RenderOptions, base: str | None) -> str:
    """One part as an HTML element (without its blockquotes)."""
    if part.kind == "heading":
        return _heading(part.block, options, base)
    if part.kind == "code":
        return _code(part.block)
    if part.kind == "list":
        return _list(part.items, options, base)
    if part.kind == "table":
        return _table(part, options, base)
    if part.kind == "definitions":
        return _definitions(part, options, base)
    return f"<p>{inline(part.block, options, base)}</p>"


def _head(metadata: Metadata, fallback_title: str) -> str:
    lines = [f"<title>{escape(metadata.title or fallback_title)}</title>"]
    for name, value in metadata.as_dict().items():
        if name == "title" or value in (None, [], ""):
            continue
        text = ", ".join(value) if isinstance(value, list) else str(value)
        lines.append(f'<meta name="{name}" content="{escape(text)}">')
    if metadata.url:
        lines.append(f'<link rel="canonical" href="{escape(encoded_url(metadata.url))}">')
    return "\n".join(lines)


def page_direction(document: Document) -> str | None:
    """The direction the page sets for its text (``dir`` on ``<html>``, else on ``<body>``), so
    that a browser lays right-to-left scripts out as the page did; None when it sets none or the
    method did not parse the page (``lineblock``)."""
    dom = document.dom
    for node in (dom.root, dom.body) if dom is not None else ():
        value = (node.attributes.get("dir") or "").strip().lower() if node is not None else ""
        if value in _DIRECTIONS:
            return value
    return None


def render(result: Extraction, options: RenderOptions) -> str:
    """The kept blocks as a small standalone HTML page."""
    metadata = result.metadata
    base = metadata.base_url if options.links or options.images else None
    out: list[str] = []
    depth = 0
    for part in layout(written_blocks(result.blocks, options.images, base)):
        while depth < part.quote:
            out.append("<blockquote>")
            depth += 1
        while depth > part.quote:
            out.append("</blockquote>")
            depth -= 1
        out.append(render_part(part, options, base))
    out += ["</blockquote>"] * depth
    language = f' lang="{escape(metadata.language)}"' if metadata.language else ""
    direction = page_direction(result.document)
    language += f' dir="{direction}"' if direction else ""
    return (
        f'<!DOCTYPE html>\n<html{language}>\n<head>\n<meta charset="utf-8">\n'
        f"{_head(metadata, result.document.title)}\n</head>\n<body>\n<article>\n"
        + "\n".join(out) + "\n</article>\n</body>\n</html>"
    )
