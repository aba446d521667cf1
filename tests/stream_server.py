"""A feed-and-page server on 127.0.0.1 for the stream tests: feeds (RSS, Atom, JSON Feed, broken),
a home page announcing a feed, articles on two templates, redirects, and pages that misbehave
(hang, garbage, 500, too large, redirect loop, not HTML, disallowed by robots.txt)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

WORDS = ("harbour ferry river mill market council school bridge storm harvest festival railway "
         "library museum garden tower square island valley forest").split()


def article(number: int, template: str = "A") -> bytes:
    """An article page: a template (nav, sidebar, footer) around a story unique to ``number``."""
    words = [WORDS[(number * 7 + i * 3) % len(WORDS)] for i in range(60)]
    story = " ".join(words[:30]).capitalize() + f" number {number}. " + " ".join(words[30:]) + "."
    nav = {"A": ["Home", "World", "Business", "Sport"],
           "B": ["Front page", "Nation", "Markets", "Culture", "Weather"]}[template]
    footer = {"A": "Copyright The Daily Example. All rights reserved.",
              "B": "The Evening Example, published by Example Media since 1901."}[template]
    return (f"<html><head><title>Story {number}</title></head><body><nav><ul>"
            + "".join(f"<li><a href='/{n.lower()}'>{n}</a></li>" for n in nav)
            + f"</ul></nav><article><h1>Headline of story {number} about the {words[0]}</h1>"
            f"<p>{story}</p><p>A second paragraph of story {number} tells what the {words[5]} "
            f"and the {words[9]} meant for the town, in several long sentences.</p></article>"
            f"<aside><p>Subscribe to our newsletter for {template} readers</p></aside>"
            f"<footer><p>{footer}</p></footer></body></html>").encode()


@dataclass
class Site:
    """What the server serves; tests change it between runs (new items, a new template)."""

    base: str = ""
    items: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)  # feed -> entries
    templates: dict[int, str] = field(default_factory=dict)  # article number -> template
    requests: list[tuple[float, str, dict[str, str]]] = field(default_factory=list)
    not_modified: int = 0

    def rss(self, name: str) -> bytes:
        entries = "".join(
            f"<item><title>{title}</title><link>{link}</link><description>{text}</description>"
            f"<pubDate>{formatdate(1_600_000_000 + i * 3600, usegmt=True)}</pubDate></item>"
            for i, (title, link, text) in enumerate(self.items.get(name, [])))
        return (f'<?xml version="1.0"?><rss version="2.0"><channel><title>{name}</title>'
                f"{entries}</channel></rss>").encode()

    def atom(self, name: str) -> bytes:
        entries = "".join(
            f"<entry><title>{title}</title><link href='{link}'/><summary>{text}</summary>"
            f"<updated>2020-09-13T{10 + i % 10}:00:00Z</updated><id>{link}</id></entry>"
            for i, (title, link, text) in enumerate(self.items.get(name, [])))
        return ('<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">'
                f"<title>{name}</title>{entries}</feed>").encode()

    def json_feed(self, name: str) -> bytes:
        return json.dumps({"version": "https://jsonfeed.org/version/1.1", "title": name, "items": [
            {"id": link, "url": link, "title": title, "summary": text,
             "date_published": f"2020-09-13T{10 + i % 10}:00:00+02:00"}
            for i, (title, link, text) in enumerate(self.items.get(name, []))]}).encode()


SITE = Site()


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        SITE.requests.append((time.monotonic(), self.path, dict(self.headers)))
        path = self.path
        if path == "/robots.txt":
            return self._send(200, "text/plain", b"User-agent: *\nDisallow: /private/\n")
        if path.startswith("/feeds/"):
            return self._feed(path[len("/feeds/"):])
        if path == "/home.html":
            return self._send(200, "text/html", b"<html><head><link rel='alternate' "
                              b"type='application/rss+xml' href='/feeds/found.xml'></head>"
                              b"<body><p>Welcome</p></body></html>")
        if path.startswith("/go/"):  # an aggregator's redirect to the article
            return self._redirect(f"/articles/{path[4:]}.html")
        if path == "/loop":
            return self._redirect("/loop")
        if path == "/badport":
            return self._redirect("http://127.0.0.1:99999/a.html")
        if path == "/hang.html":
            time.sleep(3)
            return self._send(200, "text/html", article(999))
        if path == "/garbage.html":  # compressed twice: the body is gzip data, not a page
            return self._send(200, "text/html", b"\x1f\x8b\x08\x00" + bytes(range(256)) * 20)
        if path == "/error500.html":
            return self._send(500, "text/html", b"<p>oops</p>")
        if path == "/big.html":
            return self._send(200, "text/html", b"<p>" + b"x" * 300_000 + b"</p>")
        if path == "/notes.txt":
            return self._send(200, "text/plain", b"just some notes")
        if path.startswith("/articles/"):
            number = int(path.split("/")[2].split(".")[0])
            return self._send(200, "text/html; charset=utf-8",
                              article(number, SITE.templates.get(number, "A")))
        return self._send(404, "text/plain", b"no such page")

    def _feed(self, name: str) -> None:
        if name == "notxml.xml":
            return self._send(200, "application/rss+xml", b"this is not XML at all {]")
        if name == "hostile.xml":  # feedparser itself raises on this encoding declaration
            return self._send(200, "application/rss+xml",
                              b'<?xml version="1.0" encoding="\xff\xfe"?><rss version="2.0">'
                              b"<channel><item><link>/articles/1.html</link></item></channel></rss>")
        if name.endswith(".json"):
            return self._send(200, "application/feed+json", SITE.json_feed(name))
        body = SITE.atom(name) if name.endswith(".atom") else SITE.rss(name)
        etag = f'"{hash(body) & 0xFFFFFFFF:x}"'
        if self.headers.get("If-None-Match") == etag:
            SITE.not_modified += 1
            self.send_response(304)
            self.send_header("ETag", etag)
            self.end_headers()
            return None
        return self._send(200, "application/rss+xml", body, {"ETag": etag})

    def _redirect(self, location: str) -> None:
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _send(self, status: int, kind: str, body: bytes, headers: dict | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        pass


@pytest.fixture
def site() -> Iterator[Site]:
    """A fresh site served on 127.0.0.1 (``site.base`` is its address)."""
    global SITE
    SITE = Site()
    httpd = _Server(("127.0.0.1", 0), _Handler)
    host, port = httpd.server_address[:2]
    SITE.base = f"http://{host}:{port}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield SITE
    httpd.shutdown()
    httpd.server_close()
