"""Fuzz families about what the bytes are: mis-declared and exotic charsets, UTF-16 and UTF-32
with and without a byte-order mark, odd str input (lone surrogates), non-HTML payloads, and pages
at and just over every documented cap."""

from __future__ import annotations

import base64
import json
import zlib

from grist.fuzz.cases import Context, Made, family
from grist.fuzz.pages import FOREIGN, article_page, sentence

# Labels a page may declare: WHATWG ones, Python codec names that are no web encoding (some are
# not even text codecs), and junk.
LABELS = (
    "utf-8", "UTF8", "unicode-1-1-utf-8", "latin1", "iso-8859-1", "ascii", "us-ascii",
    "windows-1252", "iso-8859-2", "iso-8859-8-i", "koi8-r", "koi8-u", "macintosh",
    "x-mac-cyrillic", "windows-874", "gb2312", "gbk", "gb18030", "big5", "big5-hkscs", "euc-jp",
    "iso-2022-jp", "shift_jis", "sjis", "euc-kr", "ks_c_5601-1987", "utf-16", "utf-16le",
    "utf-16be", "x-user-defined", "replacement", "hz-gb-2312", "iso-2022-kr", "iso-2022-cn",
    "idna", "punycode", "undefined", "rot13", "rot_13", "base64", "zlib", "hex", "uu", "bz2",
    "quopri", "utf-7", "utf-32", "utf-8-sig", "unicode-escape", "raw-unicode-escape", "mbcs",
    "oem", "palmos", "charmap", "cp65001", "cp037", "cp1140", "cp875", "mac-arabic", "tactis",
    "x-mac-japanese", "", " ", "utf-8\x00", "\u00fc", "a" * 40, "utf_16_le", "unicode",
)
CODECS = ("utf-8", "cp1252", "latin-1", "cp1251", "koi8-r", "gb18030", "big5", "shift_jis",
          "euc-jp", "euc-kr", "iso2022_jp", "utf-16-le", "utf-16-be", "utf-32", "cp037", "utf-7")


def _page(ctx: Context) -> str:
    return article_page(ctx.rng, ctx.count(1, 40), charset="")


def _encode(text: str, codec: str) -> bytes:
    return text.encode(codec, "replace") if codec != "utf-7" else text.encode(codec)


@family("charset", 6)
def charset(ctx: Context) -> Made:
    """A page in one encoding declaring another (meta, XML declaration, HTTP), or junk labels."""
    label, codec = ctx.pick(LABELS), ctx.pick(CODECS)
    text = _page(ctx) + " ".join(FOREIGN)
    where = ctx.rng.randrange(4)
    if where == 0:
        text = f"<meta charset={label}>" + text
    elif where == 1:
        text = f'<meta http-equiv="Content-Type" content="text/html; charset={label}">' + text
    elif where == 2:
        text = f'<?xml version="1.0" encoding="{label}"?>' + text
    http = ctx.pick(LABELS) if where == 3 or ctx.rng.random() < 0.2 else None
    return Made(_encode(text, codec), f"declares {label!r}, encoded {codec}, http {http!r}",
                exact=True, http_charset=http)


@family("utf16", 3)
def utf16(ctx: Context) -> Made:
    """UTF-16 and UTF-32, little and big endian, with or without a byte-order mark, odd length."""
    codec = ctx.pick(("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"))
    bom = ctx.rng.random() < 0.5
    text = ("\ufeff" if bom else "") + _page(ctx)
    data = text.encode(codec)
    if ctx.rng.random() < 0.2:
        data = data[: ctx.rng.randrange(1, len(data) + 1)]
    return Made(data, f"{codec} bom={bom}", exact=True,
                http_charset=ctx.pick((None, None, "utf-16", "utf-8")))


