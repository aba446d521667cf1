"""Fetch one web page over HTTP(S) with httpx: bounded in time and size, HTML only.

Redirects are followed; the body is streamed and the download stops as soon as it passes the size
cap. Every failure (DNS, refused connection, timeout, HTTP error status, too large, not HTML)
becomes a FetchError with a plain message.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import httpx

from grist import __version__
from grist.errors import FetchError
from grist.limits import Limits

USER_AGENT = f"grist/{__version__} (main-content extractor; python-httpx)"
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})


@dataclass(frozen=True)
class FetchConfig:
    """timeout: seconds the whole download may take (and each network step);
    max_bytes: largest body accepted (after decompression)."""

    timeout: float = 15.0
    max_bytes: int = Limits().max_bytes
    max_redirects: int = 10
    user_agent: str = USER_AGENT


@dataclass(frozen=True)
class FetchedPage:
    """A downloaded page: its final URL (after redirects), body and the HTTP charset, if any."""

    url: str
    content: bytes
    charset: str | None
    content_type: str
    status: int


def is_url(source: str) -> bool:
    """True when ``source`` is an http(s) URL rather than a path."""
    return source.lower().startswith(("http://", "https://"))


def _check_headers(response: httpx.Response, config: FetchConfig) -> str:
    """Raise FetchError for an error status, a non-HTML type or a declared oversize body."""
    if response.status_code >= 400:
        raise FetchError(f"HTTP {response.status_code} {response.reason_phrase}".rstrip())
    content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type and content_type not in HTML_TYPES:
        raise FetchError(f"the server sent {content_type}, not an HTML page")
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > config.max_bytes:
        raise FetchError(f"the page is {int(declared)} bytes; the limit is {config.max_bytes}")
    return content_type


def _read_body(response: httpx.Response, config: FetchConfig, deadline: float) -> bytes:
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        if time.monotonic() > deadline:
            raise FetchError(f"the download took longer than {config.timeout:g} s")
        size += len(chunk)
        if size > config.max_bytes:
            raise FetchError(f"the page is larger than the limit of {config.max_bytes} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def _describe(exc: Exception) -> str:
    if isinstance(exc, httpx.TimeoutException):
        return "timed out"
    if isinstance(exc, httpx.TooManyRedirects):
        return "too many redirects"
    if isinstance(exc, httpx.ConnectError):
        return f"could not connect ({exc or 'connection failed'})"
    if isinstance(exc, (httpx.UnsupportedProtocol, httpx.InvalidURL)):
        return f"not a valid http(s) URL ({exc})"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def fetch(
    url: str, config: FetchConfig | None = None, *, transport: httpx.BaseTransport | None = None
) -> FetchedPage:
    """Download ``url``; return the page or raise FetchError (its message omits the URL).

    ``transport`` replaces the network (tests).
    """
    config = config or FetchConfig()
    deadline = time.monotonic() + config.timeout
    try:
        with (
            httpx.Client(
                follow_redirects=True,
                max_redirects=config.max_redirects,
                timeout=config.timeout,
                headers={"User-Agent": config.user_agent, "Accept": "text/html,*/*;q=0.5"},
                transport=transport,
            ) as client,
            client.stream("GET", url) as response,
        ):
            content_type = _check_headers(response, config)
            content = _read_body(response, config, deadline)
            return FetchedPage(
                url=str(response.url),
                content=content,
                charset=response.charset_encoding,
                content_type=content_type,
                status=response.status_code,
            )
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        raise FetchError(_describe(exc)) from None
