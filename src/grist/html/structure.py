"""Bound what the HTML tree builder will build, before it is asked to: nesting depth and elements.

Two shapes of markup cost the parser far more than their size. Depth: lexbor's tree
construction takes time quadratic in the nesting depth, and counting tags cannot see depth when
end tags close nothing (``<div></span>`` repeated nests 100,000 deep). Elements: the WHATWG rules
re-open every unclosed formatting element in each new paragraph (``<b>`` x k then ``<p>x`` x m
builds k x m elements; 81 KB became 4.3 GiB). ``measure`` runs the tree-construction rules that
move the stack of open elements and the list of active formatting elements (never the tree
itself, ``grist.html.treerules``) over the page's tokens and stops as soon as a cap is passed.

Its figures are upper bounds of what lexbor builds (the rules err towards more open elements;
tests and the fuzz suite compare them with lexbor's trees). The common tokens (text, an ordinary
start tag, the end tag of the current element) take a short path here; the rest go to the rules.
The quick bound's counts and tag scans run in C when ``grist.html._scan`` was built (one pass
over the characters instead of several regex and NumPy passes); the regex versions give the
same figures and stay as the reference and the fallback.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import numpy as np

from grist.html.doctype import quirks_mode
from grist.html.openstack import BODY, BUTTON_SCOPE, CELL, HTML, SCOPE, StructureLimit
from grist.html.tokens import TAG_BODY, TAG_REST, raw_text_end, skip_declaration
from grist.html.treerules import BLOCKS, OWN_END_RULES, OWN_START_RULES, VOID, TreeRules

try:  # the same scans compiled (built with the package when a C compiler is there)
    from grist.html import _scan
except ImportError:  # pragma: no cover - an install without a compiler
    _scan = None

__all__ = ["ATTRIBUTE_WORK", "Structure", "StructureLimit", "TagCensus", "census", "measure",
           "quick_bound"]

# The next markup at a "<": a whole tag (1 "/", 2 name, 3 attributes, 4 separators before ">"),
# or 5: "!" (comment, doctype), "?" (bogus comment), "/" without a name, or a tag cut by the end
# of the input (a name that never reaches ">").
_MARKUP = re.compile(rf"<(?:(/?){TAG_BODY}|(!|\?|/(?![a-zA-Z])|/?[a-zA-Z]))")
_VISIBLE = re.compile(r"[^\t\n\f\r \x00]")
_UPPER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
# The start tags measure() handles itself: 0 ordinary (pushed), 1 a block (closes an open <p>
# first), 2 void (re-opens formatting, made and popped at once).
_QUICK = {**{name: 1 for name in BLOCKS}, **{name: 2 for name in VOID if name not in ("input", "keygen")}}


@dataclass(frozen=True)
class Structure:
    """Upper bounds for a page: the deepest nesting (html and body not counted), the number of
    elements the tree builder creates (implied and re-opened ones included) and the attribute
    comparisons its tokenizer makes."""

    depth: int
    elements: int
    attribute_work: int = 0


_NAME = re.compile(r"<(/?[a-zA-Z][a-zA-Z0-9]*)")
_WHOLE_TAG = re.compile(rf"</?{TAG_BODY}")  # groups: name, attributes, separators
# A tag that never reaches its ">" runs to the end of the input (the tokenizer makes no tag of
# it or of anything after it): the scans take the rest there as one match (group "cut"), where
# a failed match would be tried again at every later "<", each try reading to the end (a page of
# "<b c <b c ..." cost seconds per 100 KB, growing with the square of its length).
_OR_CUT = r"|(?P<cut>[\s\S]*+)"
# ``_WHOLE_TAG``, or (group "cut") the rest of the input from a place where a tag is cut.
_WHOLE_TAG_OR_CUT = re.compile(rf"</?(?=[a-zA-Z])(?:{TAG_BODY}{_OR_CUT})")
# lexbor compares each attribute of a tag with the ones before it: k attributes cost k^2 steps
# (62,000 attributes on one tag took it 6 s). Every attribute starts with a character after a
# separator or a quote, so these counts bound the attributes of a tag and of a page.
_ATTRIBUTE_START = re.compile(r"(?<=[\t\n\f\r /\"'])[^\t\n\f\r />]")
ATTRIBUTE_WORK = 1_000_000_000  # about 1.7 s of lexbor's comparisons


# The same attribute starts, counted over a whole page at C speed: a byte after a separator or a
# quote that is not a separator, "/" or ">" (in UTF-8 a non-ASCII character starts with one byte
# >= 0x80, which counts once, and its continuation bytes follow no separator). Each table maps a
# byte to 1 when it is of its kind (``bytes.translate``: one pass in C, no index arrays).
_AFTER = bytes(int(chr(b) in "\t\n\f\r /\"'") for b in range(256))
_STARTS = bytes(int(chr(b) not in "\t\n\f\r />") for b in range(256))
_WINDOW = 1 << 20  # characters per slice: bounded memory on pages of any size


def attribute_starts(source: str) -> int:
    """How many characters of ``source`` start an attribute (as ``_ATTRIBUTE_START`` counts
    them), counted in slices of ``_WINDOW`` characters."""
    count = 0
    for pos in range(0, len(source), _WINDOW):
        data = source[max(pos - 1, 0):pos + _WINDOW].encode("utf-8", "surrogatepass")
        after = np.frombuffer(data.translate(_AFTER), dtype=np.uint8)
        starts = np.frombuffer(data.translate(_STARTS), dtype=np.uint8)
        count += int(np.count_nonzero(after[:-1] & starts[1:]))
    return count


def attribute_work(attrs: str) -> int:
    """An upper bound of lexbor's attribute comparisons for a tag's attribute text."""
    if len(attrs) <= 512:
        return (len(attrs) // 2 + 1) ** 2
    return _squared_starts(attrs)


def _squared_starts(attrs: str) -> int:
    """(attribute starts + 1)^2 of a tag's attribute text: its comparisons, bounded."""
    return (len(_ATTRIBUTE_START.findall(" " + attrs)) + 1) ** 2


