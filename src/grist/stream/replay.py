"""Stored pages for ``grist stream --replay``: JSON-lines files and folders, in time or file order.

A JSON-lines record holds ``html`` and ``url`` and optionally ``date`` (ISO 8601) and ``title``;
a folder is read recursively: its ``*.jsonl``/``*.jsonl.gz`` files as above and its ``*.html``
pages (their URL from ``<link rel=canonical>`` or ``og:url``). Pages come out as
``grist.document.RawPage`` (``input`` names each one: ``file:line`` or the path), so any other
source of RawPages (WARC, once ``grist.io`` has it) plugs into the same pipeline. A record that
cannot be used comes out as ``Unusable`` with the reason, so it gets an error record.

Time order sorts by date (pages without one keep their file order, after the dated ones);
it reads the pages twice (dates first), decompressing a ``.gz`` file to a temporary file.
"""

from __future__ import annotations

import gzip
import json
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from grist.document import RawPage
from grist.errors import ConfigError
from grist.stream.urltree import parse_date

ORDERS = ("time", "file")


@dataclass(frozen=True)
class Unusable:
    """A stored record that is not a page (bad JSON, no html or url)."""

    input: str
    reason: str


Replayed = RawPage | Unusable


def _files(paths: Sequence[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(p for p in path.rglob("*") if p.is_file() and (
                p.name.endswith((".jsonl", ".jsonl.gz")) or p.suffix in (".html", ".htm")))
        elif path.is_file():
            found.append(path)
        else:
            raise ConfigError(f"no such file or folder to replay: {path}")
    return found


def _record(line: bytes, name: str) -> Replayed:
    try:
        record = json.loads(line)
    except ValueError as exc:
        return Unusable(name, f"not a JSON object: {exc}")
    if not isinstance(record, dict) or not isinstance(record.get("html"), str):
        return Unusable(name, "the record has no 'html' text")
    if not isinstance(record.get("url"), str) or not record["url"]:
        return Unusable(name, "the record has no 'url' (the URL Tree places pages by URL)")
    date = record.get("date")
    return RawPage(record["html"], url=record["url"], input=name,
                   date=date if isinstance(date, str) else None)


def _html_page(path: Path) -> Replayed:
    from selectolax.lexbor import LexborHTMLParser

    content = path.read_bytes()
    head = LexborHTMLParser(content[:200_000].decode("utf-8", "replace"))
    for selector, attribute in (("link[rel=canonical]", "href"),
                                ("meta[property='og:url']", "content")):
        node = head.css_first(selector)
        if node is not None and (node.attributes.get(attribute) or "").startswith("http"):
            return RawPage(content, url=node.attributes[attribute], input=str(path))
    return Unusable(str(path), "the page names no URL (<link rel=canonical> or og:url); "
                    "replay it from JSON lines with a 'url' field")


def _lines(path: Path) -> Iterator[tuple[int, int, bytes]]:
    """(line number, byte offset, line) of a JSON-lines file."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as handle:
        offset = 0
        for number, line in enumerate(handle, start=1):
            if line.strip():
                yield number, offset, line
            offset += len(line)


def file_order(paths: Sequence[Path]) -> Iterator[Replayed]:
    for path in _files(paths):
        if path.suffix in (".html", ".htm"):
            yield _html_page(path)
            continue
        for number, _, line in _lines(path):
            yield _record(line, f"{path}:{number}")


def time_order(paths: Sequence[Path]) -> Iterator[Replayed]:
    with tempfile.TemporaryDirectory(prefix="grist-replay-") as scratch:
        index: list[tuple[float, int, Path, int | None, str]] = []
        readable: dict[Path, Path] = {}
        for path in _files(paths):
            if path.suffix in (".html", ".htm"):
                index.append((float("inf"), len(index), path, None, str(path)))
                continue
            if path.suffix == ".gz":
                readable[path] = Path(scratch) / f"{len(readable)}.jsonl"
                with gzip.open(path, "rb") as src, open(readable[path], "wb") as dst:
                    shutil.copyfileobj(src, dst)
            for number, offset, line in _lines(readable.get(path, path)):
                date = _date_of(line)
                index.append((date, len(index), readable.get(path, path), offset,
                              f"{path}:{number}"))
        index.sort()
        for _, _, path, offset, name in index:
            if offset is None:
                yield _html_page(path)
                continue
            with open(path, "rb") as handle:
                handle.seek(offset)
                yield _record(handle.readline(), name)


def _date_of(line: bytes) -> float:
    try:
        date = json.loads(line).get("date")
    except (ValueError, AttributeError):
        return float("inf")
    moment = parse_date(date) if isinstance(date, str) else None
    return float("inf") if moment is None else moment


def replay_pages(paths: Sequence[str | Path], order: str = "time") -> Iterator[Replayed]:
    """The stored pages of ``paths`` in ``order`` (``time`` or ``file``)."""
    if order not in ORDERS:
        raise ConfigError(f"unknown replay order {order!r}; choose time or file")
    chosen = [Path(p) for p in paths]
    return time_order(chosen) if order == "time" else file_order(chosen)
