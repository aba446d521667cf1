"""Fetch web pages over HTTP(S) with httpx: bounded in time and size, polite, and retried.

``fetch(url)`` downloads one page synchronously (``grist extract URL``). ``AsyncFetcher`` serves
many (the stream and batch levels): per-host politeness (at most ``host_concurrency`` requests
at once, ``host_delay`` seconds apart, longer when robots.txt asks), robots.txt, conditional
requests (ETag / Last-Modified) and retries with exponential backoff for failures that may pass.

Redirects are followed and the response URL is reported; the body is streamed and the download
stops as soon as it passes the size cap. grist undoes the body's Content-Encoding itself
(``grist.io.content_encoding``: gzip, deflate, br), because httpx takes a cut-off compressed
body for a whole one. Every failure (DNS, refused connection,
timeout, HTTP error status, too large, wrong type, redirect loop, robots.txt, a damaged or
cut-off compressed body) becomes a FetchError with a plain message; ``retryable`` says whether
trying later may help. Every entry point takes ``transport=``, which replaces the network
(tests, or a guard that vets addresses).

httpx is imported by the calls that use it: reading local pages (``grist extract page.html``)
loads this module through the input readers and should not pay for an HTTP client.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from grist import __version__
from grist.errors import FetchError
from grist.io.content_encoding import ContentDecoder, accept_encoding
from grist.io.hosts import HostGate, RobotsCache
from grist.checks import check_seconds, check_whole
from grist.limits import Limits

if TYPE_CHECKING:
    import httpx

USER_AGENT = f"grist/{__version__} (main-content extractor; python-httpx)"
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_RETRY_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class FetchConfig:
    """timeout: seconds the whole download may take (and each network step);
    max_bytes: largest body accepted (after decompression); the rest applies to AsyncFetcher:
    retries after a failure that may pass, ``backoff`` seconds before the first (doubling),
    per-host concurrency and delay between requests, and whether robots.txt is obeyed."""

    timeout: float = 15.0
    max_bytes: int = Limits().max_bytes
    max_redirects: int = 10
    user_agent: str = USER_AGENT
    retries: int = 2
    backoff: float = 1.0
    host_concurrency: int = 2
    host_delay: float = 1.0
    robots: bool = True

    def __post_init__(self) -> None:
        check_seconds(self, "timeout", above_zero=True)
        for name in ("backoff", "host_delay"):
            check_seconds(self, name)
        for name, least in (("max_bytes", 1), ("max_redirects", 0), ("retries", 0),
                            ("host_concurrency", 1)):
            check_whole(self, name, least)


@dataclass(frozen=True)
class FetchedPage:
    """A downloaded page: its final URL (after redirects), body, the HTTP charset if any, and
    the validators for a conditional request next time. Status 304 has an empty body."""

    url: str
    content: bytes
    charset: str | None
    content_type: str
    status: int
    etag: str | None = None
    last_modified: str | None = None


def _check_url(url: str) -> None:
    """FetchError for a URL no request can reach: not http(s), no host, a port out of range."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - reading it checks it
    except ValueError as exc:
        raise FetchError(f"not a valid http(s) URL ({exc})") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise FetchError("not a valid http(s) URL")


def _check_headers(response: httpx.Response, config: FetchConfig,
                   kinds: Collection[str] | None) -> str:
    """Raise FetchError for an error status, a type not in ``kinds`` or a declared oversize body."""
    if response.status_code >= 400:
        raise FetchError(f"HTTP {response.status_code} {response.reason_phrase}".rstrip(),
                         retryable=response.status_code in _RETRY_STATUS)
    content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if response.status_code == 304:
        return content_type
    if kinds is not None and content_type and content_type not in kinds:
        raise FetchError(f"the server sent {content_type}, not an HTML page")
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > config.max_bytes:
        raise FetchError(f"the page is {int(declared)} bytes; the limit is {config.max_bytes}")
    return content_type


class _Body:
    """Collects a streamed body, undoing its Content-Encoding, and enforces the size cap (on the
    decoded bytes) and the deadline."""

    def __init__(self, config: FetchConfig) -> None:
        self.config = config
        self.deadline = time.monotonic() + config.timeout
        self.chunks: list[bytes] = []
        self.size = 0
        self.content_type = ""
        self.decoder = ContentDecoder("")

    def start(self, response: httpx.Response, kinds: Collection[str] | None) -> bool:
        """Check the response's headers and set up undoing its Content-Encoding; False when the
        transport has read the body already (a MockTransport, a recorder), as httpx decodes it."""
        self.content_type = _check_headers(response, self.config, kinds)
        raw = not response.is_stream_consumed
        encoding = response.headers.get("content-encoding", "") if raw else ""
        self.decoder = ContentDecoder(encoding, error=FetchError, limit=self.config.max_bytes)
        return raw

    def add(self, data: bytes) -> None:
        if time.monotonic() > self.deadline:
            raise FetchError(f"the download took longer than {self.config.timeout:g} s",
                             retryable=True)
        chunk = self.decoder.decode(data)
        self.size += len(chunk)
        if self.size > self.config.max_bytes:
            raise FetchError(f"the page is larger than the limit of {self.config.max_bytes} bytes")
        self.chunks.append(chunk)

    def page(self, response: httpx.Response) -> FetchedPage:
        self.decoder.finish()
        return FetchedPage(url=str(response.url), content=b"".join(self.chunks),
                           charset=response.charset_encoding, content_type=self.content_type,
                           status=response.status_code, etag=response.headers.get("etag"),
                           last_modified=response.headers.get("last-modified"))