_FORMATTING = ("a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike",
               "strong", "tt", "u")
# The tag names whose start and end tags the quick bound counts one by one.
# (``noscript`` for parsing: a page without one skips ``close_noscript_raw_text``'s scan)
COUNTED = tuple(sorted({*_FORMATTING, "td", "th", "tr", "col", "form", "br", "p", "noscript"}))
_NOT_TAG_START = re.compile(r"<(?![a-zA-Z/!])")


@dataclass(frozen=True)
class TagCensus:
    """What the quick bound counts on a page: ``<`` characters, tags (``<`` + letter, ``/`` or
    ``!``), start and end tags (``_NAME`` matches) in all and of each ``COUNTED`` name, and
    attribute starts."""

    opens: int
    tags: int
    starts: int
    ends: int
    named_starts: dict[str, int]
    named_ends: dict[str, int]
    attributes: int


def compiled_scans() -> bool:
    """Whether the page scans run in C (``grist.html._scan``; else regexes: same figures)."""
    return _scan is not None


def census(source: str) -> TagCensus:
    """The page's ``TagCensus``, by the compiled scan when it was built (16 bytes at a time where
    the processor allows), else by ``census_by_patterns`` (same figures)."""
    if _scan is None:
        return census_by_patterns(source)
    opens, tags, starts, ends, named_starts, named_ends, attributes = _scan.census(source, COUNTED)
    return TagCensus(opens, tags, starts, ends, dict(zip(COUNTED, named_starts)),
                     dict(zip(COUNTED, named_ends)), attributes)


def census_by_patterns(source: str) -> TagCensus:
    """``census`` with regexes and NumPy: the reference the compiled scan is tested against."""
    starts: dict[str, int] = {}
    ends: dict[str, int] = {}
    for name, n in Counter(_NAME.findall(source)).items():  # counted in C, folded per name
        counts, name = (ends, name[1:].lower()) if name[0] == "/" else (starts, name.lower())
        counts[name] = counts.get(name, 0) + n
    opens = source.count("<")
    tags = opens - len(_NOT_TAG_START.findall(source))  # faster than finding tags
    return TagCensus(opens, tags, sum(starts.values()), sum(ends.values()),
                     {n: starts.get(n, 0) for n in COUNTED}, {n: ends.get(n, 0) for n in COUNTED},
                     attribute_starts(source))


