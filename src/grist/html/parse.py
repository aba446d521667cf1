"""Parse a Document's source into a DOM with lexbor (via selectolax), within the caps.

lexbor follows the WHATWG tree-construction rules, so broken HTML parses as browsers would, and it
has no depth truncation (libxml2 silently drops content below depth 256). Those rules can make it
build far more than the page holds (deep nesting costs it quadratic time; unclosed formatting
tags are re-opened in every paragraph), so ``grist.html.structure`` bounds the depth and the
elements it would build before it is asked (Limits.max_depth, Limits.max_tags); a page whose
depth alone is in doubt, and small enough for the quadratic time not to matter, has it read from
the parsed tree instead. The parser was chosen by measurement: see docs/decisions.md.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser, SelectolaxError

from grist.document import Document
from grist.errors import LimitExceededError, ParseError
from grist.html.structure import (ATTRIBUTE_WORK, StructureLimit, TagCensus, census, measure,
                                  quick_bound)
from grist.html.tokens import RAWTEXT, RCDATA, raw_text_end
from grist.limits import Limits

# Start and end tags as the tokenizer reads them: the name (ASCII letters in any case), then a
# space, "/" or ">" (``<titlex>`` and ``<noscript-x>`` are other elements); where a raw-text
# element's content ends is ``grist.html.tokens.raw_text_end``'s call.
_TITLE = re.compile(r"<title(?=[\t\n\f\r />])", re.IGNORECASE | re.ASCII)
# A start tag with no ">" after it runs to the end of the input (group "cut"): the searches stop
# there instead of trying every later "<" again, each try reading to the end.
_NOSCRIPT_OPEN = re.compile(r"<noscript(?=[\t\n\f\r />])[^>]*+(?:>|(?P<cut>\Z))",
                            re.IGNORECASE | re.ASCII)
_NOSCRIPT_CLOSE = re.compile(r"</noscript[\t\n\f\r />]", re.IGNORECASE | re.ASCII)
# Elements whose content the tokenizer reads as raw text up to their own end tag.
_RAW_TEXT = re.compile(rf"<({'|'.join(sorted(RCDATA | RAWTEXT | {'script'}))})"
                       r"(?=[\t\n\f\r />])[^>]*+(?:>|(?P<cut>\Z))", re.IGNORECASE | re.ASCII)


def check_tags(found: TagCensus, limits: Limits) -> int:
    """Raise LimitExceededError if the page (its ``census``) has more tags (``<`` characters
    followed by a letter, ``/`` or ``!``) than Limits.max_tags; return the count."""
    tags = found.tags
    if tags > limits.max_tags:
        raise LimitExceededError(
            f"the page has {tags} tags; the limit is {limits.max_tags} (Limits.max_tags)"
        )
    return tags


def check_structure(source: str, limits: Limits) -> int:
    """Raise LimitExceededError if the page has too many tags, nests too deep, or would make the
    parser build too many elements; return the tag count."""
    return _check(source, limits, parse_next=False)[0].tags


def check_before_parsing(source: str, limits: Limits) -> tuple[TagCensus, bool]:
    """``check_structure`` for a page about to be parsed: the page's census, and True when its
    depth is left to ``check_depth`` on the parsed tree."""
    return _check(source, limits, parse_next=True)


# Nesting the parser may be asked to build before its depth is known: lexbor nests 16,000
# elements in about 0.2 s (its time grows with the square of the depth).
PARSED_DEPTH = 16_000


def _check(source: str, limits: Limits, parse_next: bool) -> tuple[TagCensus, bool]:
    """``check_structure`` (the page's census), and whether the depth is left to ``check_depth``
    on the parsed page.

    The quick bound counts every start tag as a possible level, so large pages (a few thousand
    tags) pass their depth cap on it alone while nesting twenty deep. When the page is about to
    be parsed (``parse_next``), its other bounds hold and its depth bound is at most
    ``PARSED_DEPTH``, measuring the parsed tree is far cheaper than running the rules.
    """
    found = census(source)
    check_tags(found, limits)
    deferrable = max(limits.max_depth, PARSED_DEPTH) if parse_next else limits.max_depth
    bound = quick_bound(source, deferrable, limits.max_tags, found)  # settles most real pages
    if bound.elements <= limits.max_tags and bound.attribute_work <= ATTRIBUTE_WORK:
        if bound.depth <= limits.max_depth:
            return found, False
        if bound.depth <= deferrable:
            return found, True
    try:
        measure(source, limits.max_depth, limits.max_tags)
    except StructureLimit as hit:
        raise _structure_error(hit, limits) from None
    return found, False


def check_depth(dom: LexborHTMLParser, limits: Limits) -> None:
    """Raise LimitExceededError if a parsed page nests elements deeper than Limits.max_depth."""
    depth = tree_depth(dom)
    if depth > limits.max_depth:
        raise _structure_error(StructureLimit("depth", depth), limits)


def tree_depth(dom: LexborHTMLParser) -> int:
    """The deepest element nesting of a parsed page, html and body not counted (as the tree
    rules of ``grist.html.structure`` count it)."""
    if dom.root is None:
        return 0
    stack = [(dom.root, 1)]
    pop, push, deepest = stack.pop, stack.append, 1
    while stack:
        node, depth = pop()
        deepest = max(deepest, depth)
        for child in node.iter(include_text=False):
            push((child, depth + 1))
    return max(deepest - 2, 0)


def _structure_error(hit: StructureLimit, limits: Limits) -> LimitExceededError:
    if hit.what == "depth":
        return LimitExceededError(
            f"the page nests elements more than {limits.max_depth} deep (Limits.max_depth)")
    if hit.what == "elements":
        return LimitExceededError(
            f"the page would make the HTML parser build more than {limits.max_tags} elements "
            "(unclosed formatting tags are re-opened in every block); the limit is "
            f"{limits.max_tags} (Limits.max_tags)")
    if hit.what == "attributes":
        return LimitExceededError(
            "the page's tags hold too many attributes for the HTML parser (it compares each "
            "attribute of a tag with the others: tens of thousands on one tag take seconds)")
    return LimitExceededError(
        "the page's misnested formatting tags are too tangled for the HTML parser (untangling "
        "them would move elements more than 16 times per character of the page)")


def close_unterminated_title(source: str) -> str:
    """End a ``<title>`` that is never closed at the next tag, as libxml2 does.

    A browser would read the rest of the page as the title's text and show an empty page; some
    damaged pages (7 of L3S-GN1's 621) have such a title and their whole text after it.
    """
    found = _TITLE.search(source)
    end = source.find(">", found.end()) if found else -1
    if end < 0 or raw_text_end(source, end + 1, "title") < len(source):  # no title, or closed
        return source
    cut = source.find("<", end)
    if cut < 0:
        return source
    return f"{source[:cut]}</title>{source[cut:]}"


def close_noscript_raw_text(source: str) -> str:
    """Close, at the end of their ``<noscript>``, raw-text elements left open inside it.

    grist parses ``noscript`` content as markup (as a browser with scripting off does; some
    forums serve their posts only there). A ``<noscript><iframe/></noscript>``, common in tracking
    snippets, then opens an iframe whose raw text runs to the end of the page, since ``/>`` does
    not close an iframe. A browser with scripting on, what page authors test with, reads
    ``noscript`` as raw text ending at ``</noscript>``: the iframe cannot outlive it. So an
    ``iframe``, ``style``, ``textarea``, ... opened and not closed inside a ``noscript`` is closed
    just after its start tag; the content of one that is closed is text, skipped.

    Each search goes forward only, so the work is linear in the page: once an element is never
    closed, no later one of its name is looked up (exact for every name but ``script``, whose
    escapes can let a later script close where an earlier one does not; such a later script is
    then closed at its start tag too).
    """
    pieces: list[str] = []
    last = 0
    position = 0
    while True:
        opened_noscript = _NOSCRIPT_OPEN.search(source, position)
        if opened_noscript is None or opened_noscript["cut"] is not None:
            break
        start = opened_noscript.end()
        closed = _NOSCRIPT_CLOSE.search(source, start)
        end = closed.start() if closed else len(source)
        position = end
        inner = source[start:end]
        at = 0
        never_closed: set[str] = set()
        while (opened := _RAW_TEXT.search(inner, at)) is not None and opened["cut"] is None:
            name = opened.group(1).lower()
            at = opened.end()
            if name not in never_closed:
                content_end = raw_text_end(inner, at, name)
                if content_end < len(inner):
                    at = content_end
                    continue
                never_closed.add(name)
            cut = start + at
            pieces += [source[last:cut], f"</{name}>"]
            last = cut
        if closed is None:
            break
    if not pieces:
        return source
    pieces.append(source[last:])
    return "".join(pieces)


def parse_document(doc: Document, limits: Limits | None = None) -> Document:
    """Fill ``doc.dom`` (and ``doc.title`` when the source had none) once the page, as repaired
    for the parser (``repaired_source``), passed ``check_structure`` (its depth measured on the
    parsed tree when only that was in doubt); returns ``doc``."""
    limits = limits or Limits()
    found, depth_unknown = check_before_parsing(doc.html, limits)
    source = repaired_source(doc.html, may_hold_noscript=found.named_starts["noscript"] > 0)
    if source is not doc.html:  # the repairs made markup of raw text: check what lexbor reads
        found, depth_unknown = check_before_parsing(source, limits)
    dom = _parsed(doc, source).dom
    if depth_unknown and dom is not None:
        check_depth(dom, limits)
    return doc


def repaired_source(html: str, may_hold_noscript: bool = True) -> str:
    """What lexbor is given: ``html`` with an unterminated title ended and raw-text elements left
    open in a ``noscript`` closed (the same object when neither is there).
    ``may_hold_noscript=False`` (the census found no ``<noscript``) skips that fix's scan."""
    source = close_unterminated_title(html)
    return close_noscript_raw_text(source) if may_hold_noscript else source


def build_dom(doc: Document, may_hold_noscript: bool = True) -> Document:
    """``parse_document`` without the structure check: only for a page whose repaired source
    (``repaired_source``) passed it."""
    return _parsed(doc, repaired_source(doc.html, may_hold_noscript))


def _parsed(doc: Document, source: str) -> Document:
    """``doc`` with the DOM of ``source`` (and its title when it had none)."""
    try:
        doc.dom = LexborHTMLParser(source)
    except (SelectolaxError, MemoryError) as exc:  # within the caps this should not happen
        raise ParseError(f"the HTML parser could not build this page ({exc})") from None
    if not doc.title:
        node = doc.dom.css_first("title")
        if node is not None:
            doc.title = " ".join(node.text(deep=True).split())
    return doc
