"""A real service on 127.0.0.1 (uvicorn in a thread, worker processes) for the service tests."""

from __future__ import annotations

import contextlib
import re
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import httpx
import pytest

pytest.importorskip("fastapi", reason="the service extra is not installed")

import uvicorn  # noqa: E402

from grist import testing  # noqa: E402
from grist.service import ServiceSettings, create_app  # noqa: E402
from grist.service.guard import AddressGuard, system_resolver  # noqa: E402

# Names the test resolver answers itself (no DNS): a private address and an allowed one.
TEST_NAMES = {"intranet.test": ["10.0.0.7"], "mixed.test": ["93.184.216.34", "192.168.1.9"]}

# grist's contract page, made hostile: scripts, handlers and a javascript: link that would each
# mark the inspector's page if they ran, plus one more navigation link and a footer link.
ARTICLE = "<!DOCTYPE html>" + (
    testing.ARTICLE
    .replace("</title>", "</title><script>window.pwned = 1; "
             "parent.document.body.dataset.pwned = 1; alert('boo')</script>")
    .replace("<body>", "<body onload=\"parent.document.body.dataset.pwned = 2\">")
    .replace("About</a></li>", "About us</a></li><li><a href=\"javascript:"
             "parent.document.body.dataset.pwned=3\">Contact</a></li>")
    .replace("<div id=footer>", "<img src=x onerror=\"parent.document.body.dataset.pwned = 4\">"
             "<div id=footer>")
    .replace("Terms</a>", "Terms</a> | <a href=/privacy>Privacy</a>")
)


def fake_resolver(host: str, port: int) -> list[str]:
    return TEST_NAMES.get(host) or system_resolver(host, port)


@contextlib.contextmanager
def running(app) -> Iterator[str]:
    """Serve ``app`` on a free port of 127.0.0.1 in a thread; yields its base URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    started = time.monotonic()
    while not server.started:
        if time.monotonic() - started > 60 or not thread.is_alive():
            raise RuntimeError("the test service did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


def send_article(handler: BaseHTTPRequestHandler) -> None:
    """Answer a test origin's request with ARTICLE, a UTF-8 HTML page."""
    body = ARTICLE.encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "text/html; charset=utf-8")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def metric_counts(service: str) -> dict[str, float]:
    """The service's metrics by name and labels (``grist_errors_total{reason="timeout"}``)."""
    text = httpx.get(service + "/metrics").text
    return {key: float(value) for key, value in re.findall(r"^(grist_\S+) (\S+)$", text, re.M)}


@pytest.fixture(scope="session")
def sites_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("sites")


@pytest.fixture(scope="session")
def service(sites_dir: Path) -> Iterator[str]:
    """The service as deployed by default (public addresses only), two workers, a small body cap
    and site models (the stand-in RepeatModel) in a temporary folder."""
    settings = ServiceSettings(workers=2, max_body=1_000_000, time_budget=8.0,
                               guard=AddressGuard(resolver=fake_resolver), sites_dir=sites_dir,
                               site_model="standin_model:RepeatModel")
    with running(create_app(settings)) as url:
        yield url