# Text without a "<", then the end tag of the name in group 1.
_OWN_END_AFTER_TEXT = r"[^<]*+</\1(?=[\t\n\f\r />])"
# The formatting start tags other than <a>, scanned as the tokenizer ends them (groups: name,
# attributes, separators), and group 4 the element's own end tag when only text lies between
# (no "<": no tag, comment or raw text): from its start tag to its end tag such an element is
# the current node and the last entry of the list of active formatting elements, so nothing is
# re-opened inside it, and its end tag takes it off the list. ASCII-only case folding: "ſ" must
# not pass for "s".
_FORMATTING_TAG = re.compile(
    rf"<({'|'.join(sorted(set(_FORMATTING) - {'a'}, key=len, reverse=True))})(?=[\t\n\f\r />])"
    rf"(?:{TAG_REST}({_OWN_END_AFTER_TEXT})?{_OR_CUT})", re.IGNORECASE | re.ASCII)

# Every start tag, scanned as the tokenizer ends it (groups: name, attributes, separators), and
# group 4 its own end tag when only text lies between: such an element is open only while its
# text is read, and the end tag pops it in every insertion mode, except for the names in
# _OUTLIVES_ITS_END_TAG.
_CLOSED_AT_ONCE = re.compile(
    rf"<([a-zA-Z][^\t\n\f\r />]*+)(?:{TAG_REST}({_OWN_END_AFTER_TEXT})?{_OR_CUT})",
    re.IGNORECASE | re.ASCII)
# Left counted: ``</body>`` and ``</html>`` leave their element open, ``</plaintext>`` is text,
# ``</form>`` may leave formatting elements that the text re-opened inside the form open, and
# ``head`` and ``frameset`` switch the insertion mode (no page needs them discounted).
_OUTLIVES_ITS_END_TAG = frozenset(("html", "head", "body", "form", "frameset", "plaintext"))


def quick_bound(source: str, max_depth: int | None = None, max_elements: int | None = None,
                counted: TagCensus | None = None) -> Structure:
    """Looser upper bounds from tag counts alone (no rules run), enough for most real pages.

    With S start tags (every ``<`` + letter counts, real or not), F formatting ones of which A
    are ``<a>``, C table-cell, row and column tags and T places that may re-open formatting
    elements (text runs, start tags, ``</br>``): an open element comes from a start tag, an
    implied tbody/tr/colgroup (two per cell tag at most), a re-opened formatting element (at
    most F at once) or html/body; an element taken off the stack stays above its children only
    for ``</form>`` and a repeated ``<a>`` (the adoption agency moves children up, not down).
    Elements: each trigger re-opens at most the entries after the last marker (one ``<a>`` and
    the other F - A), each adoption agency run (a formatting end tag, ``<a>``, ``<nobr>``) makes
    at most 8 x 4 copies, and ``</p>``/``</br>`` make one element each.

    When that elements bound passes ``max_elements``, one more scan tightens it: an element
    closed by its own end tag with only text between is never re-opened (icons, ``<b>word</b>``),
    and the list of formatting entries keeps at most three alike (same name and attributes)
    after the last marker (Noah's Ark), so a trigger re-opens at most three per distinct
    formatting start tag left open besides the ``<a>`` (many pages repeat a few ``<strong>`` or
    ``<font ...>`` tags hundreds of times). Attribute comparisons likewise: past the page-wide
    bound, a scan bounds them tag by tag (large pages hold tens of thousands of attributes, a few
    on each tag). The tightening scans run only while the other bounds hold their caps
    (``max_depth``, ``max_elements``; None: no cap), since past a cap ``measure`` runs anyway.

    Before those, when the depth or elements bound passes its cap, a scan finds the elements
    closed at once: a start tag, text only, the element's own end tag (most links and spans of a
    large page; ``_closed_at_once``). Only one of them is open at any time, so together they
    count one level of depth, not one each; a formatting one is never re-opened (one entry
    fewer to re-open at once), and its end tag runs the adoption agency with nothing above it:
    no copies. An ``<a>`` start tag runs the agency for an older ``<a>`` still on the list and
    takes that one off the list; an ``<a>`` closed at once leaves the list before any start tag,
    so each takes one run off the ``<a>`` start tags' runs too (and one off the links that stay
    above their children).
    """
    found = counted or census(source)
    starts, ends, total = found.named_starts, found.named_ends, found.starts
    formatting = sum(starts[n] for n in _FORMATTING)
    links = starts["a"]
    cells = sum(starts[n] for n in ("td", "th", "tr", "col"))
    triggers = found.opens + 1 + total + ends["br"]
    attributes = found.attributes
    work = (attributes + 1) ** 2
    depth = total + 2 * cells + formatting + starts["form"] + links + 3
    runs = sum(ends[n] for n in _FORMATTING) + links + starts["nobr"]
    fixed = total + 2 * cells + ends["p"] + ends["br"] + 3 + triggers + 32 * runs
    reopened = formatting - links  # formatting entries besides the <a> a trigger may re-open
    if ((max_depth is not None and depth > max_depth)
            or (max_elements is not None and fixed + triggers * reopened > max_elements)):
        closed = _closed_at_once(source)
        closed_formatting = sum(closed[n] for n in _FORMATTING) + closed["a"]  # (<a> twice)
        depth -= max(closed.total() - 1, 0) + closed_formatting
        fixed -= 32 * closed_formatting
    if max_depth is not None and depth > max_depth:  # measure() runs anyway: no more tightening
        return Structure(depth, fixed + triggers * reopened, work)
    if max_elements is not None and fixed + triggers * reopened > max_elements:
        reopened = _reopenable_formatting(source, reopened)
    elements = fixed + triggers * reopened
    if work > ATTRIBUTE_WORK and (max_elements is None or elements <= max_elements):
        work = min(work, _attribute_work_by_tag(source, total + found.ends, attributes))
    return Structure(depth, elements, work)


