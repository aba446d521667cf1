"""Fetching pages over HTTP from a server on 127.0.0.1; every failure is a FetchError."""

from __future__ import annotations

import asyncio
import gzip
import re
import socket
import zlib
from collections.abc import Callable
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import brotli
import httpx
import pytest
from local_server import ARTICLE, BIG_BYTES, USER_AGENTS, base_url

from grist.errors import FetchError
from grist.html.load import load_document
from grist.io import is_url
from grist.io.fetch import AsyncFetcher, FetchConfig, FetchedPage, fetch

Getter = Callable[[str, FetchConfig], FetchedPage]


def test_fetch_passes_http_charset_on(server: ThreadingHTTPServer) -> None:
    page = fetch(base_url(server) + "/article.html")
    assert page.status == 200 and page.content_type == "text/html"
    assert page.charset == "iso-8859-1"
    doc = load_document(page.content, page.url, http_charset=page.charset)
    assert "crème brûlée" in doc.html and doc.title == "Café news"


def test_fetch_without_charset_leaves_detection_to_decoder(server: ThreadingHTTPServer) -> None:
    page = fetch(base_url(server) + "/utf8.html")
    assert page.charset is None and page.content == ARTICLE.encode("utf-8")


def test_fetch_follows_redirects_and_sends_user_agent(server: ThreadingHTTPServer) -> None:
    page = fetch(base_url(server) + "/redirect")
    assert page.url == base_url(server) + "/article.html"
    assert USER_AGENTS[-1].startswith("grist/")


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/missing", "HTTP 404 Not Found"),
        ("/broken", "HTTP 500"),
        ("/image.png", "the server sent image/png, not an HTML page"),
        ("/loop", "too many redirects"),
        ("/not-gzip.html", "the body does not decompress as its Content-Encoding says"),
        ("/badport", r"not a valid http\(s\) URL \(Port out of range"),
        ("/declared-big.html", f"the page is {BIG_BYTES} bytes; the limit is 100000"),
        ("/streamed.html", "larger than the limit of 100000 bytes"),
    ],
)
def test_fetch_failures(server: ThreadingHTTPServer, path: str, message: str) -> None:
    with pytest.raises(FetchError, match=message):
        fetch(base_url(server) + path, FetchConfig(max_bytes=100_000, max_redirects=3))


def test_streamed_body_within_the_cap_is_read_whole(server: ThreadingHTTPServer) -> None:
    page = fetch(base_url(server) + "/streamed.html")
    assert len(page.content) == BIG_BYTES


def test_timeout(server: ThreadingHTTPServer) -> None:
    with pytest.raises(FetchError,
                       match=r"timed out waiting for the server \(the limit is 0.2 s\)"):
        fetch(base_url(server) + "/slow.html", FetchConfig(timeout=0.2))


def test_connection_refused() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(FetchError, match="could not connect"):
        fetch(f"http://127.0.0.1:{port}/")


