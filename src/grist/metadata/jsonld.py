"""Schema.org JSON-LD: the objects of a page's ``<script type="application/ld+json">`` blocks.

Parsed with the standard ``json`` module (through ``grist.io.json_text``; measured against
extruct in docs/decisions.md), inside any ``<!-- -->`` or ``<![CDATA[ ]]>`` wrapper; a block that
is not valid JSON is retried once with the faults pages commonly have repaired (JavaScript
comments, raw line breaks and control characters inside strings, trailing commas), and a block
that still cannot be read is skipped. ``@graph`` arrays and nested objects are flattened, so the
article, its author, the publisher and the website are all found; a value that only refers to a
node by ``@id`` (``"author": {"@id": "#ann"}``, as WordPress plugins write) is read through to
that node. Strings lose the HTML character references pages leave in them (``&amp;``,
``&#039;``), as browsers' and other extractors' readers of JSON-LD do.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from grist.io.json_text import loads

# One pass over a block that json could not read: strings (kept; an unterminated one runs to
# the end, so every quote starts a match and the pass stays linear), comments, trailing commas
# and stray control characters.
_FAULTS = re.compile(
    r'(?P<string>"(?:[^"\\]|\\.)*+(?:"|\\?$))|(?P<comment>//[^\n]*|/\*.*?(?:\*/|$))'
    r"|(?P<comma>,(?=\s*[}\]]))|(?P<control>[\x00-\x1f])", re.DOTALL)
_CONTROL = re.compile(r"[\x00-\x1f]")
_WRAPPERS = (("<!--", "-->"), ("<![CDATA[", "]]>"))
_REFERENCE = re.compile(r"&(?:#\d+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")
_MAX_OBJECTS = 500
_MAX_NESTING = 8  # lists and objects a value is read through (real values: one or two)


def _unwrapped(text: str) -> str:
    """``text`` without the HTML comment and CDATA markers pages wrap a block in."""
    text = text.strip()
    for start, end in _WRAPPERS:
        if text.startswith(start):
            text = text.removeprefix(start).removesuffix(end).strip()
    return text.rstrip(";").strip()


def _repair(match: re.Match[str]) -> str:
    """A fault found by ``_FAULTS`` made valid: a comment or a control character becomes a
    space, a trailing comma goes, a string keeps all but its control characters."""
    if match.group("string") is not None:
        return _CONTROL.sub(" ", match.group("string"))
    return "" if match.group("comma") is not None else " "


def parse_block(text: str) -> Any:
    """One JSON-LD block as Python data, or None when it cannot be read (never an error)."""
    text = _unwrapped(text)
    if not text:
        return None
    try:
        return loads(text)
    except ValueError:
        pass
    try:
        return loads(_unwrapped(_FAULTS.sub(_repair, text)))
    except ValueError:
        return None


def objects(data: Any, skip: frozenset[str] = frozenset()) -> Iterator[dict[str, Any]]:
    """Every JSON object in ``data`` (depth first, at most a few hundred), ``@graph`` included;
    the values of the properties in ``skip`` are not walked."""
    stack = [data]
    seen = 0
    while stack and seen < _MAX_OBJECTS:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            seen += 1
            yield item
            stack.extend(reversed([v for k, v in item.items()
                                   if k not in skip and isinstance(v, (dict, list))]))


def types(obj: dict[str, Any]) -> set[str]:
    """The object's ``@type`` names (without a schema.org prefix)."""
    value = obj.get("@type")
    names = value if isinstance(value, list) else [value]
    return {str(n).rsplit("/", 1)[-1] for n in names if isinstance(n, str)}


def _plain(text: str) -> str | None:
    """A JSON-LD string stripped and without the HTML character references left in it."""
    if "&" in text:
        text = _REFERENCE.sub(lambda m: html.unescape(m.group()), text)
    return text.strip() or None


def references(value: Any) -> set[str]:
    """The ``@id`` of every node ``value`` is or lists (an author, the authors, ...)."""
    items = value if isinstance(value, list) else [value]
    return {i["@id"] for i in items if isinstance(i, dict) and isinstance(i.get("@id"), str)}


@dataclass(frozen=True)
class Graph:
    """The nodes of a page's JSON-LD by ``@id``, to read values through the references they
    hold: a value that names a node by its ``@id`` is read as that node."""

    nodes: Mapping[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def of(cls, blocks: Iterable[Any]) -> Graph:
        """The identified nodes of the page's parsed blocks, each node's mentions merged."""
        nodes: dict[str, dict[str, Any]] = {}
        for data in blocks:
            for obj in objects(data):
                ref = obj.get("@id")
                if isinstance(ref, str) and len(obj) > 1:
                    nodes[ref] = {**nodes.get(ref, {}), **obj}
        return cls(nodes)

    def text_of(self, value: Any) -> str | None:
        """A plain string from a JSON-LD value: a string, a number, the ``name``/``@value`` of
        an object, or the first of a list that gives one (read through a few levels of
        nesting and of references)."""
        return self._text(value, 0, set())

    def texts_of(self, value: Any) -> list[str]:
        """Every string a JSON-LD value holds (a list of people, of keywords, ...)."""
        return self._texts(value, 0, set())

    def url_of(self, value: Any) -> str | None:
        """A URL from a JSON-LD value: a string, an ImageObject's ``url``/``contentUrl`` (else
        its ``@id``), or the first of a list (read through a few levels of nesting)."""
        return self._url(value, 0, set())

    def _node(self, value: Any, seen: set[str]) -> Any:
        """``value``, or the node its ``@id`` names: each node once per read, so references
        that loop end."""
        if isinstance(value, dict):
            ref = value.get("@id")
            if isinstance(ref, str) and ref in self.nodes and ref not in seen:
                seen.add(ref)
                return self.nodes[ref]
        return value

    def _text(self, value: Any, depth: int, seen: set[str]) -> str | None:
        """``text_of`` at a depth of nesting, with the nodes this read has been through."""
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        return self._read(value, depth, seen, ("name", "@value"), self._text)

    def _texts(self, value: Any, depth: int, seen: set[str]) -> list[str]:
        """``texts_of`` at a depth of nesting, with the nodes this read has been through."""
        if isinstance(value, list):
            if depth >= _MAX_NESTING:
                return []
            return [t for item in value for t in self._texts(item, depth + 1, seen)]
        found = self._text(value, depth, seen)
        return [found] if found else []

    def _url(self, value: Any, depth: int, seen: set[str]) -> str | None:
        """``url_of`` at a depth of nesting, with the nodes this read has been through."""
        return self._read(value, depth, seen, ("url", "contentUrl", "@id"), self._url)

    def _read(self, value: Any, depth: int, seen: set[str], keys: tuple[str, ...],
              read: Callable[[Any, int, set[str]], str | None]) -> str | None:
        """A string from ``value`` itself, else (with ``read``, one level deeper) from the first
        of ``keys`` that its object, or the node it refers to, has, or from the first item of
        its list that gives one."""
        if isinstance(value, str):
            return _plain(value)
        if depth >= _MAX_NESTING:
            return None
        value = self._node(value, seen)
        if isinstance(value, dict):
            return read(next((value[k] for k in keys if value.get(k)), None), depth + 1, seen)
        if isinstance(value, list):
            for item in value:
                found = read(item, depth + 1, seen)
                if found:
                    return found
        return None
