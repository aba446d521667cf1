"""The table insertion modes of the WHATWG tree rules (in table, table body, row, cell, caption,
column group), reduced to their moves on the stack of open elements: what ``TreeRules`` does
while the current node is inside a table. Start tags they do not handle go to the in-body rules.
"""

from __future__ import annotations

from grist.html.openstack import CAPTION, CELL, COLGROUP, ROW, TABLE, TBODY, Element, OpenElements

TABLE_PARTS = frozenset("caption col colgroup tbody td tfoot th thead tr".split())
TABLE_MODES = frozenset((TABLE, TBODY, ROW, CELL, CAPTION, COLGROUP))
_TABLE_CONTEXT, _TBODY_CONTEXT, _ROW_CONTEXT = (
    ("table", "template", "html"), ("tbody", "tfoot", "thead", "template", "html"),
    ("tr", "template", "html"))


class TableRules(OpenElements):
    """Start and end tags in the table modes; ``end_tag`` is the subclass's (it may reprocess)."""

    def end_tag(self, name: str) -> None:  # pragma: no cover - TreeRules defines it
        raise NotImplementedError

    def _table_start(self, mode: int, name: str) -> str:
        """``done``, ``again`` (the stack changed: process the tag anew) or ``body``."""
        if mode == CELL or mode == CAPTION:
            if name not in TABLE_PARTS:
                return "body"
            closing = self._open_cell() if mode == CELL else self.in_table_scope("caption")
            if closing is None:
                return "done"
            self.implied_end_tags()
            self.pop_until(closing)
            self.clear_to_marker()
            return "again"
        if mode == COLGROUP:
            if name == "col":
                self.count()
                return "done"
            if name == "template":
                return "body"
            if self.current.name != "colgroup":
                return "done"
            self.pop()
            return "again"
        if mode == ROW:
            if name in ("td", "th"):
                self.clear_to(_ROW_CONTEXT)
                self.push(name)
                self.marker()
                return "done"
            if name in TABLE_PARTS:
                if self.in_table_scope("tr") is None:
                    return "done"
                self.clear_to(_ROW_CONTEXT)
                self.pop()
                return "again"
        elif mode == TBODY:
            if name in ("tr", "td", "th"):
                self.clear_to(_TBODY_CONTEXT)
                self.push("tr")
                return "done" if name == "tr" else "again"
            if name in ("caption", "col", "colgroup", "tbody", "tfoot", "thead"):
                if not any(self.in_table_scope(n) for n in ("tbody", "thead", "tfoot")):
                    return "done"
                self.clear_to(_TBODY_CONTEXT)
                self.pop()
                return "again"
        return self._in_table(name)

    def _in_table(self, name: str) -> str:
        if name in ("caption", "colgroup", "tbody", "tfoot", "thead"):
            self.clear_to(_TABLE_CONTEXT)
            if name == "caption":
                self.marker()
            self.push(name)
            return "done"
        if name in ("col", "td", "th", "tr"):
            self.clear_to(_TABLE_CONTEXT)
            self.push("colgroup" if name == "col" else "tbody")
            return "again"
        if name == "table":
            table = self.in_table_scope("table")
            if table is None:
                return "done"
            self.pop_until(table)
            return "again"
        if name == "form" and self.open("template") is None:
            if self.form is None:
                self.count()
            return "done"
        return "body"  # foster-parented: in-body rules, the stack moves the same way

    def _table_end(self, mode: int, name: str) -> bool:
        """Whether the table rules dealt with the end tag (else the in-body rules do)."""
        if mode == CELL:
            if name in ("td", "th"):
                cell = self.in_table_scope(name)
                if cell is not None:
                    self.implied_end_tags()
                    self.pop_until(cell)
                    self.clear_to_marker()
                return True
            if name in ("table", "tbody", "tfoot", "thead", "tr"):
                cell = self._open_cell() if self.in_table_scope(name) is not None else None
                if cell is not None:
                    self.implied_end_tags()
                    self.pop_until(cell)
                    self.clear_to_marker()
                    self.end_tag(name)
                return True
            return name in ("body", "caption", "col", "colgroup", "html")
        if mode == CAPTION:
            if name in ("caption", "table"):
                caption = self.in_table_scope("caption")
                if caption is not None:
                    self.implied_end_tags()
                    self.pop_until(caption)
                    self.clear_to_marker()
                    if name == "table":
                        self.end_tag(name)
                return True
            return name in TABLE_PARTS or name in ("body", "html")
        if mode == COLGROUP:
            if name == "template":
                return False
            if self.current.name == "colgroup" and name != "col":
                self.pop()
                if name != "colgroup":
                    self.end_tag(name)
            return True
        if mode == ROW and name in ("tr", "table", "tbody", "tfoot", "thead"):
            if self.in_table_scope("tr") is not None and (
                    name in ("tr", "table") or self.in_table_scope(name) is not None):
                self.clear_to(_ROW_CONTEXT)
                self.pop()
                if name != "tr":
                    self.end_tag(name)
            return True
        if mode == TBODY and name in ("tbody", "tfoot", "thead", "table"):
            scoped = [self.in_table_scope(name)] if name != "table" else [
                self.in_table_scope(n) for n in ("tbody", "thead", "tfoot")]
            if any(el is not None for el in scoped):
                self.clear_to(_TBODY_CONTEXT)
                self.pop()
                if name == "table":
                    self.end_tag(name)
            return True
        if name == "table":
            table = self.in_table_scope("table")
            if table is not None:
                self.pop_until(table)
            return True
        return name in TABLE_PARTS or name in ("body", "html")

    def _open_cell(self) -> Element | None:
        cells = [el for el in map(self.in_table_scope, ("td", "th")) if el is not None]
        return max(cells, key=lambda el: el.at) if cells else None