@family("strange-str", 3)
def strange_str(ctx: Context) -> Made:
    """A decoded str with lone surrogates, noncharacters, controls or private-use characters."""
    odd = ("\ud800", "\udfff", "\ud83d", "\ufffe", "\uffff", "\x00", "\x85", "\u2028", "\ue000",
           "\U0010ffff", "\x1b[31m", "\ufeff", "\u0130")
    text = _page(ctx)
    for _ in range(ctx.count(1, 5000)):
        at = ctx.rng.randrange(len(text) + 1)
        text = text[:at] + ctx.pick(odd) + text[at:]
    return Made(text, "str with odd characters", exact=True)


def _random_bytes(ctx: Context, size: int) -> bytes:
    return ctx.rng.randbytes(size)


@family("nonhtml", 5)
def nonhtml(ctx: Context) -> Made:
    """Things that are not HTML pages: random bytes, compressed data, images, JSON, CSS, text."""
    size = ctx.count(1, 200_000)
    kind = ctx.rng.randrange(12)
    page = _page(ctx)
    if kind == 0:
        data = _random_bytes(ctx, size)
    elif kind == 1:  # printable noise
        data = bytes(ctx.rng.randrange(32, 127) for _ in range(min(size, 50_000)))
    elif kind == 2:
        data = zlib.compress(page.encode())
    elif kind == 3:
        data = ctx.pick((b"\x89PNG\r\n\x1a\n", b"%PDF-1.7\n", b"GIF89a", b"\xff\xd8\xff\xe0",
                         b"PK\x03\x04", b"\x1f\x8b\x08")) + _random_bytes(ctx, size)
    elif kind == 4:
        data = json.dumps({"html": page, "n": list(range(50))}).encode()
    elif kind == 5:
        data = ("body { background: url(x.png) } " * (size // 30 + 1)).encode()
    elif kind == 6:
        data = base64.b64encode(_random_bytes(ctx, size))
    elif kind == 7:  # a page with a binary tail, or binary with an HTML head
        data = page.encode() + _random_bytes(ctx, size) if ctx.rng.random() < 0.5 \
            else b"<html><body><p>x</p>" + _random_bytes(ctx, size)
    elif kind == 8:
        data = (sentence(ctx.rng, 12) + "\n").encode() * (size // 60 + 1)
    elif kind == 9:
        data = b'<?xml version="1.0"?><rss><channel><item><title>t</title></item></channel></rss>'
    elif kind == 10:  # control characters without NULs
        data = bytes(ctx.rng.randrange(1, 32) for _ in range(min(size, 50_000)))
    else:
        data = _random_bytes(ctx, size).replace(b"\x00", b"<")
    return Made(data, f"kind {kind}, {len(data)} bytes", exact=True)


CAP_WORDS = ("x ", "ab ", "Ab. ", "1 ", '"A" ', "x", "2024-01-01 ", "a\n")


@family("caps", 2)
def caps(ctx: Context) -> Made:
    """Pages at and just over each documented cap (bytes, UTF-8 size of a str, tags, depth)."""
    limits = ctx.limits
    over = ctx.rng.randint(-1, 1)  # just under, at, just over
    which = ctx.rng.randrange(5)
    if which == 0:  # one block of text: words of every shape (each word a Python string?)
        word = ctx.rng.choice(CAP_WORDS)
        text = ("<p>" + word * (limits.max_bytes // len(word) + 1))[: limits.max_bytes + over]
        return Made(text.encode(), f"bytes at max_bytes{over:+d} of {word!r}", exact=True)
    if which == 1:  # a str whose characters fit the cap but whose UTF-8 size does not
        chars = limits.max_bytes // 3 + over
        return Made("<p>" + "\u20ac" * chars, f"str of {chars} three-byte characters", exact=True)
    if which == 2:
        tags = limits.max_tags + over
        return Made("<p>x" * tags, f"max_tags{over:+d}", exact=True)
    if which == 3:
        depth = limits.max_depth + over
        return Made("<div>" * depth + "deep text" + "</div>" * depth, f"max_depth{over:+d}",
                    exact=True)
    depth = limits.max_depth + over
    return Made("<html><body>" + "<div>x" * (depth - 2), f"texty depth max_depth{over:+d}",
                exact=True)
