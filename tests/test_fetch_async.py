"""The async fetcher: per-host politeness, retries with backoff, robots.txt, conditional
requests, and ``transport=`` replacing the network."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
from stream_server import Site, site  # noqa: F401 - the fixture

from grist.errors import FetchError
from grist.io.fetch import AsyncFetcher, FetchConfig


def run(coroutine):  # noqa: ANN001, ANN201
    return asyncio.run(coroutine)


class Recording(httpx.AsyncHTTPTransport):
    """The real network, noting when each request leaves the client (and how many at once)."""

    def __init__(self) -> None:
        super().__init__()
        self.starts: list[tuple[float, str]] = []
        self.open = self.most_open = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.starts.append((time.monotonic(), request.url.path))
        self.open += 1
        self.most_open = max(self.most_open, self.open)
        try:
            response = await super().handle_async_request(request)
            await response.aread()
            return response
        finally:
            self.open -= 1


def test_one_host_gets_requests_one_at_a_time_and_spaced(site: Site) -> None:
    transport = Recording()

    async def go() -> None:
        config = FetchConfig(host_concurrency=1, host_delay=0.15)
        async with AsyncFetcher(config, transport=transport) as fetcher:
            await asyncio.gather(*(fetcher.fetch(f"{site.base}/articles/{n}.html")
                                   for n in range(4)))

    run(go())
    starts = [t for t, path in transport.starts if path.startswith("/articles/")]
    assert len(starts) == 4 and transport.most_open == 1
    gaps = [b - a for a, b in zip(starts, starts[1:])]
    assert min(gaps) >= 0.13, gaps  # 0.15 apart, less the jitter of getting to the socket


def test_failures_that_may_pass_are_retried_then_reported(site: Site) -> None:
    async def go() -> None:
        async with AsyncFetcher(FetchConfig(retries=2, backoff=0.01, host_delay=0)) as fetcher:
            await fetcher.fetch(f"{site.base}/error500.html")

    with pytest.raises(FetchError, match="HTTP 500") as caught:
        run(go())
    assert caught.value.retryable
    assert sum(path == "/error500.html" for _, path, _ in site.requests) == 3


def test_robots_txt_is_read_once_and_obeyed(site: Site) -> None:
    async def go() -> list[str]:
        outcomes = []
        async with AsyncFetcher(FetchConfig(host_delay=0)) as fetcher:
            for path in ("/private/x.html", "/articles/1.html", "/articles/2.html"):
                try:
                    outcomes.append((await fetcher.fetch(site.base + path)).url)
                except FetchError as exc:
                    outcomes.append(str(exc))
        return outcomes

    assert run(go()) == ["robots.txt disallows this URL", f"{site.base}/articles/1.html",
                         f"{site.base}/articles/2.html"]
    assert sum(path == "/robots.txt" for _, path, _ in site.requests) == 1
    assert not any(path.startswith("/private/") for _, path, _ in site.requests)


def test_conditional_requests_send_the_validators(site: Site) -> None:
    site.items["f.xml"] = [("A", "/a", "x")]

    async def go() -> tuple[int, int]:
        async with AsyncFetcher(FetchConfig(host_delay=0)) as fetcher:
            first = await fetcher.fetch(f"{site.base}/feeds/f.xml", kinds=None)
            again = await fetcher.fetch(f"{site.base}/feeds/f.xml", kinds=None, etag=first.etag)
            return first.status, again.status

    assert run(go()) == (200, 304)


def test_a_transport_replaces_the_network() -> None:
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        if request.url.path == "/robots.txt":
            return httpx.Response(404)
        return httpx.Response(200, headers={"content-type": "text/html"}, content=b"<p>hi</p>")

    async def go() -> bytes:
        async with AsyncFetcher(transport=httpx.MockTransport(handler)) as fetcher:
            return (await fetcher.fetch("http://guarded.example/page")).content

    assert run(go()) == b"<p>hi</p>"
    assert seen == ["http://guarded.example/robots.txt", "http://guarded.example/page"]


def test_a_robots_txt_is_read_to_500_kib_as_rfc_9309_allows() -> None:
    """A 7 MB robots.txt took 13 s of CPU to parse, with the stream's event loop waiting."""
    from grist.io.hosts import ROBOTS_MAX_BYTES, RobotsCache

    rules = b"User-agent: *\nDisallow: /private/\n" + b"".join(
        b"Disallow: /p%d/*/x$\n" % n for n in range(300_000))
    robots = RobotsCache("grist")
    robots.learn("https://a.example", rules + b"Disallow: /late/\n")
    assert robots.verdict("https://a.example", "https://a.example/private/x") is not None
    assert robots.verdict("https://a.example", "https://a.example/late/x") is None  # past the cap
    assert ROBOTS_MAX_BYTES == 500 * 1024