def test_dns_failure_is_a_fetch_error() -> None:
    def fail(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("[Errno -2] Name or service not known", request=request)

    with pytest.raises(FetchError, match="could not connect .*Name or service not known"):
        fetch("http://no-such-host.invalid/", transport=httpx.MockTransport(fail))


@pytest.mark.parametrize(("url", "why"), [("http://[::1", "Invalid IPv6 URL"),
                                          ("http://127.0.0.1:99999/", "Port out of range"),
                                          ("http:///a.html", "")])
def test_invalid_url(url: str, why: str) -> None:
    with pytest.raises(FetchError, match=rf"not a valid http\(s\) URL.*{why}"):
        fetch(url)


def test_is_url() -> None:
    assert is_url("https://example.com/a") and is_url("HTTP://x")
    assert not is_url("page.html") and not is_url("-") and not is_url("ftp://x")


PAGE = ARTICLE.encode("utf-8")
ZIPPED = gzip.compress(PAGE)
# path -> (Content-Encoding, body)
ENCODED = {
    "/gzip": ("gzip", ZIPPED),
    "/deflate": ("deflate", zlib.compress(PAGE)),
    "/raw-deflate": ("deflate", zlib.compress(PAGE, wbits=-15)),  # no zlib header
    "/br": ("br", brotli.compress(PAGE)),
    "/two-members": ("gzip", gzip.compress(PAGE[:40]) + gzip.compress(PAGE[40:])),
    "/stacked": ("deflate, gzip", gzip.compress(zlib.compress(PAGE))),
    "/cut-gzip": ("gzip", ZIPPED[: len(ZIPPED) // 2]),
    "/cut-br": ("br", brotli.compress(PAGE)[:30]),
    "/bomb": ("gzip", gzip.compress(b"<p>" + b"x" * BIG_BYTES)),
    "/br-bomb": ("br", brotli.compress(b"<p>" + b"x" * 50_000_000, quality=1)),
}
ACCEPTED: list[str] = []  # the Accept-Encoding header of every request to ENCODED


class _EncodedHandler(BaseHTTPRequestHandler):
    """Answers ENCODED's paths, the Content-Length that of the encoded body (the transfer is
    whole, only the compressed data may be cut off)."""

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        ACCEPTED.append(self.headers.get("Accept-Encoding", ""))
        coding, body = ENCODED[self.path]
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Encoding", coding)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def encoded(server: ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch) -> str:
    """The local server's address, answering ENCODED's paths for one test."""
    monkeypatch.setattr(server, "RequestHandlerClass", _EncodedHandler)
    return base_url(server)


def fetch_async(url: str, config: FetchConfig) -> FetchedPage:
    """``fetch`` done by AsyncFetcher (no robots.txt, no retries)."""
    async def go() -> FetchedPage:
        async with AsyncFetcher(replace(config, robots=False, retries=0)) as fetcher:
            return await fetcher.fetch(url)

    return asyncio.run(go())


@pytest.mark.parametrize("path", ["/gzip", "/deflate", "/raw-deflate", "/br", "/two-members",
                                  "/stacked"])
@pytest.mark.parametrize("get", [fetch, fetch_async])
def test_compressed_bodies_are_decoded_whole(encoded: str, path: str, get: Getter) -> None:
    assert get(encoded + path, FetchConfig()).content == PAGE
    assert ACCEPTED[-1] == "gzip, deflate, br"


@pytest.mark.parametrize(("path", "message"), [
    ("/cut-gzip", "the body is cut off or damaged: its gzip data ends early"),
    ("/cut-br", "the body is cut off or damaged: its br data ends early"),
    ("/bomb", "the page is larger than the limit of 100000 bytes"),  # the cap holds once decoded
    ("/br-bomb", "the page is larger than the limit of 100000 bytes"),
])
@pytest.mark.parametrize("get", [fetch, fetch_async])
def test_cut_off_or_oversize_compressed_bodies_fail(encoded: str, path: str, message: str,
                                                    get: Getter) -> None:
    with pytest.raises(FetchError, match=message) as failure:
        get(encoded + path, FetchConfig(max_bytes=100_000))
    assert not failure.value.retryable


@pytest.mark.parametrize(("field", "value", "message"), [
    ("timeout", -1, "FetchConfig.timeout must be a number of seconds, more than 0, not -1"),
    ("timeout", 0, "FetchConfig.timeout must be a number of seconds, more than 0, not 0"),
    ("host_delay", "1s", "FetchConfig.host_delay must be a number of seconds, 0 or more"),
    ("retries", -1, "FetchConfig.retries must be a whole number of 0 or more, not -1"),
    ("max_bytes", 1.5, "FetchConfig.max_bytes must be a whole number of 1 or more, not 1.5"),
])
def test_fetch_settings_out_of_range_are_a_config_error(field, value, message):
    from grist.errors import ConfigError

    with pytest.raises(ConfigError, match=re.escape(message)):
        FetchConfig(**{field: value})


@pytest.mark.parametrize(("coding", "compress"), [
    ("br", lambda data: brotli.compress(data, quality=1)), ("gzip", gzip.compress),
    ("gzip, gzip", lambda data: gzip.compress(gzip.compress(data)))])
def test_a_compressed_body_decodes_no_further_than_its_limit(coding: str, compress) -> None:
    """A few hundred bytes of br decoded to all of their 50 MB in one piece before the size cap
    was looked at (it can as well be gigabytes); each piece now stops soon past the limit (a
    byte past it for gzip; brotli stops growing its output buffer there)."""
    import tracemalloc

    from grist.errors import CorruptInputError
    from grist.io.content_encoding import ContentDecoder

    body = compress(b"x" * 50_000_000)
    tracemalloc.start()
    try:
        decoder = ContentDecoder(coding, limit=100_000)
        decoded = decoder.decode(body)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert 100_000 < len(decoded) < 500_000 and peak < 5_000_000
    with pytest.raises(CorruptInputError, match="decodes to more than its reader takes"):
        decoder.finish()
    whole = ContentDecoder(coding, limit=len(PAGE))  # a body of exactly the limit is all read
    assert whole.decode(compress(PAGE)) == PAGE and whole.finish() is None
