"""URL fetching is stopped at its time limit: an upstream that trickles its headers holds nothing
past its request's deadline (the service's or the request's own budget, or --fetch-timeout),
and a client that leaves while its page is fetched stops the download (499)."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from conftest import metric_counts, running, send_article

from grist.errors import FetchError
from grist.service import ServiceSettings, create_app
from grist.service.fetching import Fetcher
from grist.service.guard import AddressGuard, parse_networks

BUDGET = 3.0
IN_FLIGHT = 2
TRICKLE = 0.2  # seconds between two bytes of a trickled answer
CLOSED = 1.5  # how soon after its deadline a download's connection must be closed
LOCAL = AddressGuard(allow=parse_networks(["127.0.0.1/32"]))


@dataclass
class Origin:
    """An upstream on 127.0.0.1: ``/fast.html`` answers at once, ``/trickle`` sends its headers
    a byte every TRICKLE seconds, for a minute; it notes when each trickled download began and
    when its client dropped the connection."""

    url: str
    opened: list[float] = field(default_factory=list)
    dropped: list[float] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def drops_after(self, count: int) -> list[float]:
        """When the trickled downloads after the first ``count`` were dropped (waited for)."""
        until = time.monotonic() + 10
        while len(self.dropped) < len(self.opened) or len(self.opened) <= count:
            assert time.monotonic() < until, "a trickled download was never dropped"
            time.sleep(0.05)
        return sorted(self.dropped)[count:]


def _handler(origin: Origin) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            if self.path == "/fast.html":
                send_article(self)
            else:
                self._trickle()

        def _trickle(self) -> None:
            origin.opened.append(time.monotonic())
            answer = b"HTTP/1.1 200 OK\r\nX-Slow: " + b"y" * 300
            try:
                for byte in answer:
                    if origin.stop.wait(TRICKLE):
                        return
                    self.wfile.write(bytes([byte]))
            except OSError:
                origin.dropped.append(time.monotonic())
            self.close_connection = True

    return Handler


@pytest.fixture(scope="module")
def origin() -> Iterator[Origin]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    host, port = httpd.server_address[:2]
    served = Origin(f"http://{host}:{port}")
    httpd.RequestHandlerClass = _handler(served)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield served
    served.stop.set()
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def service() -> Iterator[str]:
    """IN_FLIGHT pages at once, a BUDGET below the 8 s fetch timeout, 127.0.0.1 allowed."""
    settings = ServiceSettings(workers=1, max_in_flight=IN_FLIGHT, time_budget=BUDGET,
                               guard=LOCAL)
    with running(create_app(settings)) as url:
        yield url


async def _timed_posts(service: str, bodies: list[dict]) -> list[tuple[httpx.Response, float]]:
    """Each body posted to /extract at once: the answer and the seconds it took."""
    async def post(client: httpx.AsyncClient, body: dict) -> tuple[httpx.Response, float]:
        started = time.monotonic()
        response = await client.post(service + "/extract", json=body)
        return response, time.monotonic() - started

    async with httpx.AsyncClient(timeout=30) as client:
        return list(await asyncio.gather(*(post(client, body) for body in bodies)))


def test_upstreams_that_trickle_hold_nothing_after_the_deadline(service: str,
                                                                origin: Origin) -> None:
    before = len(origin.opened)
    started = time.monotonic()
    answers = asyncio.run(_timed_posts(service, [{"url": origin.url + "/trickle"}] *
                                       (IN_FLIGHT + 1)))
    assert sorted((r.status_code, r.json()["reason"]) for r, _ in answers) == [
        (503, "overloaded")] + [(504, "timeout")] * IN_FLIGHT
    assert all(seconds < BUDGET + 1.0 for _, seconds in answers)
    assert all(at < started + BUDGET + CLOSED for at in origin.drops_after(before))
    [(fast, seconds)] = asyncio.run(_timed_posts(service, [{"url": origin.url + "/fast.html"}]))
    assert fast.status_code == 200 and "the mill" in fast.text and seconds < CLOSED


def test_a_request_budget_bounds_its_fetch(service: str, origin: Origin) -> None:
    before = len(origin.opened)
    started = time.monotonic()
    [(response, seconds)] = asyncio.run(_timed_posts(service, [
        {"url": origin.url + "/trickle", "time_budget": 0.5}]))
    answer = response.json()
    assert response.status_code == 504 and answer["reason"] == "timeout"
    assert seconds < 0.5 + CLOSED
    assert answer["error"] == ("the request took longer than its time budget of 0.5 s: the "
                               "download was still running; it was stopped")
    assert origin.drops_after(before)[0] < started + 0.5 + CLOSED


def test_fetch_timeout_stops_a_download_that_trickles(origin: Origin) -> None:
    fetcher = Fetcher(ServiceSettings(fetch_timeout=0.5, guard=LOCAL))
    before = len(origin.opened)
    started = time.monotonic()
    with pytest.raises(FetchError, match="the download took longer than 0.5 s"):
        asyncio.run(fetcher.fetch(origin.url + "/trickle"))
    assert time.monotonic() - started < 0.5 + CLOSED
    assert origin.drops_after(before)[0] < started + 0.5 + CLOSED


def test_a_client_that_leaves_during_the_fetch_stops_it(service: str, origin: Origin) -> None:
    errors = 'grist_errors_total{reason="client-disconnected"}'
    extract = 'grist_http_requests_total{endpoint="/extract",method="POST",status="499"}'
    counts = metric_counts(service)
    before = len(origin.opened)
    body = f'{{"url": "{origin.url}/trickle"}}'.encode()
    port = int(service.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(b"POST /extract HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        sent = time.monotonic()
        while len(origin.opened) == before:
            assert time.monotonic() - sent < BUDGET, "the page was never fetched"
            time.sleep(0.02)
    left = time.monotonic()
    assert origin.drops_after(before)[0] < left + CLOSED < left + BUDGET
    while metric_counts(service).get(extract, 0) == counts.get(extract, 0):
        assert time.monotonic() < left + BUDGET, "the request was not counted as a 499"
        time.sleep(0.05)
    after = metric_counts(service)
    assert after[errors] == counts.get(errors, 0) + 1
    assert after[extract] == counts.get(extract, 0) + 1
    assert httpx.get(service + "/health").json()["in_flight"] == 0
