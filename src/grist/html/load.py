"""Build a Document from bytes or str, enforcing the size caps and reading the title."""

from __future__ import annotations

import re

from grist.document import Document
from grist.errors import EmptyInputError, LimitExceededError, NotHTMLError
from grist.html.decode import decode
from grist.html.entities import unescape
from grist.html.sniff import looks_binary
from grist.io import is_url
from grist.limits import Limits
from grist.whitespace import visible_text

try:  # the check compiled (built with the package when a C compiler is there)
    from grist.html._scan import has_surrogates as _find_surrogates
except ImportError:  # pragma: no cover - an install without a compiler
    _find_surrogates = None

_TITLE_OPEN = re.compile(r"<title\b", re.IGNORECASE)
_TITLE_SCAN = 200_000  # the title is looked for in the page's first characters only
_SURROGATE = re.compile("[\ud800-\udfff]")
_CHUNK = 1 << 20
_NAME_LENGTH = 4096  # a longer str is a page, not a file name or an address
_PAGE_FILE = re.compile(r"\S*\.(?:x?html?|shtml|gz)", re.IGNORECASE)  # page.html, a/b.htm.gz


def title_from_source(source: str) -> str:
    """The page's ``<title>`` read from the source without a DOM (first one, entities decoded,
    without the characters a browser does not draw, as block text is)."""
    # The first "<title" decides (as the pattern <title\b[^>]*>([^<]*) would, without its
    # rescans: thousands of "<title" without ">" made that quadratic).
    opening = _TITLE_OPEN.search(source, 0, _TITLE_SCAN)
    if opening is None:
        return ""
    start = source.find(">", opening.end(), _TITLE_SCAN)
    if start < 0:
        return ""
    end = source.find("<", start + 1, _TITLE_SCAN)
    text = source[start + 1 : end if end >= 0 else min(len(source), _TITLE_SCAN)]
    return visible_text(unescape(text))


def utf8_size(text: str, cap: int) -> int:
    """The UTF-8 size of ``text`` (a lone surrogate counts as the three bytes of U+FFFD), exact
    when it is near ``cap``; far below or above it, a bound that settles the comparison.

    Each character takes one to four bytes, so only a text of between cap/4 and cap characters
    is measured, in slices of a MiB, without a copy of the whole text.
    """
    if text.isascii() or len(text) > cap:
        return len(text)  # exact, or over the cap already
    if 4 * len(text) <= cap:
        return 4 * len(text)  # a bound under the cap
    return sum(len(text[i : i + _CHUNK].encode("utf-8", "surrogatepass"))
               for i in range(0, len(text), _CHUNK))


def _has_surrogates(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate: read in C when it was built, else UTF-8 encoding
    fails only then (about four times faster than a regex search, but it copies the page)."""
    if _find_surrogates is not None:
        return _find_surrogates(text)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def without_surrogates(text: str) -> str:
    """``text`` with each lone surrogate (a JSON ``\\ud800`` escape makes one; UTF-8 has none)
    replaced by U+FFFD, as undecodable bytes are, so that it can be written out."""
    return _SURROGATE.sub("\ufffd", text) if not text.isascii() and _has_surrogates(text) else text


def _names_a_page(source: str) -> str | None:
    """What the page is when it is one word naming a page instead of holding one (a web address
    or an HTML file's name, a mistake a user's first call makes easily), else None. Judged on
    the word alone: the file system is not looked at (the service must not tell its callers
    which files its machine has)."""
    if len(source) > _NAME_LENGTH or "<" in source:
        return None
    words = source.split()
    if len(words) != 1:
        return None
    word = words[0]
    if is_url(word):
        return (f"the address {word!r}, not its HTML: download it first (`grist extract URL` "
                f"does)")
    if _PAGE_FILE.fullmatch(word):
        return f"the name of a file, {word!r}: pass pathlib.Path({word!r}) to read it"
    return None


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
    for name, value in (("url", url), ("http_charset", http_charset)):
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{name} must be a str or None, not {type(value).__name__}")
    limits = limits or Limits()
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        if len(data) > limits.max_bytes:
            raise _size_error(len(data), limits)
        text, encoding = decode(data, http_charset)
    elif isinstance(source, str):
        size = utf8_size(source, limits.max_bytes)
        if size > limits.max_bytes:
            raise _size_error(size, limits)
        if not source or source.isspace():  # (as ``not source.strip()``, without a copy)
            raise EmptyInputError("the page is empty")
        if source.count("\x00", 0, 4096) > min(len(source), 4096) // 100:
            raise NotHTMLError("the input is not an HTML page: it contains NUL characters")
        if looks_binary(source):
            raise NotHTMLError("the input is not an HTML page: it holds control characters as "
                               "random or compressed bytes do")
        named = _names_a_page(source)
        if named:
            raise NotHTMLError(f"the input is not an HTML page: it is {named}")
        text, encoding = without_surrogates(source), None
    else:
        raise TypeError(f"the page must be bytes or str (or a grist.RawPage, or a file's "
                        f"pathlib.Path), not {type(source).__name__}")
    return Document(html=text, url=url and without_surrogates(url), encoding=encoding,
                    title=title_from_source(text))
