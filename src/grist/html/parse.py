"""Parse a Document's source into a DOM with lexbor (via selectolax), within the caps.

lexbor follows the WHATWG tree-construction rules, so broken HTML parses as browsers would, and it
has no depth truncation (libxml2 silently drops content below depth 256). Its parse time grows with
the square of the nesting depth, so very deep pages are refused before parsing (Limits.max_depth).
The parser was chosen by measurement: see docs/decisions.md.
"""

from __future__ import annotations

import re

import numpy as np
from selectolax.lexbor import LexborHTMLParser

from grist.document import Document
from grist.errors import LimitExceededError
from grist.limits import Limits

# Elements that never nest: void elements and those the tree builder closes implicitly.
_NON_NESTING = (
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr", "p", "li", "dt", "dd", "tr", "td", "th", "option", "optgroup", "rb", "rp", "rt",
    "rtc", "thead", "tbody", "tfoot", "colgroup", "caption", "html", "head", "body",
)
_FOREIGN = ("svg", "math")
# A tag that nests: whether it closes, whether it is <svg>/<math>, whether it ends with "/>"
# (self-closing: SVG's thousands of <path/> elements). A name is a letter and letters or digits,
# compared without case; the non-nesting ones are skipped by the pattern itself.
_END_OF_NAME = r"(?![a-zA-Z0-9])"
_NESTING_TAG = re.compile(
    rf"<(/?)(?!(?i:{'|'.join(_NON_NESTING)}){_END_OF_NAME})"
    rf"(?:((?i:{'|'.join(_FOREIGN)})){_END_OF_NAME}|[a-zA-Z][a-zA-Z0-9]*+)(?:[^<>]*+(?<=(/))>)?",
    re.ASCII,
)  # possessive runs: "/" before the first ">" is found without backtracking over attributes
_FOREIGN_OPEN = re.compile(rf"<(?i:{'|'.join(_FOREIGN)}){_END_OF_NAME}", re.ASCII)
# Without svg/math only the order of opening and closing nesting tags matters: "x" or "/x" each.
_NESTING_START = re.compile(
    rf"<(/?(?!(?i:{'|'.join(_NON_NESTING)}){_END_OF_NAME})[a-zA-Z])", re.ASCII
)
_NOT_TAG_START = re.compile(r"<(?![a-zA-Z/!])")
_TITLE = re.compile("<[tT][iI][tT][lL][eE]")
_TITLE_END = re.compile("</[tT][iI][tT][lL][eE]")


def estimate_depth(source: str, stop_at: int) -> int:
    """Upper estimate of the element nesting depth of ``source``; stops counting past ``stop_at``.

    Inside ``<svg>`` and ``<math>`` a tag ending in ``/>`` closes itself, as in the tree builder;
    elsewhere ``/>`` is ignored (``<div/>`` opens a div), so it cannot hide real nesting.
    """
    if _FOREIGN_OPEN.search(source) is None:
        return _plain_depth(source, stop_at)
    depth = deepest = 0
    foreign_from = 0  # depth of the outermost open <svg>/<math>; 0 when outside
    for closing, foreign, self_closing in _NESTING_TAG.findall(source):
        if self_closing and foreign_from:
            continue
        if closing:
            depth = max(depth - 1, 0)
            if depth < foreign_from:
                foreign_from = 0
            continue
        depth += 1
        if foreign and not foreign_from and not self_closing:
            foreign_from = depth
        if depth > deepest:
            deepest = depth
            if deepest > stop_at:
                break
    return deepest


def _plain_depth(source: str, stop_at: int) -> int:
    """``estimate_depth`` of a page without ``<svg>``/``<math>``, with array operations.

    The depth after each tag is ``max(previous + step, 0)`` for steps of +1 (open) and -1
    (close): the running sum of the steps minus its lowest point so far below 0.
    """
    marks = np.frombuffer("".join(_NESTING_START.findall(source)).encode("ascii"), np.uint8)
    slash = marks == ord("/")
    closing = np.concatenate(([False], slash[:-1]))[~slash]
    total = np.cumsum(1 - 2 * closing.astype(np.int64))
    if not len(total):
        return 0
    deepest = int((total - np.minimum(np.minimum.accumulate(total), 0)).max())
    return min(deepest, max(stop_at, 0) + 1)  # the loop stops counting one past stop_at


def check_structure(source: str, limits: Limits) -> int:
    """Raise LimitExceededError if the page has too many tags or nests too deep; return tag count."""
    tags = source.count("<") - len(_NOT_TAG_START.findall(source))  # faster than finding tags
    if tags > limits.max_tags:
        raise LimitExceededError(
            f"the page has {tags} tags; the limit is {limits.max_tags} (Limits.max_tags)"
        )
    if tags > limits.max_depth:
        depth = estimate_depth(source, limits.max_depth)
        if depth > limits.max_depth:
            raise LimitExceededError(
                f"the page nests elements more than {limits.max_depth} deep "
                "(Limits.max_depth)"
            )
    return tags


def close_unterminated_title(source: str) -> str:
    """End a ``<title>`` that is never closed at the next tag, as libxml2 does.

    A browser would read the rest of the page as the title's text and show an empty page; some
    damaged pages (7 of L3S-GN1's 621) have such a title and their whole text after it.
    """
    if "\u0130" in source:  # the one character that lower-casing lengthens: offsets would move
        lowered = source.lower()
        start, closed = lowered.find("<title"), "</title" in lowered
    else:  # no need to lower-case the whole page (only ASCII letters lower-case to ASCII "title")
        found = _TITLE.search(source)
        start, closed = (found.start() if found else -1), _TITLE_END.search(source) is not None
    if start < 0 or closed:
        return source
    end = source.find(">", start)
    cut = source.find("<", end) if end >= 0 else -1
    if cut < 0:
        return source
    return f"{source[:cut]}</title>{source[cut:]}"


def parse_document(doc: Document, limits: Limits | None = None) -> Document:
    """Fill ``doc.dom`` (and ``doc.title`` when the source had none); returns ``doc``."""
    limits = limits or Limits()
    check_structure(doc.html, limits)
    doc.dom = LexborHTMLParser(close_unterminated_title(doc.html))
    if not doc.title:
        node = doc.dom.css_first("title")
        if node is not None:
            doc.title = " ".join(node.text(deep=True).split())
    return doc
