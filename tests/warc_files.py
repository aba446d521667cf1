"""WARC files written byte by byte for the tests (per-record gzip members, as crawlers write them),
so the reader is tested against the format, not against the library that reads it."""

from __future__ import annotations

import gzip
from pathlib import Path


def page_html(number: int, words: str = "") -> str:
    """A small article page: a nav bar of links and two paragraphs of content."""
    return (f"<html><head><title>Page {number}</title></head><body><nav><a href='/'>Home</a> "
            f"<a href='/n'>News</a></nav><h1>Article number {number}</h1><p>This is the text "
            f"of article {number}, written with enough words to count as main content. {words}"
            f"</p><p>A second paragraph of article {number} follows with more words.</p></body>"
            "</html>")


def http_response(body: bytes, content_type: str = "text/html; charset=utf-8",
                  extra: str = "") -> bytes:
    return (f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n{extra}"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


def warc_record(kind: str, number: int, block: bytes, url: str | None = None,
                content_type: str = "application/http; msgtype=response",
                length: int | None = None) -> bytes:
    """One WARC/1.1 record; ``length`` overrides the Content-Length (to damage it)."""
    headers = [f"WARC-Type: {kind}",
               f"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{number:012d}>",
               "WARC-Date: 2024-05-06T07:08:09Z", f"Content-Type: {content_type}",
               f"Content-Length: {len(block) if length is None else length}"]
    if url:
        headers.insert(1, f"WARC-Target-URI: {url}")
    return ("WARC/1.1\r\n" + "\r\n".join(headers) + "\r\n\r\n").encode() + block + b"\r\n\r\n"


def response(number: int, html: str | bytes | None = None, **http: str) -> bytes:
    """A response record of page ``number`` at https://site{number % 3}.example/{number}."""
    body = html if isinstance(html, bytes) else (html or page_html(number)).encode("utf-8")
    return warc_record("response", number, http_response(body, **http),
                       url=f"https://site{number % 3}.example/{number}")


def write_warc(path: Path, records: list[bytes], compress: bool = True) -> list[int]:
    """Write the records (each its own gzip member when ``compress``); returns their offsets."""
    offsets, data = [], b""
    for record in records:
        offsets.append(len(data))
        data += gzip.compress(record, mtime=0) if compress else record
    path.write_bytes(data)
    return offsets
