"""Schema.org JSON-LD: the objects of a page's ``<script type="application/ld+json">`` blocks.

Parsed with the standard ``json`` module (through ``grist.io.json_text``; measured against
extruct in docs/decisions.md); a block that is not valid JSON is retried once with the two
faults pages commonly have (raw line breaks and control characters inside strings, trailing
commas). ``@graph`` arrays and nested objects are flattened, so the article, its author, the
publisher and the website are all found.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from grist.io.json_text import loads

_CONTROL = re.compile(r"[\x00-\x1f]")
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_MAX_OBJECTS = 500
_MAX_NESTING = 8  # lists and objects a value is read through (real values: one or two)


def parse_block(text: str) -> Any:
    """One JSON-LD block as Python data, or None when it cannot be read."""
    text = text.strip().removeprefix("<!--").removesuffix("-->").strip().rstrip(";")
    if not text:
        return None
    try:
        return loads(text)
    except ValueError:
        pass
    try:
        return loads(_TRAILING_COMMA.sub(r"\1", _CONTROL.sub(" ", text)))
    except ValueError:
        return None


def objects(data: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object in ``data`` (depth first, at most a few hundred), ``@graph`` included."""
    stack = [data]
    seen = 0
    while stack and seen < _MAX_OBJECTS:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            seen += 1
            yield item
            stack.extend(reversed([v for v in item.values() if isinstance(v, (dict, list))]))


def types(obj: dict[str, Any]) -> set[str]:
    """The object's ``@type`` names (without a schema.org prefix)."""
    value = obj.get("@type")
    names = value if isinstance(value, list) else [value]
    return {str(n).rsplit("/", 1)[-1] for n in names if isinstance(n, str)}


def text_of(value: Any, depth: int = 0) -> str | None:
    """A plain string from a JSON-LD value: a string, a number, the ``name``/``@value`` of an
    object, or the first of a list that gives one (read through a few levels of nesting)."""
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if depth >= _MAX_NESTING:
        return None
    if isinstance(value, dict):
        return text_of(value.get("name") or value.get("@value"), depth + 1)
    if isinstance(value, list):
        for item in value:
            found = text_of(item, depth + 1)
            if found:
                return found
    return None


def texts_of(value: Any, depth: int = 0) -> list[str]:
    """Every string a JSON-LD value holds (a list of people, of keywords, ...)."""
    if isinstance(value, list):
        if depth >= _MAX_NESTING:
            return []
        return [t for item in value for t in texts_of(item, depth + 1)]
    found = text_of(value, depth)
    return [found] if found else []


def url_of(value: Any, depth: int = 0) -> str | None:
    """A URL from a JSON-LD value: a string, an ImageObject's ``url``/``contentUrl``, or the
    first of a list (read through a few levels of nesting)."""
    if isinstance(value, str):
        return value.strip() or None
    if depth >= _MAX_NESTING:
        return None
    if isinstance(value, dict):
        return url_of(value.get("url") or value.get("contentUrl") or value.get("@id"), depth + 1)
    if isinstance(value, list):
        for item in value:
            found = url_of(item, depth + 1)
            if found:
                return found
    return None
