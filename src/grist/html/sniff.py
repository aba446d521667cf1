"""Tell pages from payloads that are not text: magic numbers, NUL bytes, and decoded text made of
control and undecodable characters (random or compressed bytes without a known header).

The share rule was measured on every page of the shared datasets (docs/decisions.md, "Random and
binary bytes"): no real page comes near the threshold, random bytes are far above it.
"""

from __future__ import annotations

import codecs
import re

try:  # the count compiled (built with the package when a C compiler is there)
    from grist.html._scan import controls as _count_controls
except ImportError:  # pragma: no cover - an install without a compiler
    _count_controls = None

# Magic numbers of common non-HTML payloads a crawler meets. UTF-32 comes first: browsers do not
# read it (WHATWG), and its little-endian byte-order mark starts with UTF-16's.
BINARY_SIGNATURES = (
    (b"\xff\xfe\x00\x00", "UTF-32 text, which browsers do not read (convert it to UTF-8)"),
    (b"\x00\x00\xfe\xff", "UTF-32 text, which browsers do not read (convert it to UTF-8)"),
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
BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# Characters no text page is made of: C0 controls but tab, newlines and form feed; DEL and the C1
# controls. Random bytes decode to about 11 % of them in any encoding. U+FFFD (undecodable
# bytes) does not count: a Western page mis-declared as UTF-8 is full of it and still a page.
_NOISE = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")
# Share (and least number) of noise characters from which decoded text is refused (measured:
# see the module doc).
NOISE_SHARE = 0.02
NOISE_COUNT = 8
_WINDOWS, _WINDOW = 8, 8192  # text sampled in this many windows of this many characters


def sniff_binary(data: bytes) -> str | None:
    """Return a description of the binary format if ``data`` is clearly not a text page."""
    head = data[:16]
    for signature, description in BINARY_SIGNATURES:
        if head.startswith(signature):
            if signature == b"RIFF" and data[8:12] not in (b"WEBP", b"WAVE", b"AVI "):
                continue
            return description
    if any(data.startswith(bom) for bom, _ in BOMS) or utf16_without_bom(data):
        return None
    sample = data[:4096]
    if sample.count(0) > len(sample) // 100:
        return "binary data (it contains NUL bytes)"
    return None


def utf16_without_bom(data: bytes) -> str | None:
    """``utf-16-le``/``utf-16-be`` when the bytes look like mostly-ASCII UTF-16 text without a
    byte-order mark (nearly every other byte is NUL, the rest almost never), else None."""
    sample = data[:4096]
    half = len(sample) // 2
    if half < 8:
        return None
    even, odd = sample[0 : 2 * half : 2].count(0), sample[1 : 2 * half : 2].count(0)
    if odd >= 0.9 * half and even <= 0.05 * half:
        return "utf-16-le"
    if even >= 0.9 * half and odd <= 0.05 * half:
        return "utf-16-be"
    return None


def controls(text: str, start: int, end: int) -> int:
    """The ``_NOISE`` characters of ``text[start:end]`` (counted in C when it was built)."""
    if _count_controls is not None:
        return _count_controls(text, start, end)
    return len(_NOISE.findall(text, start, end))


def noise(text: str) -> tuple[int, int]:
    """Control characters found in ``text``, and characters looked at (long texts are sampled in
    evenly spaced windows)."""
    if len(text) <= _WINDOWS * _WINDOW:
        return controls(text, 0, len(text)), len(text)
    step = (len(text) - _WINDOW) // (_WINDOWS - 1)
    found = sum(controls(text, i * step, i * step + _WINDOW) for i in range(_WINDOWS))
    return found, _WINDOWS * _WINDOW


def looks_binary(text: str) -> bool:
    """Whether decoded text is too noisy to be a page (random or compressed bytes, binaries)."""
    found, seen = noise(text)
    return found >= NOISE_COUNT and found >= NOISE_SHARE * seen
