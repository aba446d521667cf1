"""Fetching pages over HTTP from a server on 127.0.0.1; every failure is a FetchError."""

from __future__ import annotations

import socket
from http.server import ThreadingHTTPServer

import httpx
import pytest
from local_server import ARTICLE, BIG_BYTES, USER_AGENTS, base_url

from grist.errors import FetchError
from grist.html.load import load_document
from grist.io import is_url
from grist.io.fetch import FetchConfig, fetch


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
