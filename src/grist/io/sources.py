"""Where pages come from: files, folders, stdin, URLs, JSON-lines and WARC files, read as RawPages.

``expand(inputs)`` turns what a user typed into ``Source``s without reading them (a folder of a
million files costs a directory walk, not a million reads); ``Source.pages()`` then yields a
``RawPage`` per page, an ``Unreadable`` record naming the input and the reason, or, for a file
found in a folder that is not an HTML page, a ``Skipped`` record saying why, so that a caller can
report every input exactly once and go on. ``Source.records()`` gives the same with each one's
offset in its input, and a WARC file's records that hold no page as Skipped too (a batch records
the one and counts the other; ``grist.io.warc`` reads the records). gzip-compressed files are
decompressed whatever their name (one whose gzip data is damaged is an Unreadable, never a
Skipped, wherever the damage is); ``read_list`` reads a file of inputs (``-i``). Every command
that reads pages (``extract``, ``dedup``, ``templates``, ``inspect``, ``stream --replay``,
``batch``) reads them through here.
"""

from __future__ import annotations

import io
import re
from json import JSONDecodeError
import sys
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, BinaryIO

from grist.document import RawPage
from grist.errors import CorruptInputError, DatasetError, GristError, LimitExceededError, \
    UnreadableInputError
from grist.html.decode import sniff_binary
from grist.html.load import without_surrogates
from grist.io import is_url
from grist.io.content_encoding import GZIP_MAGIC
from grist.io.fetch import FetchConfig, fetch
from grist.io.json_text import loads
from grist.limits import Limits

JSON_LINES_SUFFIXES = (".jsonl", ".ndjson")
WARC_SUFFIXES = (".warc", ".warc.gz")
ARC_SUFFIXES = (".arc", ".arc.gz")
_ARC_START = b"filedesc://"  # the first line of every ARC file
_SNIFF_BYTES = 4096
_GZIP_READ = 1 << 16  # compressed bytes read at a time
_GZIP_OUT = 1 << 20  # at most this much decompressed per call (a small bomb stays small)
_READ_BYTES = 1 << 20  # bytes of a plain file read at a time when splitting it into lines
_GZIP_SALVAGE = 256  # compressed bytes fed at a time when finding where damage starts
# Tags whose presence near the start of a file says it is an HTML page (or a fragment of one).
_HTML_MARKERS = (b"<!doctype html", b"<html", b"<head", b"<body", b"<title", b"<meta", b"<div",
                 b"<p>", b"<p ", b"<table", b"<article", b"<section", b"<h1", b"<h2", b"<ul",
                 b"<span", b"<a href", b"<br", b"<script", b"<link", b"<main", b"<header")
# How XML that is not XHTML starts (its declaration; a feed's or a sitemap's root element).
_XML_STARTS = (b"<?xml", b"<rss", b"<feed", b"<urlset", b"<sitemapindex", b"<rdf:rdf")
# Comments and white space at the start of a page, passed over when sniffing (within 64 KiB).
_OPENING_COMMENTS = re.compile(rb"(?:\s|<!--.*?-->)+", re.S)
_SKIPPED_OPENING = 1 << 16
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:/")  # ftp://... (a Path keeps one slash)
_UNSAFE = str.maketrans({c: "_" for c in ':/?&=#%*"<>|\\ '})


@dataclass(frozen=True)
class Unreadable:
    """An input that gave no page: which one, the grist error saying why, and the url and date
    its source gave it (a JSON line with no html may name them, a WARC record names them)."""

    input: str
    error: GristError
    url: str | None = None
    date: str | None = None


@dataclass(frozen=True)
class Skipped:
    """An input that holds no page: a file in a folder that is not an HTML page (an image, a
    stylesheet, an empty file), or a WARC record of a type that holds none (``record_type``:
    request, metadata, warcinfo, ...; only ``Source.records`` gives those, for a batch to count)."""

    input: str
    reason: str
    record_type: str | None = None


PageOrError = RawPage | Unreadable | Skipped