def _attribute_work_by_tag(source: str, tags: int, attributes: int) -> int:
    """The attribute comparisons of all tags together, bounded tag by tag.

    A tag of k attributes costs at most (k + 1)^2; its k is at most its attribute starts, so
    the sum of (starts + 1)^2 over the tags bounds them all. So does (K + 1) times the k of all
    tags plus one each, K the most any one tag holds (at most half its attribute text, plus one)
    and the k adding up to at most the page's ``attributes`` starts: the smaller counts.
    """
    longest, squares = _attribute_scan(source, tags, attributes)
    return min(squares, (longest // 2 + 2) * (attributes + tags))


STARTS_SQUARED_MOST = 2 ** 63 - 1  # where the sum of squares stops (the C scan's 64 bits)


def _attribute_scan(source: str, tags: int, attributes: int) -> tuple[int, int]:
    """``attribute_scan_by_patterns``, by the compiled scan when it was built."""
    if _scan is None:
        return attribute_scan_by_patterns(source, tags, attributes)
    return _scan.attribute_scan(source, tags, attributes)


def attribute_scan_by_patterns(source: str, tags: int, attributes: int) -> tuple[int, int]:
    """The longest attribute text any tag of the page may have, and the sum over its tags of
    (attribute starts + 1)^2.

    Each of the ``tags`` places where a ``<`` + letter may start a tag is scanned as the
    tokenizer reads a tag from there (``TAG_BODY``; where a quote is never closed the tokenizer
    ends the tag's attributes at it, the scan reads on: a superset). When one pass, tag after
    tag, starts a tag at every place, it has scanned them all; else (a quote in a script made
    one tag swallow the next) the places it did not start a tag at are scanned one by one. A tag
    the input cuts has attributes to the end: at most the page's ``attributes`` starts, and one
    more for the character after its name. The pass stops at such a tag, and past the first
    place that is one, every place is counted so without being matched (matching each would
    read to the end again and again).
    """
    tags_scanned = []
    for tag in _WHOLE_TAG_OR_CUT.finditer(source):
        if tag["cut"] is not None:
            break
        tags_scanned.append(tag)
    longest = max((tag.end(2) - tag.start(2) for tag in tags_scanned), default=0)
    squares = sum(_squared_starts(tag.group(2)) for tag in tags_scanned)
    if len(tags_scanned) == tags:
        return longest, min(squares, STARTS_SQUARED_MOST)
    scanned = {tag.start() for tag in tags_scanned}
    cut = False
    for place in _NAME.finditer(source):
        if place.start() in scanned:
            continue
        if not cut:
            whole = _WHOLE_TAG.match(source, place.start())
            if whole:
                longest = max(longest, whole.end(2) - whole.start(2))
                squares += _squared_starts(whole.group(2))
                continue
            cut = True
            longest = max(longest, len(source) - place.start())
        squares += (attributes + 2) ** 2
    return longest, min(squares, STARTS_SQUARED_MOST)


def _closed_at_once(source: str) -> Counter[str]:
    """How many start tags of each name open an element its own end tag closes with only text
    between (ASCII case folded).

    From its start tag to its end tag such an element is the current node: no start tag comes
    before its end, so no two of them are open at once, and what text re-opens inside it
    (formatting elements) the depth bound counts already. A match that is no tag (inside a
    comment, a script, another tag's quoted value) takes off a ``<`` + letter that was counted
    as a start tag without being one.
    """
    closed = Counter(match[1].translate(_UPPER) for match in _CLOSED_AT_ONCE.finditer(source)
                     if match[4])
    for name in _OUTLIVES_ITS_END_TAG:
        closed.pop(name, None)
    return closed


def _reopenable_formatting(source: str, occurrences: int) -> int:
    """How many formatting entries besides ``<a>`` a trigger may re-open at once.

    An element closed by its own end tag with only text between (``<i class="icon"></i>``,
    ``<b>word</b>``) is the current node for its whole life and leaves the list at its end tag:
    it is never re-opened. Of the others, the list keeps at most three alike (name and
    attribute text) after the last marker (Noah's Ark). Where the scan started no tag at some
    of the ``occurrences`` (each ``<b``, ``<font`` ... the tag counts saw), a scanned tag
    swallowed them (a quoted value holding markup, a quote left open) or the name goes on
    (``<b-x>``): each such place, each scanned tag whose attribute text holds a ``<`` and a tag
    the input cuts count as an entry of their own, open and unlike the others, so the bound
    holds whatever the tokenizer makes of them.
    """
    found = list(_FORMATTING_TAG.finditer(source))
    unsure = occurrences - len(found)
    left_open = []
    for match in found:
        if match["cut"] is not None or (unsure and "<" in match[2]):
            unsure += 1
        elif not match[4]:
            left_open.append((match[1].lower(), match[2]))
    return min(len(left_open), 3 * len(set(left_open))) + unsure


def measure(source: str, max_depth: int, max_elements: int) -> Structure:
    """Run the tree-construction rules over ``source``; raise StructureLimit as soon as the
    nesting passes ``max_depth``, the elements pass ``max_elements`` or the attribute
    comparisons pass ``ATTRIBUTE_WORK``."""
    rules = TreeRules(max_depth, max_elements, len(source), quirks_mode(source))
    stack, afe, named = rules.stack, rules.afe, rules.by_name
    search, size, pos, work = _MARKUP.search, len(source), 0, 0
    while pos < size:
        found = search(source, pos)
        at = found.start() if found is not None else size
        if at > pos:  # text: it re-opens the formatting elements that were closed around it
            if rules.frameset_ok and _VISIBLE.search(source, pos, at):  # (NUL is dropped)
                rules.frameset_ok = False
            if afe and (last := afe[next(reversed(afe))]) is not None and last.at < 0:
                rules.text(source, pos, at)
            if found is None:
                break
        closing, name, attrs, separators, special = found.groups()
        if special is not None:
            if special == "/" and at + 2 == size:  # "</" at the very end is text
                rules.text(source, at, size)
                break
            if special == "!" or special == "?" or special == "/":
                pos = skip_declaration(source, at, stack[-1].ns != HTML)
                continue
            break  # a tag cut by the end of the input is dropped, and the input ends
        name = name.lower() if name.isascii() else name.translate(_UPPER)
        pos = found.end()
        current = stack[-1]
        if closing:
            if current.name == name and name not in OWN_END_RULES and (
                    current.seq < 0 or rules.afe_by_name[name][-1] is current):
                rules.pop()  # closes the current element, whatever the mode
                if current.seq >= 0:
                    rules.drop_formatting(current)
            else:
                rules.end_tag(name)
            continue
        if attrs:
            work += attribute_work(attrs)
            if work > ATTRIBUTE_WORK:
                raise StructureLimit("attributes", work)
        if current.ns == HTML and (current.mode == BODY or current.mode == CELL):
            quick = _QUICK.get(name, 0 if name not in OWN_START_RULES else -1)
            if quick >= 0:
                if quick == 1:
                    p = named.get((HTML, "p"))
                    if p and p[-1].at >= max(rules.top(SCOPE), rules.top(BUTTON_SCOPE)):
                        rules.close_p()
                elif afe and (last := afe[next(reversed(afe))]) is not None and last.at < 0:
                    rules.reconstruct()
                if quick == 2:
                    rules.frameset_ok = False
                    rules.count()
                else:
                    rules.push(name)
                continue
        raw = rules.start(name, attrs, separators.endswith("/"))
        if raw:  # its content is text up to its end tag (all the rest, for plaintext)
            end = size if raw == "plaintext" else raw_text_end(source, pos, raw)
            if end > pos:
                rules.raw_content(raw)
            pos = end
    return Structure(max(rules.depth - 2, 0), rules.elements, work)
