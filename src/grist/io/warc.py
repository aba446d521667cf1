"""WARC and WARC.gz files read with FastWARC: every record accounted for, damage included.

``read_warc(path)`` yields one ``WarcItem`` per record, in file order: a page (a ``response`` or
``resource`` record with an HTML payload, as a RawPage carrying the record's URL, date and HTTP
charset), an error (a non-HTML, huge or unreadable record, with the reason), or a record that is
not a page (``request``, ``metadata``, ``warcinfo``, ...). Each item has the record's offset in
the file (for a .gz file, the offset of its gzip member, as in Common Crawl's index); a .gz file
compressed as one gzip stream has none (None): no reader can seek to a record in it.

A response record's HTTP status line and headers are read here (lines ending in CRLF, or in LF
alone as older crawls wrote them), its chunked Transfer-Encoding and its Content-Encoding undone:
a status other than 2xx is an HttpStatusError, a damaged chunked or compressed body a
CorruptInputError. A record labelled text/plain or XML is a page only when its payload sniffs as
HTML (``grist.io.sources.not_html_reason``): robots.txt, sitemaps and feeds are not pages.

FastWARC raises on a corrupt gzip member or a header that is not where a record's length says,
and stops quietly at a cut-off gzip member; so each record is handed out only once the next one
has been read (or the end of the file checked), a record whose framing is wrong becomes an error,
and reading goes on from the next place a record starts (a gzip member, or a ``WARC/1.`` line).
Bytes that hold no readable record become one error item per damaged range. A file compressed
as one gzip stream is decompressed once more at its end, to see that the stream ends whole; a
record of it whose block is shorter than its length says (FastWARC hands out what it read of it)
is the error, and so is the rest of the stream.
``warc_pages`` gives only the pages, for callers that replay a crawl; ``warc_records`` gives
every record as ``grist.io.sources.Source.records`` does, which is how commands read WARC files.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from email.message import Message
from email.parser import HeaderParser
from functools import partial
from itertools import chain
from pathlib import Path
from typing import Any, BinaryIO

from grist.document import RawPage
from grist.errors import CorruptInputError, GristError, HttpStatusError, LimitExceededError, \
    NotHTMLError, NotWarcError, WarcError
from grist.io.content_encoding import GZIP_MAGIC, ContentDecoder
from grist.io.sources import PageOrError, Skipped, Unreadable, gzip_chunks, gzip_head, \
    not_html_reason
from grist.limits import Limits
from grist.optional import require

PAGE_TYPES = ("response", "resource")
HTML_TYPES = ("text/html", "application/xhtml+xml")
# Content types under which crawls hold HTML pages as well as other text: sniffed.
SNIFFED_TYPES = ("text/plain", "application/xml", "text/xml")
_GZIP_DEFLATE = GZIP_MAGIC + b"\x08"  # a gzip member compressed by deflate, as WARC files are
_CHUNK = 1 << 16
_HEADER_END = re.compile(rb"\r?\n\r?\n")
_LENGTH = re.compile(rb"(?im)^content-length:[ \t]*(\d+)")
_STATUS_LINE = re.compile(rb"HTTP/\d+(?:\.\d+)?[ \t]+(\d{3})\b([^\r\n]*)")
_HTTP_HEAD_CAP = 1 << 16  # the most bytes an HTTP status line and headers are looked for in
_CHUNK_SIZE = re.compile(rb"[0-9a-fA-F]{1,16}")
_CHUNK_LINE_CAP = 1024  # a chunk size line (with its extensions) longer than this is damage


@dataclass(frozen=True, slots=True)
class WarcItem:
    """One WARC record, or a damaged byte range: exactly one of ``page`` and ``error`` is set for a
    page-type record or a damaged range; neither for a record that is not a page."""

    offset: int | None  # None in a .gz file compressed as one stream
    record_type: str  # response, resource, request, ...; "" for a damaged range
    input: str  # the record's WARC-Record-ID, or FILE@OFFSET when it has none
    page: RawPage | None = None
    error: GristError | None = None
    url: str | None = None  # the record's WARC-Target-URI (a damaged record's error too)
    date: str | None = None  # its WARC-Date

    def entry(self) -> PageOrError:
        """The record as a source gives it: its page; its error, with the record's URL and date;
        or, for a record of a type that holds no page, a Skipped naming the type."""
        if self.page is not None:
            return self.page
        if self.error is not None:
            return Unreadable(self.input, self.error, self.url, self.date)
        return Skipped(self.input, f"a {self.record_type} record, not a page", self.record_type)


def read_warc(path: str | Path, limits: Limits | None = None) -> Iterator[WarcItem]:
    """Every record of a WARC file as a WarcItem (see the module doc); raises NotWarcError,
    before yielding anything, when no WARC record can be found in the file. A file whose first
    record is damaged starts with an error item for the bytes before the first readable one."""
    limits = limits or Limits()
    path = Path(path)
    try:
        size = path.stat().st_size
        handle = open(path, "rb")  # noqa: SIM115 - closed by the with below, after the check
    except OSError as exc:
        raise GristError(f"cannot read {path}: {exc.strerror or exc}") from None
    with handle:
        gz = handle.read(3) == _GZIP_DEFLATE
        first = 0 if _starts_record(handle, 0, gz) else _next_record(handle, 1, gz, size)
        if first is None and not gz:  # a damaged gzip header hides the members after it
            first = _next_record(handle, 1, True, size)
            if first is not None:
                gz = True
        if first is None:
            raise NotWarcError(_not_warc(handle, gz, size))
        framed = not gz or _one_record_per_member(handle, first, size)
        reader = _Reader(handle, str(path), size, gz, framed, limits)
        if first > 0:
            yield WarcItem(0, "", f"{path}@0", error=WarcError(
                f"data that is not a WARC record; bytes 0-{first} of {path} skipped"))
        start: int | None = first
        while start is not None:
            start = yield from reader.run(start)


def read_record(path: str | Path, offset: int, limits: Limits | None = None) -> WarcItem:
    """The one record that starts at ``offset`` (from ``WarcItem.offset``: a file compressed as
    one gzip stream has none), read directly; WarcError when none starts there, GristError when
    the file cannot be read."""
    if isinstance(offset, bool) or not isinstance(offset, int):
        raise TypeError(f"offset must be an int (a WarcItem's offset), not {type(offset).__name__}")
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed by the with below
        size = Path(path).stat().st_size
    except OSError as exc:
        raise GristError(f"cannot read {path}: {exc.strerror or exc}") from None
    with handle:
        if 0 <= offset < size:
            gz = handle.read(3) == _GZIP_DEFLATE
            for item in _Reader(handle, str(path), size, gz, True, limits or Limits()).run(offset):
                return item
    raise WarcError(f"no WARC record at offset {offset} of {path}")


def warc_records(name: str, path: str | Path, limits: Limits | None = None
                 ) -> Iterator[tuple[int | None, PageOrError]]:
    """Every record of a WARC file as ``WarcItem.entry`` gives it, with its offset; a file with
    no WARC record, or that cannot be read, is one Unreadable named ``name`` (the input)."""
    try:
        for item in read_warc(path, limits):
            yield item.offset, item.entry()
    except GristError as exc:
        yield None, Unreadable(name, exc)


def warc_pages(path: str | Path, limits: Limits | None = None) -> Iterator[RawPage]:
    """Only the pages of a WARC file (errors and other records left out): a crawl to replay."""
    for item in read_warc(path, limits):
        if item.page is not None:
            yield item.page


def _not_warc(handle: BinaryIO, gz: bool, size: int) -> str:
    if size == 0:
        return "not a WARC file: the file is empty"
    head = _head(handle, 0, gz)[:24]
    what = "gzip data that does not hold" if gz else "it does not start with"
    return f"not a WARC file: {what} a WARC record (starts with {head!r})"


def _head(handle: BinaryIO, offset: int, gz: bool, size: int = 4096) -> bytes:
    """The first bytes of the (decompressed) data at ``offset``; b"" when they cannot be read."""
    handle.seek(offset)
    raw = handle.read(size if not gz else _CHUNK)
    return gzip_head(raw, size) if gz else raw


def _starts_record(handle: BinaryIO, offset: int, gz: bool) -> bool:
    return _head(handle, offset, gz, 16).startswith(b"WARC/")


def _record_end(head: bytes) -> int | None:
    """Length of a whole uncompressed record (header, block, closing CRLF CRLF) from its first
    bytes, or None when its header cannot be read."""
    end = _HEADER_END.search(head)
    length = _LENGTH.search(head, 0, end.start()) if end else None
    return end.end() + int(length.group(1)) + 4 if end and length else None


def _gzip_member(handle: BinaryIO, offset: int,
                 cap: int | None = None) -> tuple[int | None, bytes, int]:
    """(compressed length of the gzip member at ``offset``, or None if it is cut off, corrupt or
    decompresses to more than ``cap`` bytes; its first decompressed bytes; bytes decompressed)."""
    handle.seek(offset)
    inflater = zlib.decompressobj(31)
    consumed, head, total = 0, b"", 0
    try:
        while not inflater.eof:
            chunk = handle.read(_CHUNK)
            if not chunk:
                return None, head, total
            consumed += len(chunk)
            while chunk and not inflater.eof:  # bounded output per step
                data = inflater.decompress(chunk, _CHUNK)
                chunk = inflater.unconsumed_tail
                head += data[: max(0, 4096 - len(head))]
                total += len(data)
                if cap is not None and total > cap:
                    return None, head, total
    except zlib.error:
        return None, head, total
    return consumed - len(inflater.unused_data), head, total


def _one_record_per_member(handle: BinaryIO, offset: int, size: int) -> bool:
    """Whether a .gz WARC compresses each record as its own gzip member (the standard, which
    gives records their own offsets) rather than the whole file as one stream. Read from the
    member at ``offset``; when that one is damaged, from whether a later member starts a record."""
    _, head, _ = _gzip_member(handle, offset, cap=0)
    end = _record_end(head)
    if end is not None:
        length, _, total = _gzip_member(handle, offset, cap=end)
        if length is not None and total == end:
            return True
        if total > end:  # more than one record in the member: one stream
            return False
    return _next_record(handle, offset + 1, True, size) is not None


def _short_block(record: Any) -> bool:
    """Whether a record's block, read to its end, holds fewer bytes than its Content-Length says:
    the data ends inside it."""
    record.reader.consume()
    return record.reader.tell() < record.content_length


def _gzip_whole(handle: BinaryIO, offset: int) -> bool:
    """Whether the gzip data from ``offset`` on decompresses to its end, neither cut off nor
    damaged."""
    handle.seek(offset)
    try:
        for _ in gzip_chunks(handle):
            pass
    except CorruptInputError:
        return False
    return True


def _next_record(handle: BinaryIO, offset: int, gz: bool, size: int) -> int | None:
    """The first offset at or after ``offset`` where a readable record starts (a gzip member
    holding one, or a ``WARC/1.`` line)."""
    marker = _GZIP_DEFLATE if gz else b"WARC/1."
    position = offset
    while position < size:
        handle.seek(position)
        chunk = handle.read(_CHUNK + len(marker))
        found = chunk.find(marker)
        if found < 0:
            position += _CHUNK
            continue
        candidate = position + found
        if _starts_record(handle, candidate, gz):
            return candidate
        position = candidate + 1
    return None


class _Reader:
    """Reads one WARC file from an offset, holding back each record until its framing is known."""

    def __init__(self, handle: BinaryIO, name: str, size: int, gz: bool, framed: bool,
                 limits: Limits) -> None:
        self.handle, self.name, self.size, self.gz, self.limits = handle, name, size, gz, limits
        self.framed = framed  # records start at known offsets (False: one gzip stream)
        self.warc = require("fastwarc.warc", "warc", "reading WARC files")

    def run(self, start: int) -> Iterator[WarcItem]:
        """Yield the items from ``start`` on; return where to go on after damage (None: done)."""
        self.handle.seek(start)
        records = iter(self.warc.ArchiveIterator(self.handle, parse_http=False, auto_decode="none"))
        pending: WarcItem | None = None
        at: int | None = None  # where the pending record starts in the file
        failure: str | None = None
        short = False  # (one gzip stream) the pending record's block is shorter than it says
        while True:
            try:
                record = next(records)
            except StopIteration:
                break
            except OSError as exc:  # a corrupt gzip member or a header where none should be
                failure = str(exc) or type(exc).__name__
                break
            item = self._item(record)
            if pending is not None:
                yield pending
            pending, at = item, int(record.stream_pos)
            short = not self.framed and _short_block(record)
        if pending is not None and short:  # (FastWARC stops quietly where the stream is cut)
            yield replace(pending, page=None, error=WarcError(
                f"the gzip data is cut off or damaged in the record; {self._rest_skipped()}"))
            return None
        if not self.framed and failure is None and pending is not None \
                and not _gzip_whole(self.handle, start):  # (cut after the last record's block)
            yield pending
            yield WarcItem(None, "", self.name, error=WarcError(
                f"the gzip data is cut off or damaged after the last record read; "
                f"{self._rest_skipped()}"))
            return None
        damaged = self._damage(start, at, failure)
        if damaged is None:
            if pending is not None:
                yield pending
            return None
        if pending is not None and at is not None and damaged > at:
            yield pending
            if self.framed and _starts_record(self.handle, damaged, self.gz):
                return damaged  # the next record starts where the last one ends: read it again
        resume = (_next_record(self.handle, damaged + 1, self.gz, self.size) if self.framed
                  else None)
        end = self.size if resume is None else resume
        where = (f"bytes {damaged}-{end} of {self.name} skipped" if self.framed
                 else self._rest_skipped())
        offset = damaged if self.framed else None
        if pending is not None and damaged == at:
            why = "the record's length does not match its data" if failure or resume is not None \
                else "the record is cut off at the end of the file"
            yield WarcItem(offset, pending.record_type, pending.input,
                           error=WarcError(f"{why}; {where}"), url=pending.url, date=pending.date)
        else:
            why = failure or ("the file ends inside a record" if resume is None
                              else "data that is not a WARC record")
            yield WarcItem(offset, "", f"{self.name}@{damaged}",
                           error=WarcError(f"{why}; {where}"))
        return resume

    def _rest_skipped(self) -> str:
        """What is lost at damage in a file compressed as one gzip stream."""
        return (f"the rest of {self.name} skipped (compressed as one gzip stream, it cannot be "
                "read past damage)")

    def _damage(self, start: int, last: int | None, failure: str | None) -> int | None:
        """Where unreadable data starts after the records read from ``start`` (``last``, where
        the last one starts, when its framing is wrong), or None when everything up to the end
        was read."""
        if last is None:
            return start if failure or self._rest_has_data(start) else None
        if not self.framed:  # one gzip stream: no offsets to check or resume from
            return last if failure else None
        if self.gz:
            length, head, total = _gzip_member(self.handle, last)
            if length is None or _record_end(head) != total:
                return last
            after = last + length
        else:
            end = _record_end(_head(self.handle, last, False))
            if end is None or last + end > self.size:
                return last
            after = last + end
            if failure and not _starts_record(self.handle, after, False) \
                    and not self._closed_at(after):
                return last  # the next header is not where this record's length says
        if failure or self._rest_has_data(after):
            return after
        return None

    def _closed_at(self, offset: int) -> bool:
        """Whether the bytes before ``offset`` are the CRLF CRLF that ends every record: then a
        record's length led to its own end, and a header that does not follow is the next
        record's damage, not this one's."""
        self.handle.seek(offset - 4)
        return self.handle.read(4) == b"\r\n\r\n"

    def _rest_has_data(self, offset: int) -> bool:
        self.handle.seek(offset)
        while chunk := self.handle.read(_CHUNK):
            if chunk.strip(b"\r\n\t \x00"):
                return True
        return False

    def _item(self, record: Any) -> WarcItem:
        """A fastwarc record as a WarcItem (reads the payload of a page-type record)."""
        kind = str(record.record_type)
        offset = int(record.stream_pos) if self.framed else None
        label = record.record_id or f"{self.name}@{record.stream_pos}"
        url, date = record.headers.get("WARC-Target-URI"), record.headers.get("WARC-Date")
        if kind not in PAGE_TYPES:  # (its URL and date kept for an error if it is damaged)
            return WarcItem(offset, kind, label, url=url, date=date)
        try:
            page = self._page(record, kind, label, url, date)
        except GristError as exc:
            return WarcItem(offset, kind, label, error=exc, url=url, date=date)
        return WarcItem(offset, kind, label, page=page, url=url, date=date)

    def _page(self, record: Any, kind: str, label: str, url: str | None,
              date: str | None) -> RawPage:
        """The page a response or resource record holds, or the GristError saying why none."""
        blocks: Iterable[bytes] = iter(partial(record.reader.read, _CHUNK), b"")
        if kind == "response":
            status, phrase, headers, body = _http_head(record.reader)
            if not 200 <= status < 300:
                raise HttpStatusError(f"HTTP {status} {phrase}".rstrip())
            blocks = chain([body], blocks)
        else:
            headers = Message()
            headers["Content-Type"] = record.headers.get("Content-Type") or ""
        content_type = headers.get_content_type() if headers.get("Content-Type") else None
        if content_type and content_type not in HTML_TYPES + SNIFFED_TYPES:
            raise NotHTMLError(f"the record is {content_type}, not an HTML page")
        if record.content_length > self.limits.max_bytes:
            raise LimitExceededError(
                f"the record is larger than {self.limits.max_bytes / 1048576:.1f} MiB "
                f"({record.content_length} bytes; Limits.max_bytes)")
        if "chunked" in (headers.get("Transfer-Encoding") or "").lower():
            blocks = _chunked_or_stored_plain(blocks)
        payload = self._payload(blocks, ", ".join(headers.get_all("Content-Encoding") or ()))
        if content_type in SNIFFED_TYPES and (why := not_html_reason(payload)):
            raise NotHTMLError(f"the record is {content_type}, not an HTML page "
                               f"({why.removeprefix('not HTML: ')})")
        return RawPage(payload, url=url, input=label, http_charset=headers.get_content_charset(),
                       date=date)

    def _payload(self, blocks: Iterable[bytes], encoding: str) -> bytes:
        """The payload in ``blocks`` with its HTTP Content-Encoding undone (CorruptInputError when
        it is cut off or damaged, which FastWARC's own decoding lets pass), within the size cap."""
        decoder = ContentDecoder(encoding, "the record's payload", limit=self.limits.max_bytes)
        if decoder.unknown:
            raise WarcError(f"the record's payload is encoded as {', '.join(decoder.unknown)} "
                            "(its Content-Encoding), which grist cannot decode")
        chunks, size = [], 0
        try:
            for raw in blocks:
                chunks.append(decoder.decode(raw))
                size += len(chunks[-1])
                if size > self.limits.max_bytes:
                    raise LimitExceededError(
                        f"the payload is larger than {self.limits.max_bytes / 1048576:.1f} MiB "
                        f"once decoded (Limits.max_bytes)")
        except OSError as exc:
            raise WarcError(f"the record's payload cannot be read ({exc})") from None
        decoder.finish()
        return b"".join(chunks)


def _http_head(reader: Any) -> tuple[int, str, Message, bytes]:
    """(status, reason phrase, headers, the body's first bytes) of the HTTP response a record's
    block starts with, its lines ending in CRLF or in LF alone (older crawls; FastWARC reads no
    header then); WarcError when the block does not start with an HTTP status line."""
    data = b""
    while (end := _HEADER_END.search(data)) is None and len(data) < _HTTP_HEAD_CAP:
        if not (block := reader.read(_CHUNK)):
            break  # (a response of headers alone)
        data = (data + block).lstrip(b" \t\r\n")  # (blank lines before the status line)
    status = _STATUS_LINE.match(data)
    if status is None or (end is None and len(data) >= _HTTP_HEAD_CAP):
        raise WarcError("the response record holds no HTTP response (its block does not start "
                        "with an HTTP status line and headers)")
    head_end, body_start = (end.start(), end.end()) if end else (len(data), len(data))
    headers = HeaderParser().parsestr(data[status.end():head_end].decode("latin-1").lstrip("\r\n"))
    phrase = "".join(c if c.isprintable() else "?" for c in status.group(2).decode("latin-1"))
    return int(status.group(1)), phrase.strip()[:80], headers, data[body_start:]


def _chunked_or_stored_plain(blocks: Iterable[bytes]) -> Iterator[bytes]:
    """The data of a body said to be chunked: ``_dechunked``, or the body as it is when it does
    not start with a chunk size line (crawlers that store the body de-chunked often keep the
    header; warcio reads such bodies so too)."""
    blocks = iter(blocks)
    head = b""
    for block in blocks:
        head += block
        if b"\n" in head.lstrip() or len(head) > _CHUNK_LINE_CAP:
            break
    first = head.lstrip().split(b"\n", 1)[0].split(b";", 1)[0].strip()
    body = chain([head], blocks)
    return body if head.strip() and not _CHUNK_SIZE.fullmatch(first) else _dechunked(body)


def _dechunked(blocks: Iterable[bytes]) -> Iterator[bytes]:
    """The data of a chunked body (HTTP/1.1 Transfer-Encoding) given in ``blocks``, a piece at
    a time; CorruptInputError when a chunk size line is not one or the last chunk never comes."""
    buffer, left, between = b"", 0, False  # left: bytes of the current chunk still to come
    started = False
    for block in blocks:
        buffer += block
        started = started or bool(block.strip())
        while True:
            if left and buffer:
                yield buffer[:left]
                taken = min(left, len(buffer))
                buffer, left = buffer[taken:], left - taken
                if left:
                    break
                between = True  # the line end after a chunk's data comes next
            line_end = buffer.find(b"\n")
            if line_end < 0:
                if len(buffer) > _CHUNK_LINE_CAP:
                    raise _damaged_chunks("a chunk size line is missing or too long")
                break
            line, buffer = buffer[:line_end].strip(), buffer[line_end + 1:]
            if between:
                between = False
                if line:
                    raise _damaged_chunks("a chunk holds more data than its size says")
                continue
            size = line.split(b";", 1)[0].strip()
            if not _CHUNK_SIZE.fullmatch(size):
                raise _damaged_chunks("a chunk size is not a hexadecimal number")
            left = int(size, 16)
            if not left:
                return  # the last chunk (trailer fields after it are not read)
    if buffer.strip() and not between and not _CHUNK_SIZE.match(buffer.strip()):
        raise _damaged_chunks("a chunk size is not a hexadecimal number")
    if started:  # (an empty body has no chunks at all)
        raise CorruptInputError("the record's chunked payload is cut off before its last chunk")


def _damaged_chunks(why: str) -> CorruptInputError:
    return CorruptInputError(f"the record's chunked payload is damaged: {why}")
