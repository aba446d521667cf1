"""The parser's stack of open elements and list of active formatting elements, shadowed.

The WHATWG tree builder asks "is there a <p> in button scope?", "which formatting elements must
be re-opened?" at almost every token, and answers by walking its stack; on a stack 4,000 deep that
walk makes parsing quadratic. Here every open element is also filed under its name and under each
category a scope test needs (special, scope boundary, ...), so each question is answered from the
top of one such stack in O(1). Mid-stack edits (the adoption agency, ``</form>``) renumber the
elements above; their total cost is capped (``StructureLimit("tangle")``).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from functools import lru_cache

SPECIAL = frozenset((
    "address applet area article aside base basefont bgsound blockquote body br button caption "
    "center col colgroup dd details dir div dl dt embed fieldset figcaption figure footer form "
    "frame frameset h1 h2 h3 h4 h5 h6 head header hgroup hr html iframe img input keygen li link "
    "listing main marquee menu meta nav noembed noframes noscript object ol p param plaintext pre "
    "script search section select source style summary table tbody td template textarea tfoot th "
    "thead title tr track ul wbr xmp").split())
_IMPLIED = frozenset("dd dt li optgroup option p rb rp rt rtc".split())
_MATHML_TEXT = frozenset("mi mo mn ms mtext".split())
_SVG_HTML_POINTS = frozenset(("foreignobject", "desc", "title"))
# Scope boundaries; lexbor also stops at <select> (so does this, erring towards fewer pops).
_SCOPE_NAMES = frozenset("applet caption html table td th marquee object template select".split())

HTML, SVG, MATHML = 0, 1, 2
BODY, TABLE, TBODY, ROW, CELL, CAPTION, COLGROUP, TEMPLATE, FRAMESET = range(9)
_MODE_OF = {"table": TABLE, "tbody": TBODY, "thead": TBODY, "tfoot": TBODY, "tr": ROW,
            "td": CELL, "th": CELL, "caption": CAPTION, "colgroup": COLGROUP, "template": TEMPLATE,
            "frameset": FRAMESET,
            "html": BODY, "body": BODY}
# Category bits: each category keeps the stack of its open elements, bottom first.
SPECIAL_BIT, SCOPE, LIST_SCOPE, BUTTON_SCOPE, TABLE_SCOPE, LI_STOP, HTML_NS = (1 << i for i in range(7))
_CATEGORIES = (SPECIAL_BIT, SCOPE, LIST_SCOPE, BUTTON_SCOPE, TABLE_SCOPE, LI_STOP, HTML_NS)
_WORK_PER_CHAR = 16  # mid-stack edits may move this many elements per character of the page (see parse.py)


class StructureLimit(Exception):
    """A cap was passed; ``what`` is ``depth``, ``elements`` or ``tangle``."""

    def __init__(self, what: str, value: int) -> None:
        super().__init__(what, value)
        self.what, self.value = what, value


class Element:
    """An element the parser created: name, namespace, where it is on the stack (-1: popped),
    the insertion mode while it is the current node, its raw attributes, category bits, its key
    in the active formatting elements (-1: not there), its depth in the tree (html is 1; it can
    exceed the stack position once an element was taken out of the middle of the stack) and the
    depth of the deepest element made under it so far (``peak``)."""

    __slots__ = ("name", "ns", "at", "mode", "attrs", "flags", "seq", "depth", "peak", "files")

    def __init__(self, name: str, ns: int, attrs: str, flags: int) -> None:
        self.name, self.ns, self.attrs, self.flags = name, ns, attrs, flags
        self.at, self.mode, self.seq, self.depth, self.peak = -1, BODY, -1.0, 1, 1
        self.files: tuple[list[Element], ...] = ()  # the per-name and category stacks it is in


@lru_cache(maxsize=4096)
def flags_of(name: str, ns: int) -> int:
    """The category bits of an element (pure; cached because pages repeat few names)."""
    if ns == HTML:
        flags = HTML_NS
        if name in SPECIAL:
            flags |= SPECIAL_BIT | (0 if name in ("address", "div", "p") else LI_STOP)
        if name in _SCOPE_NAMES:
            flags |= SCOPE
        flags |= LIST_SCOPE if name in ("ol", "ul") else 0
        flags |= BUTTON_SCOPE if name == "button" else 0
        flags |= TABLE_SCOPE if name in ("html", "table", "template") else 0
        return flags
    if (ns == MATHML and (name in _MATHML_TEXT or name == "annotation-xml")) or (
            ns == SVG and name in _SVG_HTML_POINTS):
        return SPECIAL_BIT | SCOPE | LI_STOP
    return 0


class OpenElements:
    """The stack of open elements and the active formatting elements, with O(1) scope tests."""

    def __init__(self, max_depth: int, max_elements: int, size: int) -> None:
        self.stack: list[Element] = []
        self.by_name: dict[tuple[int, str], list[Element]] = {}
        self.category: dict[int, list[Element]] = {c: [] for c in _CATEGORIES}
        self._groups: dict[tuple[int, str], tuple[list[Element], ...]] = {}
        self.afe: dict[float, Element | None] = {}  # seq -> element, None for a marker
        self.afe_by_name: dict[str, list[Element]] = {}
        self.markers: list[float] = [-1.0]
        self.next_seq = 0.0
        self.form: Element | None = None
        self.max_depth, self.max_elements = max_depth + 2, max_elements  # html and body
        self.depth = self.elements = 0
        self.work = 0
        self.max_work = _WORK_PER_CHAR * size + 100_000
        self.push("html", HTML, "")
        self.push("body", HTML, "")
        self.elements = 0

    # -- the stack of open elements -------------------------------------------------------
    def _files(self, el: Element) -> tuple[list[Element], ...]:
        """The per-name stack and the category stacks ``el`` belongs to."""
        files = self._groups.get((el.ns, el.name))
        if files is None:
            named = self.by_name.setdefault((el.ns, el.name), [])
            files = (named, *(self.category[bit] for bit in _CATEGORIES if el.flags & bit))
            self._groups[(el.ns, el.name)] = files
        return files

    def push(self, name: str, ns: int = HTML, attrs: str = "") -> Element:
        el = Element(name, ns, attrs, flags_of(name, ns))
        stack = self.stack
        if stack:
            below = stack[-1]
            el.mode = _MODE_OF.get(name, below.mode) if ns == HTML else below.mode
            el.depth = el.peak = below.depth + 1
        el.at = len(stack)
        stack.append(el)
        el.files = files = self._files(el)
        for group in files:
            group.append(el)
        self.elements += 1
        if el.depth > self.depth:
            self.deepen(el.depth)
        if self.elements > self.max_elements:
            raise StructureLimit("elements", self.elements)
        return el

    def deepen(self, depth: int) -> None:
        """Note an element ``depth`` deep."""
        if depth > self.depth:
            self.depth = depth
            if self.depth > self.max_depth:
                raise StructureLimit("depth", self.depth - 2)

    def pop(self) -> Element:
        stack = self.stack
        el = stack.pop()
        el.at = -1
        if el.peak > stack[-1].peak:
            stack[-1].peak = el.peak
        for group in el.files:
            group.pop()
        return el

    def pop_until(self, el: Element) -> None:
        while self.stack[-1] is not el:
            self.pop()
        self.pop()

    def _renumber(self, start: int) -> None:
        self.work += len(self.stack) - start
        if self.work > self.max_work:
            raise StructureLimit("tangle", self.work)
        for i in range(start, len(self.stack)):
            self.stack[i].at = i

    def remove(self, el: Element) -> None:
        """Take ``el`` out of the middle of the stack (misnested formatting, forms)."""
        at = el.at
        below = self.stack[at - 1]
        below.peak = max(below.peak, el.peak)
        del self.stack[at]
        self._renumber(at)
        for group in el.files:
            group.remove(el)
        el.at = -1

    def insert(self, el: Element, at: int) -> None:
        """Put ``el`` into the stack at index ``at`` (the adoption agency's new element)."""
        el.mode = self.stack[at - 1].mode
        self.stack.insert(at, el)
        self._renumber(at)
        el.files = self._files(el)
        for group in el.files:
            group.insert(bisect_left(group, at, key=_position), el)
        self.elements += 1
        if self.elements > self.max_elements:
            raise StructureLimit("elements", self.elements)

    def add_elements(self, count: int) -> None:
        """Elements that may be made without changing the stack (an empty ``<p>`` later)."""
        self.elements += count
        if self.elements > self.max_elements:
            raise StructureLimit("elements", self.elements)

    def count(self) -> None:
        """An element created and popped at once (void, raw text, ``</p>`` without a p)."""
        self.elements += 1
        current = self.stack[-1]
        current.peak = max(current.peak, current.depth + 1)
        self.deepen(current.depth + 1)
        if self.elements > self.max_elements:
            raise StructureLimit("elements", self.elements)

    def replace_on_stack(self, old: Element, new: Element) -> None:
        """``new`` (a copy the adoption agency made) takes ``old``'s place on the stack."""
        new.at, new.mode, new.depth, new.peak = old.at, old.mode, old.depth, old.peak
        self.stack[old.at] = new
        new.files = old.files
        for group in new.files:
            group[bisect_left(group, old.at, key=_position)] = new
        old.at = -1
        self.elements += 1
        if self.elements > self.max_elements:
            raise StructureLimit("elements", self.elements)

    def top(self, bit: int) -> int:
        group = self.category[bit]
        return group[-1].at if group else -1

    def open(self, name: str, ns: int = HTML) -> Element | None:
        """The topmost open element of that name, or None."""
        group = self.by_name.get((ns, name))
        return group[-1] if group else None

    def in_scope(self, name: str, extra: int = 0) -> Element | None:
        """The element the spec's "has an element in scope" finds (``extra``: more boundaries)."""
        el = self.open(name)
        if el is None:
            return None
        boundary = self.top(SCOPE)
        if extra:
            boundary = max(boundary, self.top(extra))
        return el if el.at >= boundary else None

    def in_table_scope(self, name: str) -> Element | None:
        el = self.open(name)
        return el if el is not None and el.at >= self.top(TABLE_SCOPE) else None

    @property
    def current(self) -> Element:
        return self.stack[-1]

    def implied_end_tags(self, keep: str = "") -> None:
        while (self.current.ns == HTML and self.current.name in _IMPLIED
               and self.current.name != keep):
            self.pop()

    def close_p(self) -> None:
        p = self.in_scope("p", BUTTON_SCOPE)
        if p is not None:
            self.implied_end_tags("p")
            self.pop_until(p)

    def clear_to(self, names: tuple[str, ...]) -> None:
        while not (self.current.ns == HTML and self.current.name in names):
            self.pop()

    # -- active formatting elements -------------------------------------------------------
    def add_formatting(self, el: Element) -> None:
        same = [e for e in self.afe_by_name.get(el.name, ())[-3:]
                if e.seq > self.markers[-1] and e.attrs == el.attrs]
        if len(same) == 3:  # Noah's Ark: at most three alike after the last marker
            self.drop_formatting(same[0])
        self.next_seq += 1.0
        self.file(el, self.next_seq)

    def file(self, el: Element, seq: float) -> None:
        """Enter ``el`` in the list at ``seq`` (after every entry when it is the largest)."""
        el.seq = seq
        if not self.afe or seq > next(reversed(self.afe)):
            self.afe[seq] = el
        else:  # the adoption agency's bookmark: rebuild the ordered dict
            self.work += len(self.afe)
            self.afe = dict(sorted([*self.afe.items(), (seq, el)], key=lambda kv: kv[0]))
        group = self.afe_by_name.setdefault(el.name, [])
        group.insert(bisect_right(group, seq, key=_sequence), el)

    def after(self, seq: float) -> float:
        """A key between ``seq`` and the next key of the list (the adoption agency's bookmark)."""
        self.work += len(self.afe)
        following = [key for key in self.afe if key > seq]
        return (seq + min(following)) / 2 if following else seq + 0.5

    def replace_formatting(self, old: Element, new: Element) -> None:
        """``new`` takes the place of ``old`` in the list."""
        group = self.afe_by_name[old.name]
        group[bisect_left(group, old.seq, key=_sequence)] = new
        new.seq, old.seq = old.seq, -1.0
        self.afe[new.seq] = new

    def drop_formatting(self, el: Element) -> None:
        del self.afe[el.seq]
        self.afe_by_name[el.name].remove(el)
        el.seq = -1.0

    def marker(self) -> None:
        self.next_seq += 1.0
        self.afe[self.next_seq] = None
        self.markers.append(self.next_seq)

    def clear_to_marker(self) -> None:
        while self.afe:
            seq, el = self.afe.popitem()
            if el is None:
                self.markers.pop()
                return
            self.afe_by_name[el.name].remove(el)
            el.seq = -1.0

    def reconstruct(self) -> None:
        if not self.afe:
            return
        pending: list[Element] = []
        for el in reversed(self.afe.values()):
            if el is None or el.at >= 0:
                break
            pending.append(el)
        for old in reversed(pending):
            self.replace_formatting(old, self.push(old.name, HTML, old.attrs))

    def last_formatting(self, name: str) -> Element | None:
        group = self.afe_by_name.get(name)
        return group[-1] if group and group[-1].seq > self.markers[-1] else None


def _position(el: Element) -> int:
    return el.at


def _sequence(el: Element) -> float:
    return el.seq
