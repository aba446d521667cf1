"""Faults on a real server with a short time budget: an upload that stalls, an origin that never
answers, a worker killed while idle and a bug in a route, each answered with its documented
status, none holding a slot or breaking a client's kept-alive connection."""

from __future__ import annotations

import os
import signal
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest
from conftest import ARTICLE, running
from fastapi import FastAPI

from grist.service import ServiceSettings, create_app
from grist.service.guard import AddressGuard, parse_networks

BUDGET = 1.5


@dataclass
class Served:
    url: str
    app: FastAPI


@pytest.fixture(scope="module")
def strict() -> Iterator[Served]:
    """One worker, a 1.5 s budget below the 8 s fetch timeout, 127.0.0.1 allowed, and a route
    with a bug in it."""
    settings = ServiceSettings(workers=1, max_in_flight=2, time_budget=BUDGET,
                               guard=AddressGuard(allow=parse_networks(["127.0.0.1/32"])))
    app = create_app(settings)

    @app.get("/fault")
    async def fault() -> None:
        raise RuntimeError("a bug")

    with running(app) as url:
        yield Served(url, app)


def _health(served: Served) -> dict:
    return httpx.get(served.url + "/health").json()


def _until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends before it closes the connection."""
    answer = b""
    while data := sock.recv(4096):
        answer += data
    return answer


def test_a_stalled_upload_gets_408_within_the_budget_and_frees_its_slot(strict: Served) -> None:
    port = int(strict.url.rsplit(":", 1)[1])
    stalled = []
    for _ in range(2):  # every slot
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        sock.sendall(b"POST /extract HTTP/1.1\r\nHost: x\r\nContent-Type: text/html\r\n"
                     b"Content-Length: 1000\r\n\r\n<p>hello</p>")
        stalled.append(sock)
    started = time.monotonic()
    answers = [_until_closed(sock) for sock in stalled]
    waited = time.monotonic() - started
    for sock in stalled:
        sock.close()
    assert waited < BUDGET + 1.0
    for answer in answers:
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 408") and b"connection: close" in head.lower()
        assert b'"reason":"body-timeout"' in body and b"time budget of 1.5 s" in body
    assert _health(strict)["in_flight"] == 0
    response = httpx.post(strict.url + "/extract", json={"html": ARTICLE}, timeout=30)
    assert response.status_code == 200


def test_an_origin_that_outlasts_the_budget_gives_504(strict: Served) -> None:
    silent = socket.socket()  # connections complete in the backlog; nothing ever answers
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    try:
        started = time.monotonic()
        response = httpx.post(strict.url + "/extract", timeout=30, json={
            "url": f"http://127.0.0.1:{silent.getsockname()[1]}/page"})
        waited = time.monotonic() - started
    finally:
        silent.close()
    assert response.status_code == 504 and response.json()["reason"] == "timeout"
    assert "time budget of 1.5 s" in response.json()["error"]
    assert BUDGET <= waited < BUDGET + 1.5


def test_a_worker_killed_while_idle_is_replaced_before_a_page_reaches_it(strict: Served) -> None:
    pool = strict.app.state.service.pool
    os.kill(pool._all[0].process.pid, signal.SIGKILL)
    for _ in range(100):
        if _health(strict)["workers"] == 0:
            break
        time.sleep(0.05)
    assert _health(strict)["workers"] == 0
    response = httpx.post(strict.url + "/extract", json={"html": ARTICLE}, timeout=30)
    assert response.status_code == 200 and "the mill" in response.text
    assert _health(strict)["workers"] == 1 and pool.restarts == 1


def test_a_bug_is_a_500_that_closes_the_connection_cleanly(strict: Served) -> None:
    with httpx.Client(base_url=strict.url, timeout=30) as client:
        for _ in range(10):
            bug = client.get("/fault")
            assert bug.status_code == 500 and bug.headers["connection"] == "close"
            assert bug.json() == {"error": "internal error (RuntimeError); see the service log",
                                  "reason": "internal-error"}
            assert client.get("/health").status_code == 200  # never a reset connection
