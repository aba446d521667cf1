"""An HTTP server on 127.0.0.1 for fetch and CLI tests: one fixed route per behaviour tested."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

ARTICLE = (
    "<html><head><title>Café news</title></head><body>"
    "<h1>Café opens downtown</h1>"
    "<p>The new café serves crème brûlée and strong coffee every morning.</p>"
    "</body></html>"
)
BIG_BYTES = 300_000
USER_AGENTS: list[str] = []  # the User-Agent header of every request received

# path -> (status, content type, body); a None body streams BIG_BYTES without a length.
ROUTES: dict[str, tuple[int, str, bytes | None]] = {
    "/article.html": (200, "text/html; charset=iso-8859-1", ARTICLE.encode("latin-1")),
    "/utf8.html": (200, "text/html", ARTICLE.encode("utf-8")),
    "/missing": (404, "text/html", b"<p>not here</p>"),
    "/broken": (500, "text/html", b"<p>oops</p>"),
    "/image.png": (200, "image/png", b"\x89PNG\r\n\x1a\n" + b"\0" * 64),
    "/empty.html": (200, "text/html", b""),
    "/streamed.html": (200, "text/html", None),
}


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:  # keep test output clean
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        USER_AGENTS.append(self.headers.get("User-Agent", ""))
        if self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "/article.html")
            self.end_headers()
        elif self.path in ("/loop", "/badport"):
            self.send_response(302)
            self.send_header("Location", "/loop" if self.path == "/loop" else
                             "http://127.0.0.1:99999/article.html")
            self.end_headers()
        elif self.path == "/not-gzip.html":  # says gzip, is not
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", "14")
            self.end_headers()
            self.wfile.write(b"<p>not gzip</p>"[:14])
        elif self.path == "/slow.html":
            time.sleep(1.0)
            self._send(200, "text/html", ARTICLE.encode())
        elif self.path == "/declared-big.html":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(BIG_BYTES))
            self.end_headers()
        elif self.path in ROUTES:
            status, content_type, body = ROUTES[self.path]
            if body is None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.end_headers()
                for _ in range(BIG_BYTES // 1000):
                    self.wfile.write(b"<p>" + b"x" * 993 + b"</p>")
            else:
                self._send(status, content_type, body)
        else:
            self._send(404, "text/plain", b"no such route")

    def _send(self, status: int, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # clients that stop reading early (size cap, timeout) are expected


@pytest.fixture(scope="module")
def server() -> Iterator[ThreadingHTTPServer]:
    """A running server; ``base_url(server)`` is its address."""
    httpd = _Server(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def base_url(httpd: ThreadingHTTPServer) -> str:
    host, port = httpd.server_address[:2]
    return f"http://{host}:{port}"