def _describe(exc: Exception, config: FetchConfig) -> FetchError:
    import httpx

    if isinstance(exc, httpx.TimeoutException):
        step = ("connecting" if isinstance(exc, (httpx.ConnectTimeout, httpx.PoolTimeout))
                else "waiting for the server" if isinstance(exc, httpx.ReadTimeout)
                else "sending the request")
        return FetchError(f"timed out {step} (the limit is {config.timeout:g} s)",
                          retryable=True)
    if isinstance(exc, httpx.TooManyRedirects):
        return FetchError("too many redirects (a redirect loop?)")
    if isinstance(exc, httpx.ConnectError):
        return FetchError(f"could not connect ({exc or 'connection failed'})", retryable=True)
    if isinstance(exc, (httpx.UnsupportedProtocol, httpx.InvalidURL)):
        return FetchError(f"not a valid http(s) URL ({exc})")
    if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)):
        return FetchError(f"the connection failed ({exc or type(exc).__name__})", retryable=True)
    return FetchError(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)


def _check_request(request: httpx.Request) -> None:
    """Every request, redirects included, goes to a URL a socket can reach (httpx would pass a
    redirect's port 99999 on: the sync socket wraps it to another port, the async one raises)."""
    _check_url(str(request.url))


async def _check_request_async(request: httpx.Request) -> None:
    _check_request(request)


def _client_options(config: FetchConfig, asynchronous: bool = False) -> dict:
    check = _check_request_async if asynchronous else _check_request
    return {"follow_redirects": True, "max_redirects": config.max_redirects,
            "timeout": config.timeout, "event_hooks": {"request": [check]},
            "headers": {"User-Agent": config.user_agent, "Accept": "text/html,*/*;q=0.5",
                        "Accept-Encoding": accept_encoding()}}


def fetch(
    url: str, config: FetchConfig | None = None, *, transport: httpx.BaseTransport | None = None,
    kinds: Collection[str] | None = HTML_TYPES,
) -> FetchedPage:
    """Download ``url``; return the page or raise FetchError (its message omits the URL).

    ``kinds``: the content types accepted (None: any). ``transport`` replaces the network.
    """
    import httpx

    config = config or FetchConfig()
    _check_url(url)
    body = _Body(config)
    try:
        with (
            httpx.Client(transport=transport, **_client_options(config)) as client,
            client.stream("GET", url) as response,
        ):
            raw = body.start(response, kinds)
            for chunk in response.iter_raw() if raw else response.iter_bytes():
                body.add(chunk)
            return body.page(response)
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        raise _describe(exc, config) from None


class AsyncFetcher:
    """Many downloads at once over one connection pool, polite to each host (see the module doc).

    Use as ``async with AsyncFetcher(config) as fetcher: page = await fetcher.fetch(url)``.
    """

    def __init__(self, config: FetchConfig | None = None, *,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        import httpx

        self.config = config or FetchConfig()
        self.client = httpx.AsyncClient(transport=transport,
                                        **_client_options(self.config, asynchronous=True))
        self.gate = HostGate(self.config.host_concurrency, self.config.host_delay)
        self.robots = RobotsCache(self.config.user_agent)

    async def __aenter__(self) -> AsyncFetcher:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.client.aclose()

    async def fetch(self, url: str, *, kinds: Collection[str] | None = HTML_TYPES,
                    etag: str | None = None, last_modified: str | None = None) -> FetchedPage:
        """Download ``url`` (a conditional request when validators are given: status 304 then
        means unchanged), retrying failures that may pass; raise FetchError when it fails."""
        _check_url(url)
        if self.config.robots:
            await self._check_robots(url)
        headers = {}
        if etag:
            headers["If-None-Match"] = etag
        if last_modified:
            headers["If-Modified-Since"] = last_modified
        delay = self.config.backoff
        for attempt in range(self.config.retries + 1):
            try:
                return await self._once(url, kinds, headers)
            except FetchError as exc:
                if not exc.retryable or attempt == self.config.retries:
                    raise
            await asyncio.sleep(delay)
            delay *= 2
        raise AssertionError("unreachable")  # pragma: no cover

    async def _once(self, url: str, kinds: Collection[str] | None,
                    headers: dict[str, str]) -> FetchedPage:
        import httpx

        body = _Body(self.config)
        try:
            async with self.gate.slot(url):
                async with self.client.stream("GET", url, headers=headers) as response:
                    raw = body.start(response, kinds)
                    async for chunk in response.aiter_raw() if raw else response.aiter_bytes():
                        body.add(chunk)
                    return body.page(response)
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise _describe(exc, self.config) from None

    async def _check_robots(self, url: str) -> None:
        origin = self.robots.origin(url)
        if origin is None:
            raise FetchError(f"not a valid http(s) URL ({url})")
        async with self.robots.lock(origin):  # one robots.txt request per origin at a time
            if not self.robots.known(origin):
                try:
                    page = await self._once(origin + "/robots.txt", None, {})
                    self.robots.learn(origin, page.content)
                except FetchError as exc:
                    self.robots.failed(origin, str(exc), exc.retryable)
        verdict = self.robots.verdict(origin, url)
        if verdict is not None:
            raise FetchError(verdict, retryable=self.robots.retry_later(origin))
        self.gate.slow_down(url, self.robots.crawl_delay(origin))
