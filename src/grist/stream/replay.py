"""Stored pages for ``grist stream --replay``: JSON lines, WARC files and folders, in time or
file order.

JSON-lines records and WARC files are read through ``grist.io.sources`` (``html``, ``url``,
optional ``date``; an ``id`` is kept in the page's name; a WARC file's response records: URL,
WARC-Date and HTTP charset; the ``warc`` extra); a folder is read recursively: its
JSON-lines and WARC files, and its pages (``*.htm*``), whose URL comes from
``<link rel=canonical>`` or ``og:url``. Pages come out as ``grist.document.RawPage`` (``input``
names each one: ``file:line``, the WARC record id, or the path) and inputs that give no page as
``grist.io.sources.Unreadable``.

Time order sorts by date (pages without one keep their file order, after the dated ones); it
indexes the files first (dates and byte offsets), decompressing a ``.jsonl.gz`` file to a
temporary file, then reads the records in order.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from grist.document import RawPage
from grist.errors import ConfigError, CorruptInputError, DatasetError, GristError
from grist.io.dates import epoch_seconds
from grist.io.sources import PageOrError, Skipped, Source, Unreadable, container_kind, \
    cut_off, gzip_lines, json_object, json_records, read_capped, record_page
from grist.io.warc import read_record
from grist.limits import Limits

ORDERS = ("time", "file")


def _files(paths: Sequence[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(p for p in path.rglob("*") if p.is_file() and (
                container_kind(p) or p.suffix.lower() in (".html", ".htm")))
        elif path.is_file():
            found.append(path)
        else:
            raise ConfigError(f"no such file or folder to replay: {path}")
    return found


def _html_page(path: Path) -> PageOrError:
    """A stored page file, its URL read from the page itself."""
    from selectolax.lexbor import LexborHTMLParser

    try:
        content = read_capped(path, Limits())
    except GristError as exc:
        return Unreadable(str(path), exc)
    head = LexborHTMLParser(content[:200_000].decode("utf-8", "replace"))
    for selector, attribute in (("link[rel=canonical]", "href"),
                                ("meta[property='og:url']", "content")):
        node = head.css_first(selector)
        if node is not None and (node.attributes.get(attribute) or "").startswith("http"):
            return RawPage(content, url=node.attributes[attribute], input=str(path))
    return Unreadable(str(path), DatasetError(
        "the page names no URL (<link rel=canonical> or og:url); replay it from JSON lines "
        "with a 'url' field"))


def _with_url(page: PageOrError) -> PageOrError:
    if isinstance(page, RawPage) and not page.url:
        return Unreadable(page.input, DatasetError(
            "the record has no 'url' (the URL Tree places pages by their URL)"))
    return page


def _warc(path: Path) -> Iterator[tuple[int | None, PageOrError]]:
    """A WARC file's pages (with a URL) and errors, each with its record's offset."""
    for offset, page in Source("warc", str(path), path.name, str(path)).records():
        if not isinstance(page, Skipped):
            yield offset, _with_url(page)


def file_order(paths: Sequence[Path]) -> Iterator[PageOrError]:
    for path in _files(paths):
        kind = container_kind(path)
        if kind == "warc":
            yield from (page for _, page in _warc(path))
            continue
        if kind is None:
            yield _html_page(path)
            continue
        for label, record in json_records(str(path)):
            if isinstance(record, GristError):
                yield Unreadable(label, record)
            else:
                yield _with_url(record_page(label, record))


def _lines(path: Path) -> Iterator[tuple[int, int, bytes]]:
    """(line number, byte offset, line) of an uncompressed JSON-lines file."""
    with open(path, "rb") as handle:
        offset = 0
        for number, line in enumerate(handle, start=1):
            if line.strip():
                yield number, offset, line
            offset += len(line)


def _decompress(path: Path, target: Path) -> Unreadable | None:
    """``path`` (gzip JSON lines) decompressed into ``target``, its whole lines; the error that
    stands for the rest when it is cut off or damaged."""
    lines = 0
    with open(path, "rb") as source, open(target, "wb") as out:
        try:
            for line in gzip_lines(source):
                out.write(line)
                lines += 1
        except CorruptInputError as exc:
            return Unreadable(*cut_off(str(path), lines, exc))
    return None


def _again(path: Path, offset: int) -> PageOrError:
    page = read_record(path, offset).entry()
    if isinstance(page, Skipped):
        return Unreadable(page.input, GristError("the record is not a page"))
    return _with_url(page)


def _moment(page: PageOrError) -> float:
    moment = epoch_seconds(page.date) if isinstance(page, RawPage) else None
    return float("inf") if moment is None else moment


def _date_of(line: bytes) -> float:
    record = json_object(line)
    date = record.get("date") if isinstance(record, dict) else None
    moment = epoch_seconds(date) if isinstance(date, str) else None
    return float("inf") if moment is None else moment


def _parse(line: bytes, label: str) -> PageOrError:
    record = json_object(line)
    if isinstance(record, DatasetError):
        return Unreadable(label, record)
    return _with_url(record_page(label, record))


def time_order(paths: Sequence[Path]) -> Iterator[PageOrError]:
    with tempfile.TemporaryDirectory(prefix="grist-replay-") as scratch:
        index: list[tuple[float, int, Path, int | None, str | PageOrError]] = []
        for path in _files(paths):
            kind = container_kind(path)
            if kind == "warc":
                for offset, page in _warc(path):  # a page is read again later, an error kept
                    # (and a page of a file compressed as one gzip stream: it has no offset)
                    at = None if offset is None or isinstance(page, Unreadable) else -1 - offset
                    index.append((_moment(page), len(index), path, at,
                                  page if at is None else page.input))
                continue
            if kind is None:
                index.append((float("inf"), len(index), path, None, str(path)))
                continue
            readable, damage = path, None
            if path.suffix == ".gz":
                readable = Path(scratch) / f"{len(index)}.jsonl"
                damage = _decompress(path, readable)
            for number, offset, line in _lines(readable):
                index.append((_date_of(line), len(index), readable, offset, f"{path}:{number}"))
            if damage is not None:
                index.append((float("inf"), len(index), path, None, damage))
        index.sort()
        handles: dict[Path, object] = {}
        try:
            for _, _, path, offset, label in index:
                if not isinstance(label, str):
                    yield label
                    continue
                if offset is None:
                    yield _html_page(path)
                    continue
                if offset < 0:  # a WARC record, at offset -1 - offset
                    yield _again(path, -1 - offset)
                    continue
                handle = handles.get(path) or handles.setdefault(path, open(path, "rb"))  # noqa: SIM115
                handle.seek(offset)  # type: ignore[attr-defined]
                yield _parse(handle.readline(), label)  # type: ignore[attr-defined]
        finally:
            for handle in handles.values():
                handle.close()  # type: ignore[attr-defined]


def replay_pages(paths: Sequence[str | Path], order: str = "time") -> Iterator[PageOrError]:
    """The stored pages of ``paths`` in ``order`` (``time`` or ``file``)."""
    if order not in ORDERS:
        raise ConfigError(f"unknown replay order {order!r}; choose time or file")
    chosen = [Path(p) for p in paths]
    return time_order(chosen) if order == "time" else file_order(chosen)
