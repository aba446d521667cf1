"""Decode page bytes as browsers do (WHATWG order: BOM, HTTP/meta charset, detection).

A page is never dropped because decoding failed: undecodable bytes become U+FFFD.
Binary data (images, PDFs, archives) is refused with NotHTMLError.
"""

from __future__ import annotations

import codecs
import re

import webencodings

from grist.errors import EmptyInputError, NotHTMLError
from grist.html.sniff import BOMS, looks_binary, sniff_binary, utf16_without_bom

# The WHATWG encodings (webencodings holds the label table) that grist decodes with another
# Python codec than webencodings chooses: GBK's decoder is gb18030's in the Encoding Standard.
_DECODERS = {"gbk": "gb18030"}
# A label that names the "replacement" encoding (ISO-2022-KR, HZ, ...) makes a browser show one
# U+FFFD; a page declaring one is read as if it declared nothing.
_REFUSED = "replacement"
# What a page's own declaration may not say (Encoding Standard, "prescan"): it was readable as
# ASCII, so it is not UTF-16; x-user-defined means windows-1252 there.
_DECLARED = {"utf-16le": "utf-8", "utf-16be": "utf-8", "x-user-defined": "windows-1252"}
# charset-normalizer's arbitrary single-byte Central/Eastern European code-page guesses for
# Western pages with a few typographic quotes; browsers default to windows-1252 there.
_WESTERN_GUESSES = frozenset(("windows-1250", "windows-1257", "macintosh", "ibm866"))
# Python codec -> WHATWG encoding, to read charset-normalizer's guesses (Python codec names).
_BY_CODEC = {codecs.lookup(e.codec_info.name).name: e.name for e in map(
    webencodings.lookup, webencodings.LABELS.values()) if e.name not in ("x-user-defined", _REFUSED)}

_META_CHARSET = re.compile(
    rb"""<meta[^>]{0,512}?charset\s*=\s*["']?\s*([a-zA-Z0-9_:.\-]{1,40})""", re.IGNORECASE
)
_XML_ENCODING = re.compile(rb"""^<\?xml[^>]{0,200}?encoding\s*=\s*["']([a-zA-Z0-9_.\-]{1,40})""")
_PRESCAN_BYTES = 2048


def whatwg_encoding(label: str | None) -> str | None:
    """The WHATWG encoding a label names (``latin1`` -> ``windows-1252``), or None for a label
    the Encoding Standard does not know or that names the "replacement" encoding. Labels never
    reach Python's codec registry, which knows non-text codecs (``idna``, ``rot13``, ``zlib``)."""
    if not label:
        return None
    found = webencodings.lookup(label.strip().strip("\"'"))
    if found is None or found.name == _REFUSED:
        return None
    return found.name


def codec_of(encoding: str) -> codecs.CodecInfo:
    """The Python codec grist decodes a WHATWG encoding with."""
    name = _DECODERS.get(encoding)
    return codecs.lookup(name) if name else webencodings.lookup(encoding).codec_info


def normalise_label(label: str | None) -> str | None:
    """Map an encoding label to the Python codec a browser's decoder matches, or None if unknown."""
    encoding = whatwg_encoding(label)
    return codec_of(encoding).name if encoding else None


def declared_encoding(data: bytes) -> str | None:
    """The charset a page declares in its first bytes (meta charset, http-equiv, XML declaration)."""
    head = data[:_PRESCAN_BYTES]
    match = _XML_ENCODING.match(head) or _META_CHARSET.search(head)
    if match is None:
        return None
    encoding = whatwg_encoding(match.group(1).decode("ascii", "replace"))
    return codec_of(_DECLARED.get(encoding, encoding)).name if encoding else None


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
    guess = None
    if best is not None:  # a Python codec name: charset-normalizer tries only real codecs
        guess = _BY_CODEC.get(codecs.lookup(best.encoding).name) \
            or whatwg_encoding(best.encoding.replace("_", "-"))
    if guess is None or guess in _WESTERN_GUESSES:  # not a web encoding, or an arbitrary one
        return "cp1252"
    return codec_of(guess).name


def decode(data: bytes, http_charset: str | None = None) -> tuple[str, str]:
    """Decode page bytes; return ``(text, encoding)``.

    Order: byte-order mark, the HTTP ``charset`` if given, the page's own declaration, then
    detection (UTF-16 without a byte-order mark is recognised by its NUL bytes). A page declaring
    a legacy charset whose bytes are valid non-ASCII UTF-8 is read as UTF-8 (common after
    transcoding by a crawler). Undecodable bytes become U+FFFD; text with too many control
    characters (random or compressed bytes; see grist.html.sniff) is refused with NotHTMLError.
    """
    if not data.strip():
        raise EmptyInputError("the page is empty")
    binary = sniff_binary(data)
    if binary:
        raise NotHTMLError(f"the input is not an HTML page: it looks like {binary}")
    text, encoding = _decode(data, http_charset)
    if looks_binary(text):
        raise NotHTMLError("the input is not an HTML page: it decodes to control characters "
                           f"({encoding}), as random or compressed bytes do")
    return text, encoding


def _decode(data: bytes, http_charset: str | None) -> tuple[str, str]:
    for bom, name in BOMS:
        if data.startswith(bom):
            return data[len(bom) :].decode(name, "replace"), name
    encoding = normalise_label(http_charset) or declared_encoding(data) or utf16_without_bom(data)
    if encoding is None:
        encoding = detect_encoding(data)
    elif encoding != "utf-8" and not data.isascii() and _is_valid_utf8(data):
        encoding = "utf-8"
    info = codecs.lookup(encoding) if encoding != "x-user-defined" else codec_of(encoding)
    return info.decode(data, "replace")[0], encoding
