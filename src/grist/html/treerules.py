"""The WHATWG tree-construction rules, reduced to their moves on the stack of open elements and
the list of active formatting elements (``grist.html.openstack``): in body, framesets, foreign
content (SVG, MathML) and the adoption agency algorithm; the table modes are in
``grist.html.tablerules``. Used by ``grist.html.structure.measure``; no tree is built.

Where it simplifies, it keeps more elements open or makes more of them than lexbor does:
``<select>`` bounds scopes (lexbor parses it as the customizable select), a ``<form>`` start tag
in body is never ignored, the adoption agency's moves are taken to deepen what they move.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from grist.html.openstack import (
    BODY,
    BUTTON_SCOPE,
    COLGROUP,
    FRAMESET,
    HTML,
    HTML_NS,
    LI_STOP,
    LIST_SCOPE,
    MATHML,
    ROW,
    SCOPE,
    SPECIAL_BIT,
    SVG,
    TABLE,
    TBODY,
    TEMPLATE,
    Element,
)
from grist.html.tablerules import TABLE_MODES, TABLE_PARTS, TableRules
from grist.html.tokens import RAWTEXT, RCDATA

FORMATTING = frozenset("a b big code em font i nobr s small strike strong tt u".split())
BLOCKS = frozenset("address article aside blockquote center details dialog dir div dl fieldset "
                    "figcaption figure footer header hgroup main menu nav ol p search section "
                    "summary ul".split())
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_BLOCK_END = BLOCKS - {"p"} | {"button", "listing", "pre"}
VOID = frozenset("area br embed img image keygen wbr input".split())
_QUIETVOID = frozenset("base basefont bgsound link meta param source track frame".split())
_TEMPLATE_MODE = {"caption": TABLE, "colgroup": TABLE, "tbody": TABLE, "tfoot": TABLE,
                  "thead": TABLE, "col": COLGROUP, "tr": TBODY, "td": ROW, "th": ROW}
_BREAKOUT = frozenset("b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 "
                      "h6 head hr i img li listing menu meta nobr ol p pre ruby s small span "
                      "strong strike sub sup table tt u ul var".split())
_FONT_BREAKOUT = re.compile(r"(?:^|[\t\n\f\r /])(?:color|face|size)(?:[\t\n\f\r /=]|$)", re.I)
_HTML_ENCODING = re.compile(
    r"(?:^|[\t\n\f\r /])encoding[\t\n\f\r ]*=[\t\n\f\r ]*[\"']?(?:text/html|application/xhtml\+xml)"
    r"(?:[\"'\t\n\f\r />]|$)", re.I)
_MATHML_TEXT = frozenset("mi mo mn ms mtext".split())
_SVG_POINTS = frozenset(("foreignobject", "desc", "title"))
_VISIBLE = re.compile(r"[^\t\n\f\r \x00]")
_NOT_NUL = re.compile(r"[^\x00]")
_TABLE_TEXT = frozenset(("table", "tbody", "template", "tfoot", "thead", "tr", "colgroup"))
# Start tags after which a <frameset> no longer replaces the body.
FRAMESET_OFF = frozenset("pre listing li dd dt button applet marquee object table hr textarea "
                         "xmp iframe select input keygen area br embed img image wbr".split())
# Start tags with rules of their own (any other start tag re-opens formatting and is pushed), and
# end tags whose element, when it is the current node, is not simply popped.
OWN_START_RULES = (FORMATTING | BLOCKS | VOID | _QUIETVOID | RCDATA | RAWTEXT | TABLE_PARTS
                   | frozenset(_HEADINGS) | frozenset(
                       "pre listing li dd dt hr plaintext form html body head applet marquee "
                       "object template table svg math select button option optgroup rb rtc rp rt frameset "
                       "script".split()))
OWN_END_RULES = frozenset("form template applet marquee object td th caption body html br".split())

def _integration_point(el: Element) -> bool:
    """Whether start tags under ``el`` follow the HTML rules (an HTML or MathML text one)."""
    if el.ns == SVG:
        return el.name in _SVG_POINTS
    if el.name in _MATHML_TEXT:
        return True
    return el.name == "annotation-xml" and _HTML_ENCODING.search(el.attrs) is not None


class TreeRules(TableRules):
    """The tree-construction rules that move the stack and the active formatting elements."""

    def __init__(self, max_depth: int, max_elements: int, size: int, quirks: bool) -> None:
        super().__init__(max_depth, max_elements, size)
        self.frameset_ok = True  # a <frameset> may still replace the body
        self.quirks = quirks  # outside quirks mode a <table> closes an open <p>

    def text(self, source: str, start: int, end: int) -> None:
        current = self.current
        if (current.ns != HTML and not _integration_point(current)) or current.mode == FRAMESET:
            return
        if _NOT_NUL.search(source, start, end) is None:
            return  # NUL characters are dropped
        visible = _VISIBLE.search(source, start, end) is not None
        if visible:
            self.frameset_ok = False
        if current.mode in (TABLE, TBODY, ROW, COLGROUP):
            if not visible and current.name in _TABLE_TEXT:
                return  # whitespace right in a table is inserted as is
            if current.mode == COLGROUP:
                if current.name != "colgroup":
                    return
                self.pop()  # text ends a column group; it is foster-parented
        self.reconstruct()

    # -- start tags ---------------------------------------------------------------------
    def start(self, name: str, attrs: str, self_closing: bool) -> str | None:
        """Process a start tag; return the name of a raw-text element it opened, if any."""
        current = self.current
        if current.ns != HTML and not (
                (_integration_point(current) and name not in ("mglyph", "malignmark"))
                or (current.name == "annotation-xml" and name == "svg")):
            if name in _BREAKOUT or (name == "font" and _FONT_BREAKOUT.search(attrs)):
                while self.current.ns != HTML and not _integration_point(self.current):
                    self.pop()
                return self.start(name, attrs, self_closing)
            if self_closing:
                self.count()
            else:
                self.push(name, current.ns, attrs)
            return None
        while True:
            mode = self.current.mode
            if mode == FRAMESET:
                return self._frameset_start(name)
            if mode == TEMPLATE:
                self.current.mode = mode = _TEMPLATE_MODE.get(name, BODY)
            if mode not in TABLE_MODES:
                return self._body_start(name, attrs, self_closing)
            outcome = self._table_start(mode, name)
            if outcome == "done":
                return None
            if outcome == "body":
                return self._body_start(name, attrs, self_closing)

    def _body_start(self, name: str, attrs: str, self_closing: bool) -> str | None:
        if name in FRAMESET_OFF:
            self.frameset_ok = False
        if name in FORMATTING:
            self._formatting_start(name, attrs)
        elif name in BLOCKS or name in ("pre", "listing"):
            self.close_p()
            self.push(name)
        elif name in VOID:
            if name in ("input", "keygen"):
                self._close_select()
            self.reconstruct()
            self.count()
        elif name in _QUIETVOID:
            self.count()
        elif name in RCDATA or name in RAWTEXT or name == "script":
            if name == "xmp":
                self.close_p()
                self.reconstruct()
            self.push(name)  # popped by its end tag, after its content (see raw_content)
            return name
        elif name in _HEADINGS:
            self.close_p()
            if self.current.name in _HEADINGS and self.current.ns == HTML:
                self.pop()
            self.push(name)
        elif name in ("li", "dd", "dt"):
            self._list_item(name)
        elif name == "hr":
            self.close_p()
            self.count()
        elif name == "plaintext":
            self.close_p()
            self.push(name)
            return name
        elif name == "form":
            if self.form is None or self.open("template") is not None:
                self.close_p()
                form = self.push(name)
                self.form = form if self.open("template") is None else self.form
        elif name == "frameset":
            if self.frameset_ok:  # the frameset replaces the body
                while len(self.stack) > 2:
                    self.pop()
                self.stack[1].mode = FRAMESET
                self.push(name)
        elif name in ("html", "body", "head") or name in TABLE_PARTS:
            pass  # ignored in body
        elif name in ("applet", "marquee", "object", "template"):
            if name != "template":
                self.reconstruct()
            self.push(name)
            self.marker()
        elif name == "table":
            if not self.quirks:
                self.close_p()
            self.push(name)
        elif name in ("svg", "math"):
            self.reconstruct()
            if self_closing:
                self.count()
            else:
                self.push(name, SVG if name == "svg" else MATHML, attrs)
        else:
            self._other_start(name)
        return None

    def _frameset_start(self, name: str) -> str | None:
        """In a frameset page, only framesets, frames and noframes count; the rest is ignored."""
        inside = self.current.name == "frameset"
        if name == "frameset" and inside:
            self.push(name)
        elif name == "frame" and inside:
            self.count()
        elif name == "noframes":
            self.push(name)
            return name
        return None

    def raw_content(self, name: str) -> None:
        """Text inside a textarea or plaintext: lexbor re-opens formatting elements for it."""
        if name in ("textarea", "plaintext"):
            self.reconstruct()

    def _other_start(self, name: str) -> None:
        if name == "select":
            if self._close_select():
                return
        elif name == "button":
            button = self.in_scope("button")
            if button is not None:
                self.implied_end_tags()
                self.pop_until(button)
        elif name in ("option", "optgroup"):  # lexbor follows the customizable <select> rules
            if self.in_scope("select") is not None:
                self.implied_end_tags("optgroup" if name == "option" else "")
            elif self.current.name == "option":
                self.pop()
        elif name in ("rb", "rtc", "rp", "rt"):
            if self.in_scope("ruby") is not None:
                self.implied_end_tags("rtc" if name in ("rp", "rt") else "")
            self.push(name)
            return
        self.reconstruct()
        self.push(name)

    def _close_select(self) -> bool:
        select = self.in_scope("select")
        if select is not None:
            self.pop_until(select)
        return select is not None

    def _formatting_start(self, name: str, attrs: str) -> None:
        if name == "a" and self.last_formatting("a") is not None:
            stale = self.last_formatting("a")
            self.adoption("a")
            if stale.seq >= 0:
                self.drop_formatting(stale)
            if stale.at >= 0:
                self.remove(stale)
        self.reconstruct()
        if name == "nobr" and self.in_scope("nobr") is not None:
            self.adoption("nobr")
            self.reconstruct()
        self.add_formatting(self.push(name, HTML, attrs))

    def _list_item(self, name: str) -> None:
        targets = ("li",) if name == "li" else ("dd", "dt")
        found = [el for el in map(self.open, targets) if el is not None]
        if found:
            item = max(found, key=lambda el: el.at)
            if item.at >= self.top(LI_STOP):
                self.implied_end_tags(item.name)
                self.pop_until(item)
        self.close_p()
        self.push(name)

    # -- end tags -----------------------------------------------------------------------
    def end_tag(self, name: str) -> None:
        current = self.current
        if current.mode == FRAMESET:
            if current.name == name and name in ("frameset", "noframes"):
                self.pop()
            return
        if current.ns != HTML:
            if name in ("br", "p"):
                while self.current.ns != HTML and not _integration_point(self.current):
                    self.pop()
            else:
                found = [el for el in (self.open(name, SVG), self.open(name, MATHML))
                         if el is not None and el.at > self.top(HTML_NS)]
                if found:
                    self.pop_until(max(found, key=lambda el: el.at))
                    return
        if self.current.mode in TABLE_MODES and self._table_end(self.current.mode, name):
            return
        self._body_end(name)

    def _body_end(self, name: str) -> None:
        if name in FORMATTING:
            self.adoption(name)
        elif name in _BLOCK_END or name in ("li", "dd", "dt", "applet", "marquee", "object"):
            el = self.in_scope(name, LIST_SCOPE if name == "li" else 0)
            if el is not None:
                self.implied_end_tags(name)
                self.pop_until(el)
                if name in ("applet", "marquee", "object"):
                    self.clear_to_marker()
        elif name == "p":
            p = self.in_scope("p", BUTTON_SCOPE)
            if p is None:
                self.count()  # an empty <p> is inserted and closed
            else:
                self.implied_end_tags("p")
                self.pop_until(p)
        elif name in _HEADINGS:
            open_headings = [el for el in map(self.open, _HEADINGS) if el is not None]
            heading = max(open_headings, key=lambda el: el.at) if open_headings else None
            if heading is not None and heading.at >= self.top(SCOPE):
                self.implied_end_tags()
                self.pop_until(heading)
        elif name == "br":  # read as <br>
            self.frameset_ok = False
            self.reconstruct()
            self.count()
        elif name == "form":
            self._form_end()
        elif name == "select":
            self._close_select()
        elif name == "template":
            template = self.open("template")
            if template is not None:
                self.pop_until(template)
                self.clear_to_marker()
        elif name not in ("body", "html"):
            self.any_other_end(name)

    def _form_end(self) -> None:
        if self.open("template") is not None:
            form = self.in_scope("form")
            if form is not None:
                self.implied_end_tags()
                self.pop_until(form)
            return
        form, self.form = self.form, None
        if form is None or form.at < 0 or form.at < self.top(SCOPE):
            return
        self.implied_end_tags()
        if self.current is form:
            self.pop()
        else:
            self.remove(form)

    def any_other_end(self, name: str) -> None:
        el = self.open(name)
        if el is not None and el.at >= self.top(SPECIAL_BIT):
            self.implied_end_tags(name)
            self.pop_until(el)

    def adoption(self, name: str) -> None:
        """The adoption agency algorithm's moves on the stack and the formatting list."""
        current = self.current
        if current.ns == HTML and current.name == name and current.seq < 0:
            self.pop()
            return
        for _ in range(8):
            fe = self.last_formatting(name)
            if fe is None:
                self.any_other_end(name)
                return
            if fe.at < 0:
                self.drop_formatting(fe)
                return
            if fe.at < self.top(SCOPE):  # not in scope
                return
            specials = self.category[SPECIAL_BIT]
            after = bisect_right(specials, fe.at, key=_position)
            if after == len(specials):
                self.pop_until(fe)
                self.drop_formatting(fe)
                return
            self._adopt(fe, specials[after])

    def _adopt(self, fe: Element, furthest: Element) -> None:
        bookmark, last, at, inner = fe.seq, furthest, furthest.at, 0
        while True:
            inner += 1
            at -= 1
            node = self.stack[at]
            if node is fe:
                break
            if inner > 3 and node.seq >= 0:
                self.drop_formatting(node)
            if node.seq < 0:
                self.remove(node)
                continue
            copy = Element(node.name, HTML, node.attrs, node.flags)
            self.replace_on_stack(node, copy)
            self.replace_formatting(node, copy)
            if last is furthest:
                bookmark = self.after(copy.seq)
            last = copy
        copy = Element(fe.name, HTML, fe.attrs, fe.flags)
        self.drop_formatting(fe)
        self.remove(fe)
        # The furthest block's children move under the copy: one level deeper, open or closed.
        self.work += len(self.stack) - furthest.at
        for el in self.stack[furthest.at + 1 :]:
            el.depth += 1
            el.peak += 1
        furthest.peak += 1
        self.deepen(furthest.peak)
        self.insert(copy, furthest.at + 1)
        copy.depth = copy.peak = furthest.depth + 1
        self.file(copy, bookmark)


def _position(el: Element) -> int:
    return el.at
