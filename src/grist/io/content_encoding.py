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
_UNBOUNDED = 1 << 62  # a cap no body reaches


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

    def decode(self, data: bytes, cap: int) -> bytes:
        """At most ``cap`` bytes of what ``data`` decodes to (the rest is dropped: the body is
        larger than its reader takes)."""
        if self.inflater is None:
            self.head += data
            if len(self.head) < 2:
                return b""
            data, self.head = self.head, b""
            self.inflater = zlib.decompressobj(15 if _zlib_header(data) else -15)
        out = self.inflater.decompress(data, cap)
        while (self.gzip and len(out) < cap and self.inflater.eof
               and self.inflater.unused_data[:2] == GZIP_MAGIC):
            data, self.inflater = self.inflater.unused_data, zlib.decompressobj(31)
            out += self.inflater.decompress(data, cap - len(out))
        return out

    def finished(self) -> bool:
        return self.inflater is not None and self.inflater.eof


class _Brotli:
    """A brotli body (``br``)."""

    def __init__(self) -> None:
        import brotli

        self.error = brotli.error
        self.decompressor = brotli.Decompressor()

    def decode(self, data: bytes, cap: int) -> bytes:
        """At most about ``cap`` bytes of what ``data`` decodes to (brotli stops growing its
        output there; the rest is dropped, as with ``_Inflate``)."""
        return self.decompressor.process(data, output_buffer_limit=cap)

    def finished(self) -> bool:
        return self.decompressor.is_finished()


@functools.cache
def _codings() -> dict[str, Callable[[], Any]]:
    """The Content-Encodings ContentDecoder undoes: br only when the brotli package is there."""
    codings: dict[str, Callable[[], Any]] = {
        "gzip": functools.partial(_Inflate, True), "x-gzip": functools.partial(_Inflate, True),
        "deflate": functools.partial(_Inflate, False)}
    if importlib.util.find_spec("brotli") and _bounded_brotli():
        codings["br"] = _Brotli
    return codings


def _bounded_brotli() -> bool:
    """Whether the brotli package can stop its output at a size (1.2 and later): a few hundred
    bytes of br can decode to gigabytes, so older ones are not used."""
    import brotli

    return hasattr(brotli.Decompressor, "can_accept_more_data")


def decodable() -> list[str]:
    """The Content-Encodings ContentDecoder undoes here (br only with brotli 1.1 or later)."""
    return list(_codings())


def accept_encoding() -> str:
    """The Accept-Encoding header to send: the codings ContentDecoder undoes (x-gzip is gzip)."""
    return ", ".join(name for name in decodable() if name != "x-gzip")


class ContentDecoder:
    """Undoes a body's Content-Encoding a piece at a time (stacked codings last first) and raises
    ``error`` for a damaged or cut-off compressed body, which httpx and FastWARC take silently.
    Codings it does not know (``unknown``) are left as they are, as browsers do."""

    def __init__(self, header: str, what: str = "the body",
                 error: type[GristError] = CorruptInputError, limit: int | None = None) -> None:
        names = [name.strip().lower() for name in header.split(",")]
        codings = _codings()
        self.unknown = [name for name in names
                        if name not in codings and name not in ("", "identity")]
        self.stages = [(name, codings[name]()) for name in reversed(names) if name in codings]
        self.what, self.error = what, error
        self.started = False
        # ``limit``: the most bytes the reader takes; each piece decodes to at most one byte more
        # than it has left (so that it sees the body is too large), whatever the compression
        self.left = _UNBOUNDED if limit is None else limit + 1
        self.cut = False  # a stage stopped at ``left``: the body decodes to more

    def decode(self, data: bytes) -> bytes:
        """What ``data``, the next piece of the body, decodes to (within the limit)."""
        self.started = self.started or bool(data)
        for name, stage in self.stages:
            try:
                data = stage.decode(data, self.left)
            except stage.error as exc:
                raise self.error(f"{self.what} does not decompress as its Content-Encoding "
                                 f"says ({name}: {exc})") from None
            self.cut = self.cut or len(data) >= self.left
        self.left = max(self.left - len(data), 1)
        return data

    def finish(self) -> None:
        """Raise ``error`` if the body ended before its compressed data did (an empty body, as
        a 304 or a HEAD answer has, is left to the caller)."""
        if not self.started:
            return
        for name, stage in self.stages:
            if self.cut:
                raise self.error(f"{self.what} decodes to more than its reader takes "
                                 f"({name} data past the size cap)")
            if not stage.finished():
                raise self.error(f"{self.what} is cut off or damaged: its {name} data ends "
                                 "early")