def not_html_reason(data: bytes) -> str | None:
    """Why ``data`` (a file's first bytes, decompressed) is not an HTML page; None when it is."""
    if not data.strip():
        return "empty file"
    binary = sniff_binary(data)
    if binary:
        return f"not HTML: it looks like {binary}"
    head = _sniffed_head(data)
    if head.startswith(_XML_STARTS) and b"<html" not in head:  # (a feed has <title>s too)
        return "not HTML: XML with no <html> element, as a feed or a sitemap is"
    if any(marker in head for marker in _HTML_MARKERS):
        return None
    return f"not HTML: no HTML tag in its first {_SNIFF_BYTES // 1024} KiB"


def _sniffed_head(data: bytes) -> bytes:
    """The first ``_SNIFF_BYTES`` of a page's text, lower-cased, where tags are looked for: a
    UTF-16 page (by its byte-order mark, as browsers sniff) read as text, and the comments and
    white space it opens with passed over (a licence header can fill the first KiBs)."""
    for bom, codec in ((b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        if data.startswith(bom):
            data = data[:_SKIPPED_OPENING + _SNIFF_BYTES].decode(codec, "replace").encode()
    opening = _OPENING_COMMENTS.match(data, 0, _SKIPPED_OPENING)
    start = opening.end() if opening else 0
    return data[start:start + _SNIFF_BYTES].lower()


def gunzip(data: bytes, limits: Limits) -> bytes:
    """``data`` decompressed when it is gzip (whatever the file's name), within the size cap;
    damaged or cut-off gzip data is a CorruptInputError (``gzip_chunks``)."""
    if not data.startswith(GZIP_MAGIC):
        return data
    out, size = [], 0
    for chunk in gzip_chunks(io.BytesIO(data)):
        size += len(chunk)
        if size > limits.max_bytes:
            raise _too_large(limits)
        out.append(chunk)
    return b"".join(out)


def gzip_head(data: bytes, size: int) -> bytes:
    """The first ``size`` bytes that gzip ``data`` (its start will do) decompresses to, as far as
    it goes; b"" when not even they can be read."""
    try:
        return zlib.decompressobj(31).decompress(data, size)
    except zlib.error:
        return b""


def gzip_chunks(handle: BinaryIO) -> Iterator[bytes]:
    """The bytes a gzip stream (one member or many) decompresses to, a piece at a time; at a cut
    or damage, CorruptInputError after every byte before it (at damage, the ``gzip`` module drops
    what its last read had decompressed)."""
    inflater, started = zlib.decompressobj(31), False
    while data := handle.read(_GZIP_READ):
        pending = False
        while data or pending:  # pending: the last call filled its output, so more may wait
            if not started:
                data = data.lstrip(b"\0")  # zero padding between or after members
                if not data:
                    break
                started = True
            saved = inflater.copy()
            try:
                out = inflater.decompress(data, _GZIP_OUT)
            except zlib.error as exc:
                yield from _up_to_damage(saved, data)
                raise CorruptInputError(f"the gzip data is damaged ({exc})") from None
            if out:
                yield out
            data, pending = inflater.unconsumed_tail, len(out) == _GZIP_OUT
            if inflater.eof:
                data, inflater, started = inflater.unused_data, zlib.decompressobj(31), False
                pending = False
    if started:
        raise CorruptInputError("the gzip data is cut off")


def _up_to_damage(inflater: Any, data: bytes) -> Iterator[bytes]:
    """What ``data`` decompresses to before the byte ``inflater`` fails on (a piece at a time,
    then a byte at a time through the piece that fails)."""
    start, step = 0, _GZIP_SALVAGE
    while start < len(data):
        saved = inflater.copy()
        try:
            out = inflater.decompress(data[start:start + step])
        except zlib.error:
            if step == 1:
                return
            inflater, step = saved, 1
            continue
        if out:
            yield out
        start += step


def gzip_lines(handle: BinaryIO, cap: int | None = None) -> Iterator[bytes | None]:
    """The whole lines of gzip-compressed text (``split_lines``); a last line cut off by damage
    is not given (CorruptInputError follows the lines before it)."""
    return split_lines(gzip_chunks(handle), cap)


def plain_lines(handle: BinaryIO, cap: int | None = None) -> Iterator[bytes | None]:
    """The lines of a file (``split_lines``), read a MiB at a time."""
    return split_lines(iter(partial(handle.read, _READ_BYTES), b""), cap)


def split_lines(chunks: Iterable[bytes], cap: int | None = None) -> Iterator[bytes | None]:
    """The lines of text given in ``chunks``, each with its ``\\n`` (the last one may lack
    it). With a ``cap``, a line longer than ``cap`` bytes is None, and no more than ``cap``
    bytes of it are held: its pieces are dropped as they come."""
    parts: list[bytes] = []
    size, too_long = 0, False
    for chunk in chunks:
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            parts.append(chunk[start:end + 1])
            size += end + 1 - start
            yield None if too_long or (cap is not None and size > cap) else b"".join(parts)
            parts, start, size, too_long = [], end + 1, 0, False
        parts.append(chunk[start:])
        size += len(chunk) - start
        if cap is not None and size > cap:
            parts, size, too_long = [], 0, True
    if too_long:
        yield None
    elif any(parts):
        yield b"".join(parts)


def cut_off(location: str, lines: int, exc: GristError) -> tuple[str, DatasetError]:
    """The label and error standing for the rest of a JSON-lines file read to line ``lines``."""
    return f"{location}:{lines + 1}", DatasetError(
        f"cannot read {location} past line {lines}: {exc}")


def read_list(location: str) -> list[str]:
    """The inputs listed in a file (``-``: stdin), one per line; blank lines and lines starting
    with ``#`` are ignored."""
    try:
        text = sys.stdin.read() if location == "-" else Path(location).read_text(
            encoding="utf-8", errors="replace")
    except OSError as exc:
        raise GristError(f"cannot read the input list {location}: {exc.strerror or exc}") from None
    items = [line.strip() for line in text.splitlines()]
    return [item for item in items if item and not item.startswith("#")]


def _stdin_head() -> bytes:
    """The first bytes waiting on stdin, left there (b"" when stdin cannot be read ahead)."""
    peek = getattr(getattr(sys.stdin, "buffer", None), "peek", None)
    if peek is None:
        return b""
    try:
        return peek(_SNIFF_BYTES)[:_SNIFF_BYTES]
    except (OSError, ValueError):  # closed, or not readable
        return b""


def stdin_holds_json_lines() -> bool:
    """Whether stdin starts like JSON lines, gzip-compressed or not (``{`` after any
    whitespace), rather than like a page; nothing is consumed."""
    head = _stdin_head()
    if head.startswith(GZIP_MAGIC):
        head = gzip_head(head, _SNIFF_BYTES)
    return head.lstrip().startswith(b"{")


def is_json_lines(path: str | Path) -> bool:
    """Whether a file name says JSON lines (``.jsonl``, ``.ndjson``, optionally ``.gz``)."""
    name = str(path).lower().removesuffix(".gz")
    return name.endswith(JSON_LINES_SUFFIXES)


def container_kind(path: str | Path) -> str | None:
    """The source kind a file name says holds many pages: ``jsonl`` (``is_json_lines``),
    ``warc`` (``.warc``, ``.warc.gz``); None for a page."""
    if is_json_lines(path):
        return "jsonl"
    return "warc" if str(path).lower().endswith(WARC_SUFFIXES) else None


def line_cap(limits: Limits) -> int:
    """The longest JSON line read: one holding a page at the size cap with every character
    escaped (``\\u0000`` is 6 bytes for 1), and room for the other fields."""
    return 6 * limits.max_bytes + (1 << 20)


def json_records(location: str, cap: int | None = None
                 ) -> Iterator[tuple[str, dict[str, Any] | GristError]]:
    """``(label, record)`` for every non-empty line of a JSON-lines file (``-``: stdin, gzip
    sniffed), the label being ``FILE:LINE`` (``<stdin>:LINE``); a line that is not a JSON
    object gives a DatasetError in its place, and so does the rest of a file that cannot be read
    to its end (a cut-off or corrupt .gz: the lines before it are given, and the caller goes on
    with its other inputs). A file that cannot be opened at all raises DatasetError. A line
    longer than ``cap`` bytes (default: ``line_cap`` of the default Limits) is a
    LimitExceededError, read past in pieces of at most ``cap`` bytes."""
    cap = cap or line_cap(Limits())
    if location == "-":  # (a stdin of text alone, as tests make, is read whole)
        handle: Any = getattr(sys.stdin, "buffer", None) or io.BytesIO(
            sys.stdin.read().encode("utf-8", "surrogateescape"))
        gzipped = _stdin_head().startswith(GZIP_MAGIC)
    else:
        try:
            handle = open(location, "rb")  # noqa: SIM115 - closed below
        except OSError as exc:
            raise DatasetError(f"cannot read {location}: {exc.strerror or exc}") from None
        gzipped = handle.peek(2)[:2] == GZIP_MAGIC  # (by its bytes: a name can be wrong)
    lines = gzip_lines(handle, cap) if gzipped else plain_lines(handle, cap)
    name = "<stdin>" if location == "-" else location
    number = 0
    try:
        for number, line in enumerate(lines, 1):
            if line is None:
                yield f"{name}:{number}", LimitExceededError(
                    f"the line is longer than {cap / 1048576:.0f} MiB, more than a page under "
                    "the size cap needs (Limits.max_bytes)")
            elif line.strip():
                yield f"{name}:{number}", json_object(line)
    except (OSError, CorruptInputError) as exc:  # a truncated or corrupt .gz, a failing disk
        yield cut_off(name, number, exc if isinstance(exc, GristError) else
                      CorruptInputError(exc.strerror or str(exc)))
    finally:
        if location != "-":
            handle.close()


def json_object(line: str | bytes) -> dict[str, Any] | DatasetError:
    """A JSON-lines record, or the DatasetError saying why the line is not one. Its strings are
    what page text is: bytes read as UTF-8 with a bad sequence replaced, and a lone surrogate (a
    ``\\ud800`` escape, which no UTF-8 writer takes) replaced too."""
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    try:
        record = loads(text.removeprefix("\ufeff"))  # (a byte-order mark opening the file)
    except ValueError as exc:
        return DatasetError(f"the line is not JSON ({_json_problem(exc)})")
    if not isinstance(record, dict):
        return DatasetError("the line is not a JSON object")
    return _without_surrogates(record)


def _json_problem(exc: ValueError) -> str:
    """What the JSON parser found wrong, and where on the line."""
    if not isinstance(exc, JSONDecodeError):
        return str(exc)
    problem = exc.msg.removesuffix(" at")
    if problem == "Invalid control character":  # (the line holds a raw tab or line break)
        problem = "a control character inside a string: a tab or line break must be \\t or \\n"
    return f"{problem}, at character {exc.colno}"


def _without_surrogates(value: Any) -> Any:
    """``value`` (a parsed JSON value) with lone surrogates replaced in every string in it."""
    if isinstance(value, str):
        return without_surrogates(value)
    if isinstance(value, dict):
        return {_without_surrogates(k): _without_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_surrogates(v) for v in value]
    return value


def record_page(label: str, record: dict[str, Any]) -> PageOrError:
    """The page of a JSON-lines record: its ``html`` (and ``url``, ``date`` when present)."""
    html = record.get("html")
    url, name, date = (_text_field(record, field) for field in ("url", "id", "date"))
    if not isinstance(html, str):
        return Unreadable(label, DatasetError("the record has no 'html' string field"), url, date)
    name = name or _text_field(record, "input")
    return RawPage(html, url=url, input=f"{label} ({name})" if name else label, date=date)


def _text_field(record: dict[str, Any], field: str) -> str | None:
    """A string field of a record; None when absent, empty or not a string."""
    value = record.get(field)
    return value if isinstance(value, str) and value else None


def read_capped(path: Path | None, limits: Limits) -> bytes:
    """A file's (or stdin's, for None) bytes, refusing more than the size cap before reading."""
    try:
        if path is None:
            data = sys.stdin.buffer.read(limits.max_bytes + 1)
        elif path.stat().st_size > limits.max_bytes:
            raise _too_large(limits)
        else:
            data = path.read_bytes()
    except OSError as exc:
        if path is not None and names_a_scheme(str(path)) and not path.exists():
            raise UnreadableInputError("not a file, and not an http(s) URL (grist fetches "
                                       "http and https only)") from None
        raise UnreadableInputError(exc.strerror or str(exc)) from None
    if len(data) > limits.max_bytes:
        raise _too_large(limits)
    return data


def names_a_scheme(text: str) -> bool:
    """Whether an input starts like a URL (``ftp://...``): one grist does not fetch is said to be
    so, not looked for as a file of that name."""
    return _SCHEME.match(text) is not None


def read_page_file(path: Path | None, limits: Limits) -> bytes:
    """A page file's (or stdin's, for None) bytes, decompressed when they are gzip, within the
    size cap."""
    return gunzip(read_capped(path, limits), limits)


def _too_large(limits: Limits) -> LimitExceededError:
    return LimitExceededError(
        f"the page is larger than {limits.max_bytes / 1048576:.1f} MiB (Limits.max_bytes)"
    )


@dataclass(frozen=True)
class Source:
    """One input: ``kind`` is ``file``, ``stdin``, ``url``, ``jsonl`` or ``warc``; ``input``
    names it in outputs and errors; ``name`` is the stem of its output file; ``location`` its
    path or URL."""

    kind: str
    input: str
    name: str
    location: str = ""
    sniff: bool = False  # found in a folder: skipped unless it is an HTML page

    @property
    def holds_many(self) -> bool:
        """Whether the input can hold several pages (JSON lines, WARC): none are counted ahead."""
        return self.kind in ("jsonl", "warc")

    def pages(self, limits: Limits | None = None,
              fetch_config: FetchConfig | None = None) -> Iterator[PageOrError]:
        """The input's pages (one, or one per JSON line or WARC record that holds a page), each
        a RawPage, an Unreadable or, for a folder's file that is not a page, a Skipped."""
        return (page for _, page in self.records(limits, fetch_config)
                if not (isinstance(page, Skipped) and page.record_type))

    def records(self, limits: Limits | None = None, fetch_config: FetchConfig | None = None
                ) -> Iterator[tuple[int | None, PageOrError]]:
        """``pages()`` with where each starts in the input (a WARC record's byte offset; None
        for other inputs and in a WARC file compressed as one gzip stream), and a WARC file's
        records that hold no page as Skipped (``record_type`` set): all a batch accounts for."""
        limits = limits or Limits()
        if self.kind == "warc":
            from grist.io.warc import warc_records  # (it reads gzip with this module's helpers)

            return warc_records(self.input, self.location, limits)
        return ((None, page) for page in self._read(limits, fetch_config))

    def _read(self, limits: Limits, fetch_config: FetchConfig | None) -> Iterator[PageOrError]:
        """The pages of an input that is not a WARC file."""
        if self.kind == "jsonl":
            for label, record in json_records(self.location, line_cap(limits)):
                if isinstance(record, GristError):
                    yield Unreadable(label, record)
                else:
                    yield record_page(label, record)
            return
        if self.kind == "file" and self.location.lower().endswith(ARC_SUFFIXES):
            yield Unreadable(self.input, _arc_refused())
            return
        try:
            if self.kind == "url":
                page = fetch(self.location, fetch_config)
                yield RawPage(page.content, url=page.url, input=self.input,
                              http_charset=page.charset)
                return
            path = None if self.kind == "stdin" else Path(self.location)
            data = read_page_file(path, limits)
            if data.startswith(_ARC_START):  # an ARC file by another name
                yield Unreadable(self.input, _arc_refused())
                return
            reason = not_html_reason(data) if self.sniff else None
            if reason:
                yield Skipped(self.input, reason)
                return
            yield RawPage(data, input=self.input)
        except GristError as exc:
            # damaged gzip data is a failure whatever can be read of it before the damage
            if (self.sniff and not isinstance(exc, CorruptInputError)
                    and not _starts_like_html(Path(self.location))):
                yield Skipped(self.input, str(exc))
                return
            yield Unreadable(self.input, exc)


def _arc_refused() -> UnreadableInputError:
    """Why an ARC file gives no page: read as one, its records would run together as one."""
    return UnreadableInputError(
        "an ARC file (the crawl archive format before WARC), which grist does not read: convert "
        "it to WARC first, e.g. with warcio: warcio recompress FILE.arc.gz FILE.warc.gz")


def _starts_like_html(path: Path) -> bool:
    """Whether a file found in a folder that could not be read whole (too large) starts like an
    HTML page: then it is a page that failed, an error record, not a file that is no page. Reads
    the first bytes only, a .gz decompressed as far as it goes."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(_SKIPPED_OPENING + _SNIFF_BYTES)
    except OSError:
        return False
    if head.startswith(GZIP_MAGIC):
        head = gzip_head(head, _SKIPPED_OPENING + _SNIFF_BYTES)
    return not_html_reason(head) is None


def _stem(path: Path) -> str:
    """A file's output stem: its path without the page suffixes (``a/b.html.gz`` -> ``a/b``)."""
    name = path.name
    for suffix in (".gz", ".html", ".htm", ".xhtml", ".shtml", ".php", ".aspx", ".asp", ".jsp"):
        name = name.removesuffix(suffix)
    return str(path.with_name(name or path.name))


def url_name(url: str) -> str:
    """A file stem for a URL's output file."""
    return url.split("://", 1)[-1].translate(_UNSAFE).strip("_") or "page"


def _file_or_dangling_link(path: Path) -> bool:
    """Whether a folder's entry is a file to read, or a link to nothing (named as skipped, not
    passed over unseen)."""
    return path.is_file() or (path.is_symlink() and not path.exists())


def expand(inputs: Sequence[str]) -> tuple[list[Source], bool]:
    """The sources the inputs name, and whether they form a batch (several inputs, a folder, a
    JSON-lines or a WARC file). ``-`` is stdin, a page or, when it starts with ``{``, JSON lines
    (``stdin_holds_json_lines``); a folder gives every regular file under it (hidden
    folders and files aside), its ``.jsonl[.gz]`` and ``.warc[.gz]`` files read as JSON lines
    and WARC, as when named, and each other file only if it sniffs as HTML; a missing JSON-lines
    or WARC file or an empty folder raises GristError before anything is read."""
    sources: list[Source] = []
    batch = len(inputs) > 1
    for item in inputs:
        if item == "-" and stdin_holds_json_lines():
            batch = True
            sources.append(Source("jsonl", "<stdin>", "stdin", "-"))
        elif item == "-":
            sources.append(Source("stdin", "<stdin>", "stdin", "-"))
        elif is_url(item):
            sources.append(Source("url", item, url_name(item), item))
        elif Path(item).is_dir():
            batch = True
            root = Path(item)
            files = sorted(p for p in root.rglob("*") if _file_or_dangling_link(p)
                           and not any(part.startswith(".") for part in p.relative_to(root).parts))
            if not files:
                raise GristError(f"{item}: no files in this folder")
            sources += [Source(container_kind(p) or "file", str(p), _stem(p.relative_to(root)),
                               str(p), sniff=container_kind(p) is None) for p in files]
        elif kind := container_kind(item):
            batch = True
            if not Path(item).is_file():
                raise GristError(f"{item}: no such file")
            sources.append(Source(kind, item, Path(item).name.split(".")[0], item))
        else:
            sources.append(Source("file", item, Path(item).stem or "page", item))
    return sources, batch
