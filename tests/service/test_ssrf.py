"""URL fetching refuses loopback, private, link-local and metadata addresses: literal, by name,
through DNS and after a redirect, with a clear 4xx; an allow-list lets a network through."""

from __future__ import annotations

import asyncio
import ipaddress
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from conftest import ARTICLE, fake_resolver, running, send_article
from local_server import base_url

from grist.errors import FetchError
from grist.io.fetch import AsyncFetcher, FetchConfig, FetchedPage
from grist.service import ServiceSettings, create_app
from grist.service.guard import (
    AddressGuard,
    BlockedAddressError,
    GuardedTransport,
    parse_networks,
    why_blocked,
)

HOSTS_SEEN: list[str] = []


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        HOSTS_SEEN.append(self.headers.get("Host", ""))
        targets = {"/to-private": "http://10.20.30.40/admin", "/to-metadata":
                   "http://169.254.169.254/latest/meta-data/", "/to-loopback6": "http://[::1]:9/",
                   "/to-intranet": "http://intranet.test/", "/to-bad-name": "http://xn--a.example/"}
        if self.path in targets:
            self.send_response(302)
            self.send_header("Location", targets[self.path])
            self.end_headers()
            return
        send_article(self)


@pytest.fixture(scope="module")
def origin() -> Iterator[str]:
    """An HTTP server on 127.0.0.1 that serves a page and redirects to private addresses."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield base_url(httpd)
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def allowing() -> Iterator[str]:
    """A service that allows 127.0.0.1/32 (its operator's test host), one worker, one page at
    a time."""
    guard = AddressGuard(allow=parse_networks(["127.0.0.1/32"]), resolver=fake_resolver)
    settings = ServiceSettings(workers=1, max_in_flight=1, time_budget=3.0, guard=guard)
    with running(create_app(settings)) as url:
        yield url


def fetch_via(service: str, url: str) -> httpx.Response:
    return httpx.post(service + "/extract", json={"url": url}, timeout=30)


def guarded_fetch(url: str, guard: AddressGuard) -> FetchedPage:
    """``url`` fetched through the guard's transport by an ``AsyncFetcher``, as the service
    fetches."""
    async def go() -> FetchedPage:
        async with AsyncFetcher(FetchConfig(robots=False, retries=0),
                                transport=GuardedTransport(guard)) as fetcher:
            return await fetcher.fetch(url)

    return asyncio.run(go())


@pytest.mark.parametrize(("url", "why"), [
    ("http://127.0.0.1:8080/", "127.0.0.1: a loopback address"),
    ("http://127.1.2.3/", "a loopback address"),
    ("http://localhost:8080/", "localhost (127.0.0.1): a loopback address"),
    ("http://10.1.2.3/", "10.1.2.3: a private address"),
    ("http://192.168.0.1/", "a private address"),
    ("http://169.254.169.254/latest/meta-data/", "169.254.169.254: a link-local (cloud metadata) address"),
    ("http://[::1]/", "::1: a loopback address"),
    ("http://[::ffff:10.0.0.1]/", "a private address"),
    ("http://[fd00:ec2::254]/", "a private address"),
    ("http://0.0.0.0/", "an unspecified address"),
    ("http://2130706433/", "(127.0.0.1): a loopback address"),
    ("http://intranet.test/", "intranet.test (10.0.0.7): a private address"),
    ("http://mixed.test/", "mixed.test (192.168.1.9): a private address"),
])
def test_private_targets_are_refused_with_403(service: str, url: str, why: str) -> None:
    response = fetch_via(service, url)
    assert response.status_code == 403
    body = response.json()
    assert body["reason"] == "blocked-address"
    assert why in body["error"] and "fetches only public addresses" in body["error"]


def test_the_inspector_refuses_them_too(service: str) -> None:
    response = httpx.post(service + "/inspect", json={"url": "http://169.254.169.254/"}, timeout=30)
    assert response.status_code == 403 and response.json()["reason"] == "blocked-address"


def test_an_allowed_host_is_fetched_with_its_name_kept(allowing: str, origin: str) -> None:
    response = fetch_via(allowing, origin + "/page.html")
    assert response.status_code == 200 and "she knew that the mill" in response.text
    assert HOSTS_SEEN[-1] == origin.removeprefix("http://")


@pytest.mark.parametrize(("path", "why"), [
    ("/to-private", "10.20.30.40: a private address"),
    ("/to-metadata", "169.254.169.254: a link-local (cloud metadata) address"),
    ("/to-loopback6", "::1: a loopback address"),
    ("/to-intranet", "intranet.test (10.0.0.7): a private address"),
])
def test_a_redirect_from_an_allowed_host_to_a_private_one_is_refused(
        allowing: str, origin: str, path: str, why: str) -> None:
    response = fetch_via(allowing, origin + path)
    assert response.status_code == 403 and response.json()["reason"] == "blocked-address"
    assert f"refusing to fetch from {why}" in response.json()["error"]


def test_a_redirect_to_a_host_name_that_does_not_decode_is_a_502(allowing: str, origin: str) -> None:
    response = fetch_via(allowing, origin + "/to-bad-name")
    assert response.status_code == 502 and response.json()["reason"] == "fetch-failed"
    assert "a redirect's host name is not valid" in response.json()["error"]


def test_guard_checks_every_address_and_connects_to_the_checked_one(origin: str) -> None:
    port = int(origin.rsplit(":", 1)[1])
    guard = AddressGuard(allow=parse_networks(["127.0.0.1"]),
                         resolver=lambda host, _: {"site.test": ["127.0.0.1"]}[host])
    page = guarded_fetch(f"http://site.test:{port}/a.html", guard)
    assert b"Rivers of the north" in page.content and page.url == f"http://site.test:{port}/a.html"
    assert HOSTS_SEEN[-1] == f"site.test:{port}"  # the name, though the address was connected
    with pytest.raises(BlockedAddressError, match="a private address"):
        AddressGuard(resolver=lambda h, p: ["8.8.8.8", "10.0.0.1"]).check("two.test", 80)
    assert AddressGuard(resolver=lambda h, p: ["8.8.8.8"]).check("public.test", 80) == "8.8.8.8"
    with pytest.raises(FetchError, match="could not resolve"):
        AddressGuard().check("no-such-host.invalid", 80)


def test_why_blocked() -> None:
    def why(text: str) -> str | None:
        return why_blocked(ipaddress.ip_address(text))

    assert why("93.184.216.34") is None and why("2606:4700::1111") is None
    assert why("100.64.0.1") == "a non-public address"  # carrier-grade NAT
    assert why("224.0.0.1") == "a multicast address"
    assert why("2002:7f00:1::1") == "a loopback address"  # 6to4 around 127.0.0.1
    assert why("fe80::1") == "a link-local (cloud metadata) address"


def test_concurrency_limit_answers_503_at_once(allowing: str) -> None:
    slow_done = []
    big = "<html><body>" + "<div><p>word and more words here.</p><a href=/x>x</a></div>" * 1500
    hold = threading.Thread(target=lambda: slow_done.append(
        httpx.post(allowing + "/extract", json={"html": big, "method": "tagscore"}, timeout=30)))
    hold.start()
    for _ in range(200):
        if httpx.get(allowing + "/health").json()["in_flight"] == 1:
            break
    response = httpx.post(allowing + "/extract", json={"html": ARTICLE}, timeout=30)
    # a body no slot would make readable is refused as such, not told to retry (it was 503)
    png = httpx.post(allowing + "/extract", content=b"x", headers={"content-type": "image/png"})
    hold.join()
    assert response.status_code == 503
    assert response.json()["reason"] == "overloaded" and response.headers["retry-after"] == "1"
    assert png.status_code == 415 and png.json()["reason"] == "unsupported-media-type"
    assert httpx.post(allowing + "/extract", json={"html": ARTICLE}).status_code == 200


def test_relative_redirects_keep_the_host_name(server: ThreadingHTTPServer) -> None:
    port = server.server_address[1]
    guard = AddressGuard(allow=parse_networks(["127.0.0.0/8"]),
                         resolver=lambda host, _: {"news.test": ["127.0.0.1"]}[host])
    page = guarded_fetch(f"http://news.test:{port}/redirect", guard)
    assert page.url == f"http://news.test:{port}/article.html" and page.charset == "iso-8859-1"
