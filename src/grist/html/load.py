"""Build a Document from bytes or str, enforcing the size caps and reading the title."""

from __future__ import annotations

import html as html_lib
import re

from grist.document import Document
from grist.errors import EmptyInputError, LimitExceededError, NotHTMLError
from grist.html.decode import decode
from grist.limits import Limits

_TITLE = re.compile(r"<title\b[^>]*>([^<]*)", re.IGNORECASE)
_WHITESPACE = re.compile(r"\s+")


def title_from_source(source: str) -> str:
    """The page's ``<title>`` read from the source without a DOM (first one, entities decoded)."""
    match = _TITLE.search(source, 0, 200_000)
    if match is None:
        return ""
    return _WHITESPACE.sub(" ", html_lib.unescape(match.group(1))).strip()


def _size_error(size: int, limits: Limits) -> LimitExceededError:
    return LimitExceededError(
        f"the page is {size / 1048576:.1f} MiB; the limit is "
        f"{limits.max_bytes / 1048576:.1f} MiB (Limits.max_bytes)"
    )


def load_document(
    source: bytes | str,
    url: str | None = None,
    *,
    http_charset: str | None = None,
    limits: Limits | None = None,
) -> Document:
    """Decode (if needed) and wrap a page in a Document, without parsing it."""
    limits = limits or Limits()
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        if len(data) > limits.max_bytes:
            raise _size_error(len(data), limits)
        text, encoding = decode(data, http_charset)
    elif isinstance(source, str):
        if len(source) > limits.max_bytes:
            raise _size_error(len(source.encode("utf-8", "replace")), limits)
        if not source.strip():
            raise EmptyInputError("the page is empty")
        if source.count("\x00", 0, 4096) > min(len(source), 4096) // 100:
            raise NotHTMLError("the input is not an HTML page: it contains NUL characters")
        text, encoding = source, None
    else:
        raise TypeError(f"expected bytes or str, got {type(source).__name__}")
    return Document(html=text, url=url, encoding=encoding, title=title_from_source(text))
