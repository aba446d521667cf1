"""Decode page bytes as browsers do (WHATWG order: BOM, HTTP/meta charset, detection).

A page is never dropped because decoding failed: undecodable bytes become U+FFFD.
Binary data (images, PDFs, archives) is refused with NotHTMLError.
"""

from __future__ import annotations

import codecs
import re

from grist.errors import EmptyInputError, NotHTMLError

# Legacy labels mapped to the superset browsers actually use (WHATWG Encoding Standard).
_WHATWG_SUPERSETS = {
    "ascii": "cp1252",
    "latin_1": "cp1252",
    "iso8859_1": "cp1252",
    "iso8859_9": "cp1254",
    "iso8859_11": "cp874",
    "tis_620": "cp874",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "euc_kr": "cp949",
    "ks_c_5601_1987": "cp949",
    "shift_jis": "cp932",
    "big5": "big5hkscs",
    # A page cannot really be UTF-16 if its meta tag was readable as ASCII: the spec says UTF-8.
    "utf_16": "utf-8",
    "utf_16_le": "utf-8",
    "utf_16_be": "utf-8",
}

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

# Magic numbers of common non-HTML payloads a crawler meets.
_BINARY_SIGNATURES = (
    (b"%PDF-", "a PDF document"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"RIFF", "a RIFF file (WebP image, WAV or AVI)"),
    (b"PK\x03\x04", "a ZIP archive (or an Office document)"),
    (b"\x1f\x8b", "gzip-compressed data"),
    (b"BZh", "bzip2-compressed data"),
    (b"\xfd7zXZ\x00", "xz-compressed data"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"\x00\x00\x01\x00", "an ICO image"),
    (b"ID3", "an MP3 file"),
    (b"OggS", "an Ogg file"),
    (b"\x7fELF", "an executable"),
    (b"MZ", "a Windows executable"),
    (b"wOFF", "a web font"),
    (b"wOF2", "a web font"),
    (b"\xd0\xcf\x11\xe0", "an old Office document"),
)

_META_CHARSET = re.compile(
    rb"""<meta[^>]{0,512}?charset\s*=\s*["']?\s*([a-zA-Z0-9_:.\-]{1,40})""", re.IGNORECASE
)
_XML_ENCODING = re.compile(rb"""^<\?xml[^>]{0,200}?encoding\s*=\s*["']([a-zA-Z0-9_.\-]{1,40})""")
_PRESCAN_BYTES = 2048


def normalise_label(label: str | None) -> str | None:
    """Map an encoding label to the Python codec a browser would use, or None if unknown."""
    if not label:
        return None
    try:
        name = codecs.lookup(label.strip().strip("\"'").lower()).name
    except LookupError:
        return None
    return _WHATWG_SUPERSETS.get(name.replace("-", "_"), name)


def sniff_binary(data: bytes) -> str | None:
    """Return a description of the binary format if ``data`` is clearly not a text page."""
    head = data[:16]
    for signature, description in _BINARY_SIGNATURES:
        if head.startswith(signature):
            if signature == b"RIFF" and data[8:12] not in (b"WEBP", b"WAVE", b"AVI "):
                continue
            return description
    if any(data.startswith(bom) for bom, _ in _BOMS):
        return None
    sample = data[:4096]
    if sample.count(0) > len(sample) // 100:
        return "binary data (it contains NUL bytes)"
    return None


def declared_encoding(data: bytes) -> str | None:
    """The charset a page declares in its first bytes (meta charset, http-equiv, XML declaration)."""
    head = data[:_PRESCAN_BYTES]
    match = _XML_ENCODING.match(head) or _META_CHARSET.search(head)
    if match is None:
        return None
    return normalise_label(match.group(1).decode("ascii", "replace"))


def _is_valid_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def detect_encoding(data: bytes) -> str:
    """Guess an undeclared page's encoding: UTF-8 when valid, else charset-normalizer, else cp1252."""
    if _is_valid_utf8(data):
        return "utf-8"
    from charset_normalizer import from_bytes

    best = from_bytes(data[:65536]).best()
    if best is None:
        return "cp1252"
    guess = normalise_label(best.encoding) or "cp1252"
    # charset-normalizer picks arbitrary single-byte Central/Eastern European code pages for
    # Western pages with a few typographic quotes; browsers default to windows-1252 there.
    if guess in ("cp1250", "cp775", "cp850", "cp437", "cp1257", "mac_roman", "latin_1"):
        return "cp1252"
    return guess


def decode(data: bytes, http_charset: str | None = None) -> tuple[str, str]:
    """Decode page bytes; return ``(text, encoding)``.

    Order: byte-order mark, the HTTP ``charset`` if given, the page's own declaration, then
    detection. A page declaring a legacy charset whose bytes are valid non-ASCII UTF-8 is read as
    UTF-8 (common after transcoding by a crawler). Undecodable bytes become U+FFFD.
    """
    if not data.strip():
        raise EmptyInputError("the page is empty")
    binary = sniff_binary(data)
    if binary:
        raise NotHTMLError(f"the input is not an HTML page: it looks like {binary}")
    for bom, name in _BOMS:
        if data.startswith(bom):
            return data[len(bom) :].decode(name, "replace"), name
    encoding = normalise_label(http_charset) or declared_encoding(data)
    if encoding is None:
        encoding = detect_encoding(data)
    elif encoding != "utf-8" and not data.isascii() and _is_valid_utf8(data):
        encoding = "utf-8"
    try:
        return data.decode(encoding, "replace"), encoding
    except LookupError:  # a codec Python lacks: fall back like a browser would
        return data.decode("cp1252", "replace"), "cp1252"
