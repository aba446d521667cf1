"""Markdown (CommonMark with GFM tables and strikethrough) of the kept blocks.

Headings, paragraphs, nested lists, pipe tables with their header row, fenced code with its
language, blockquotes, emphasis, code spans, hard line breaks where the page had a ``<br>`` (a
space in table cells, which hold one line; a heading is one line anyway), and with ``links=`` /
``images=`` links and images with absolute URLs. Text is escaped so that a CommonMark parser
gives it back unchanged: the special characters are backslash-escaped everywhere (but for the
underscores inside a word, ``snake_case``, which make no emphasis), and so is a leading ``-``,
``+``, ``=``, ``~`` or ``1.``/``1)`` that would start a list, a rule or a fence (also after a
hard line break). Emphasis is written with ``*`` (``**``), or with ``_`` (``__``) where a star
would touch another (``*__both__*``); when neither would be read as emphasis (next to
punctuation, inside a word for ``_``) the span is written as plain text. Code keeps its
whitespace and is never escaped; its fence is longer than any backtick run inside. Code spans
side by side are written as one (CommonMark would read the backticks between them as code), and
in a table cell their pipes are escaped (a GFM row ends a cell at every other pipe). A table
inside a list item is indented under it; a table's caption is a paragraph before it.

A definition list is written as Pandoc and PHP Markdown Extra read one: each term on its own
line, then each definition on a line of its own after ``: ``, a blank line between entries (a
CommonMark parser reads an entry as one paragraph, its lines in order). An entry with a
definition of several paragraphs is written as paragraphs (those extensions indent further
paragraphs by four spaces, which CommonMark reads as code, and on lines of their own they
would read as more definitions); a term without definition and a definition whose term was
not kept are paragraphs in every format (``grist.render.layout``). A line of a term or definition that would begin with ``:`` is escaped, so
it reads as neither a definition nor a term.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace
from typing import TYPE_CHECKING
from urllib.parse import quote

from grist.render.frontmatter import front_matter
from grist.render.inline import Node, inline_tree
from grist.render.layout import Item, Part, layout
from grist.render.placement import written_blocks

if TYPE_CHECKING:  # pragma: no cover
    from grist.document import Block
    from grist.render import Extraction, RenderOptions

# The characters to escape; a run of underscores between two letters or digits (snake_case,
# file_names) is left as it is: CommonMark makes no emphasis of it.
_SPECIAL = re.compile(r"(?P<word>(?<=[^\W_])_+(?=[^\W_]))|[\\*_\[\]#<>|`~]|&(?=#?[A-Za-z0-9]+;)")
_LEADING_MARK = re.compile(r"^([-+=])")
_LEADING_NUMBER = re.compile(r"^(\d{1,9})([.)])(?=\s|$)")
_LEADING_COLON = re.compile(r"^:", re.MULTILINE)  # a definition's marker (in a definition list)
_BACKTICKS = re.compile(r"`+")
_INDENT = "    "  # four spaces nest a list item under both "- " and "1. " markers
_MAX_NUMBER = 999_999_999  # CommonMark's longest list number has nine digits
# per style, the delimiters to try in turn: an underscore where a star would touch another star
_DELIMITERS = {"em": ("*", "_"), "strong": ("**", "__"), "del": ("~~",)}
_RAW_HTML = frozenset(("sup", "sub"))  # written as inline HTML, which Markdown keeps
_OPENERS = {"code": "`", "link": "[", "image": "!", "br": "\n", "sup": "<", "sub": "<"}
_CONTAINERS = frozenset(("link", *_DELIMITERS, *_RAW_HTML))  # written from their children only
_HARD_BREAK = "\\\n"  # a backslash ending a line: a line break editors do not strip
_URL_SAFE = ":/?#[]@!$&'*+,;=%~-._"


def escape_inline(text: str) -> str:
    """Escape the characters Markdown treats specially anywhere in a line."""
    return _SPECIAL.sub(_escaped, text)


def _escaped(match: re.Match[str]) -> str:
    return match.group(0) if match.lastgroup == "word" else "\\" + match.group(0)


def escape(text: str) -> str:
    """Escape ``text`` so Markdown shows it literally at the start of a line."""
    text = _LEADING_MARK.sub(r"\\\1", escape_inline(text))
    return _LEADING_NUMBER.sub(r"\1\\\2", text)


def encoded_url(url: str) -> str:
    """``url`` with spaces, parentheses, quotes and the like percent-encoded: a Markdown link
    destination that needs no angle brackets, one TEI pointer, a valid HTML URL (every writer
    writes its URLs so)."""
    return quote(url, safe=_URL_SAFE)


def _is_space(char: str) -> bool:
    return char == "" or char.isspace()


def _is_punct(char: str) -> bool:
    return unicodedata.category(char)[0] in "PS"


def _opens(before: str, first: str, char: str) -> bool:
    """Whether a run of ``char`` between ``before`` and ``first`` opens emphasis (CommonMark's
    left-flanking rule; an underscore run inside a word does not)."""
    if _is_space(first) or (_is_punct(first) and not (_is_space(before) or _is_punct(before))):
        return False
    also_closes = not _is_space(before) and (not _is_punct(before) or _is_punct(first))
    return char != "_" or not also_closes or _is_punct(before)


def _closes(last: str, after: str, char: str) -> bool:
    """Whether a run of ``char`` between ``last`` and ``after`` closes emphasis (the mirror of
    ``_opens``)."""
    return _opens(after, last, char)


def _renders_nothing(child: str | Node) -> bool:
    if isinstance(child, str):
        return not child
    return child.kind in _CONTAINERS and all(map(_renders_nothing, child.children))


def _starts(children: list[str | Node], first: int, after: frozenset[str]) -> frozenset[str]:
    """The characters the Markdown of ``children[first:]`` may start with (a span may be
    written with either of its delimiters or as plain text); ``after`` when it writes nothing."""
    for child in children[first:]:
        if _renders_nothing(child):
            continue
        if isinstance(child, str):
            return frozenset(escape_inline(child[:1])[:1])
        if child.kind in _DELIMITERS:
            return frozenset(d[0] for d in _DELIMITERS[child.kind]) | _starts(
                child.children, 0, after)
        return frozenset(_OPENERS[child.kind])
    return after


def _children(children: list[str | Node], before: str, after: frozenset[str], line_start: bool,
              memo: dict, plain_edges: tuple[bool, bool] = (False, False)) -> str:
    """The Markdown of a span's children, between ``before`` (the character written just
    before) and any of ``after`` (those that may follow). ``plain_edges``: write the emphasis
    that starts (ends) the children as plain text, so that the span's own delimiters touch
    its text. ``memo`` holds what was written already in the same context: a span tries up to
    four ways, and its inner spans theirs, so a long text is escaped once, not a hundred times."""
    key = (id(children), before, after, line_start, plain_edges)
    if key not in memo:
        memo[key] = _written_children(children, before, after, line_start, memo, plain_edges)
    return memo[key]


def _written_children(children: list[str | Node], before: str, after: frozenset[str],
                      line_start: bool, memo: dict, plain_edges: tuple[bool, bool]) -> str:
    parts: list[str] = []
    last = len(children) - 1
    for i, child in enumerate(children):
        if isinstance(child, str):
            opens_line = line_start if i == 0 else _is_break(children[i - 1])
            if child:
                parts.append(_escaped_piece(child, opens_line, memo))
            continue
        child_before = parts[-1][-1] if parts else before
        child_after = _starts(children, i + 1, after)
        edges = (plain_edges[0] and i == 0, plain_edges[1] and i == last)
        if child.kind in _DELIMITERS and any(edges):
            piece = _children(child.children, child_before, child_after, False, memo, edges)
        else:
            piece = _span(child, child_before, child_after, memo)
        if piece.startswith("[") and parts and parts[-1].endswith("!"):
            parts[-1] = parts[-1][:-1] + "\\!"  # "!" then "[" would make an image
        if piece:
            parts.append(piece)
    return "".join(parts)


def _escaped_piece(text: str, opens_line: bool, memo: dict) -> str:
    key = (id(text), opens_line)
    if key not in memo:
        memo[key] = escape(text) if opens_line else escape_inline(text)
    return memo[key]


def _code_span(text: str) -> str:
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or text.startswith(" ") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _is_break(child: str | Node) -> bool:
    return not isinstance(child, str) and child.kind == "br"


def _span(node: Node, before: str, after: frozenset[str], memo: dict) -> str:
    if node.kind == "br":
        return "\n"  # (``inline`` writes each as the part's own line break)
    if node.kind == "image":
        title = node.title.replace("\\", "\\\\").replace('"', '\\"')
        title = f' "{title}"' if title else ""  # (in a title only these two are special)
        return f"![{escape_inline(node.alt)}]({encoded_url(node.url)}{title})"
    if node.kind in _RAW_HTML:
        inner = _children(node.children, ">", frozenset("<"), False, memo)
        return f"<{node.kind}>{inner}</{node.kind}>" if inner else ""
    if node.kind == "code":
        return _code_span(node.text)
    if node.kind == "link":
        inner = _children(node.children, "[", frozenset("]"), False, memo)
        return f"[{inner}]({encoded_url(node.url)})" if inner else ""
    # the children's own emphasis first; else theirs at the span's edges as plain text
    styled_edges = any(not isinstance(c, str) and c.kind in _DELIMITERS
                       for c in node.children[:1] + node.children[-1:])
    for plain_edges in ((False, False), (True, True))[: 2 if styled_edges else 1]:
        for delimiter in _DELIMITERS[node.kind]:
            char = delimiter[0]
            inner = _children(node.children, char, frozenset(char), False, memo, plain_edges)
            if not inner:
                return ""
            if (char not in (before, inner[0], inner[-1]) and _opens(before, inner[0], char)
                    and all(_closes(inner[-1], next_char, char) for next_char in after)):
                return f"{delimiter}{inner}{delimiter}"
    return _children(node.children, before, after, False, memo)  # no delimiter a parser reads


def inline(block: Block, options: RenderOptions, base: str | None, line_start: bool,
           cell: bool = False) -> str:
    """A block's text as Markdown inline content (``line_start``: it opens a line); in a table
    ``cell``, which holds one line, its line breaks are spaces."""
    if not block.marks:
        return escape(block.text) if line_start else escape_inline(block.text)
    tree = _joined_code(inline_tree(block, options, base), cell)
    text = _children(tree.children, "", frozenset(("",)), line_start, {})
    return text.replace("\n", " " if cell else _HARD_BREAK)


def _joined_code(node: Node, cell: bool) -> Node:
    """The tree with its code spans side by side joined into one (their backticks would touch)
    and, in a table ``cell``, the pipes in code escaped."""
    children: list[str | Node] = []
    for child in node.children:
        if isinstance(child, str) or child.kind != "code":
            children.append(child if isinstance(child, str) else _joined_code(child, cell))
            continue
        text = child.text.replace("|", "\\|") if cell else child.text
        last = children[-1] if children else None
        if isinstance(last, Node) and last.kind == "code":
            children[-1] = replace(last, children=[last.text + text])
        else:
            children.append(replace(child, children=[text]))
    return replace(node, children=children)


def _code(block: Block) -> str:
    longest = max((len(m) for m in _BACKTICKS.findall(block.text)), default=2)
    fence = "`" * max(longest + 1, 3)
    return f"{fence}{block.code_language}\n{block.text}\n{fence}"


def _list(items: list[Item], options: RenderOptions, base: str | None) -> str:
    """Nested lists with the page's numbers; an item's further blocks (paragraphs, code,
    quotes) under it, each line led by the prefixes of the containers it is in. Lists of one
    kind side by side are written as one, as a browser shows them (CommonMark would join them
    anyway: only another delimiter would keep them apart)."""
    lines: list[str] = []
    open_: list[list[str]] = []  # per open container: [kind, its next line's prefix, others']
    for item in items:
        del open_[len(open_) - item.closes :]
        if item.continues:  # another block of the same item: a blank line, in its quotes
            lines.append("".join(rest for _, _, rest in open_).rstrip())
        for kind in item.opens:
            open_.append(_container(kind, item, open_[-1] if open_ else None))
        for line in render_part(item.part, options, base).split("\n"):
            prefix = "".join(first for _, first, _ in open_)
            lines.append(prefix + line if line else prefix.rstrip())
            for container in open_:
                container[1] = container[2]
    return "\n".join(lines)


def _container(kind: str, item: Item, parent: list[str] | None) -> list[str]:
    """What a list, an item or a quote puts before its first line and before the others: a
    list nested right in an item is indented past the item's text, by ``_INDENT`` at least."""
    if kind == "quote":
        return [kind, "> ", "> "]
    if kind == "item":
        marker = f"{min(max(item.number, 0), _MAX_NUMBER)}." if item.kind == "ol" else "-"
        return [kind, marker + " ", " " * (len(marker) + 1)]
    width = len(parent[2]) if parent is not None and parent[0] == "item" else len(_INDENT)
    indent = " " * (max(len(_INDENT), width) - width)
    return [kind, indent, indent]


