"""Undoing an HTTP body's Content-Encoding (gzip, deflate, br) a piece at a time, and saying when
a compressed body is cut off or damaged, which httpx and FastWARC let pass as a whole body:
used by the URL fetcher and the WARC reader alike."""

from __future__ import annotations

import functools
import importlib.util
import zlib
from collections.abc import Callable
from typing import Any

from grist.errors import CorruptInputError, GristError

GZIP_MAGIC = b"\x1f\x8b"  # the first two bytes of every gzip member (RFC 1952)


def _zlib_header(head: bytes) -> bool:
    """Whether a deflate body starts with the zlib header the standard asks for (RFC 1950)."""
    return head[0] & 0x0F == 8 and int.from_bytes(head[:2]) % 31 == 0


class _Inflate:
    """A gzip body (member after member, as ``cat a.gz b.gz`` gives; other bytes after the end
    are ignored, as browsers do) or a deflate one, with its zlib header or raw (browsers take
    both)."""

    error = zlib.error

    def __init__(self, gzip: bool) -> None:
        self.gzip = gzip
        self.inflater: Any = zlib.decompressobj(31) if gzip else None
        self.head = b""  # a deflate body's first bytes, until its zlib header can be looked for

    def decode(self, data: bytes) -> bytes:
        if self.inflater is None:
            self.head += data
            if len(self.head) < 2:
                return b""
            data, self.head = self.head, b""
            self.inflater = zlib.decompressobj(15 if _zlib_header(data) else -15)
        out = self.inflater.decompress(data)
        while self.gzip and self.inflater.eof and self.inflater.unused_data[:2] == GZIP_MAGIC:
            data, self.inflater = self.inflater.unused_data, zlib.decompressobj(31)
            out += self.inflater.decompress(data)
        return out

    def finished(self) -> bool:
        return self.inflater is not None and self.inflater.eof


class _Brotli:
    """A brotli body (``br``)."""

    def __init__(self) -> None:
        import brotli

        self.error = brotli.error
        self.decompressor = brotli.Decompressor()

    def decode(self, data: bytes) -> bytes:
        return self.decompressor.process(data)

    def finished(self) -> bool:
        return self.decompressor.is_finished()


@functools.cache
def _codings() -> dict[str, Callable[[], Any]]:
    """The Content-Encodings ContentDecoder undoes: br only when the brotli package is there."""
    codings: dict[str, Callable[[], Any]] = {
        "gzip": functools.partial(_Inflate, True), "x-gzip": functools.partial(_Inflate, True),
        "deflate": functools.partial(_Inflate, False)}
    if importlib.util.find_spec("brotli"):
        codings["br"] = _Brotli
    return codings


def accept_encoding() -> str:
    """The Accept-Encoding header to send: the codings ContentDecoder undoes (x-gzip is gzip)."""
    return ", ".join(name for name in _codings() if name != "x-gzip")


class ContentDecoder:
    """Undoes a body's Content-Encoding a piece at a time (stacked codings last first) and raises
    ``error`` for a damaged or cut-off compressed body, which httpx and FastWARC take silently.
    Codings it does not know (``unknown``) are left as they are, as browsers do."""

    def __init__(self, header: str, what: str = "the body",
                 error: type[GristError] = CorruptInputError) -> None:
        names = [name.strip().lower() for name in header.split(",")]
        codings = _codings()
        self.unknown = [name for name in names
                        if name not in codings and name not in ("", "identity")]
        self.stages = [(name, codings[name]()) for name in reversed(names) if name in codings]
        self.what, self.error = what, error
        self.started = False

    def decode(self, data: bytes) -> bytes:
        """What ``data``, the next piece of the body, decodes to."""
        self.started = self.started or bool(data)
        for name, stage in self.stages:
            try:
                data = stage.decode(data)
            except stage.error as exc:
                raise self.error(f"{self.what} does not decompress as its Content-Encoding "
                                 f"says ({name}: {exc})") from None
        return data

    def finish(self) -> None:
        """Raise ``error`` if the body ended before its compressed data did (an empty body, as
        a 304 or a HEAD answer has, is left to the caller)."""
        if not self.started:
            return
        for name, stage in self.stages:
            if not stage.finished():
                raise self.error(f"{self.what} is cut off or damaged: its {name} data ends "
                                 "early")