def _heading(block: Block, options: RenderOptions, base: str | None) -> str:
    return "#" * block.heading + " " + inline(block, options, base, False)


def _table(part: Part, options: RenderOptions, base: str | None) -> str:
    """A pipe table after its caption's paragraph; a cell is one line, so its blocks (and line
    breaks) are joined by spaces."""
    rows = part.rows
    lines = ["| " + " | ".join(" ".join(inline(b, options, base, False, cell=True) for b in cell)
                               or " " for cell in row) + " |" for row in rows]
    lines.insert(1, "|" + "|".join(" --- " for _ in rows[0]) + "|")
    if part.block is not None:
        lines[:0] = [inline(part.block, options, base, True), ""]
    return "\n".join(lines)


def _definitions(part: Part, options: RenderOptions, base: str | None) -> str:
    """A definition list: per entry its terms' lines, then a ``: `` line per definition;
    entries apart, and the blocks of an entry with a definition of several paragraphs as
    paragraphs of their own."""
    def lines(groups: tuple[tuple[Block, ...], ...]) -> list[str]:
        return [_LEADING_COLON.sub(r"\\:", inline(block, options, base, True))
                for group in groups for block in group]

    paragraphs = []
    for entry in part.entries:
        terms, definitions = lines(entry.terms), lines(entry.definitions)
        if len(definitions) == len(entry.definitions):
            # (a term's line breaks are spaces: each line before a ": " line is a term)
            paragraphs.append("\n".join([*(term.replace(_HARD_BREAK, " ") for term in terms),
                                          *(": " + text for text in definitions)]))
        else:
            paragraphs += terms + definitions
    return "\n\n".join(paragraphs)


def render_part(part: Part, options: RenderOptions, base: str | None) -> str:
    """One part as Markdown (without its blockquote markers)."""
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
    return inline(part.block, options, base, True)


def _quoted(text: str, depth: int) -> str:
    marker = "> " * depth
    return "\n".join((marker + line).rstrip() for line in text.split("\n"))


def render(result: Extraction, options: RenderOptions) -> str:
    """The kept blocks as Markdown, parts separated by a blank line, which carries the quote
    markers the two parts share (a nested quote stays in the one around it), after a
    front-matter header when ``with_metadata``."""
    base = result.metadata.base_url if options.links or options.images else None
    out: list[str] = []
    previous = 0
    for part in layout(written_blocks(result.blocks, options.images, base)):
        text = render_part(part, options, base)
        if out:
            out.append("\n" + ("> " * min(part.quote, previous)).rstrip() + "\n")
        out.append(_quoted(text, part.quote) if part.quote else text)
        previous = part.quote
    body = "".join(out)
    return front_matter(result.metadata) + body if options.with_metadata else body
