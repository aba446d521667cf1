"""Decoding follows the browsers' order: BOM, HTTP charset, declared charset, detection."""

import codecs

import pytest

from grist.errors import EmptyInputError, NotHTMLError
from grist.html.decode import decode, declared_encoding, normalise_label, sniff_binary


def test_bom_wins_over_declaration():
    data = codecs.BOM_UTF8 + '<meta charset="iso-8859-1"><p>café</p>'.encode("utf-8")
    text, encoding = decode(data)
    assert encoding == "utf-8"
    assert "café" in text and not text.startswith("\ufeff")


def test_utf16_bom():
    data = codecs.BOM_UTF16_LE + "<p>Grüße</p>".encode("utf-16-le")
    text, encoding = decode(data)
    assert (text, encoding) == ("<p>Grüße</p>", "utf-16-le")


def test_http_charset_beats_meta():
    data = '<meta charset="utf-8"><p>Привет</p>'.encode("koi8-r")
    text, encoding = decode(data, http_charset="koi8-r")
    assert encoding == "koi8-r" and "Привет" in text


def test_meta_charset_and_http_equiv_are_read():
    assert declared_encoding(b'<meta charset="windows-1251">') == "cp1251"
    http_equiv = b'<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">'
    assert declared_encoding(http_equiv) == "cp932"
    assert declared_encoding(b'<?xml version="1.0" encoding="ISO-8859-2"?><html>') == "iso8859-2"


def test_legacy_labels_map_to_browser_supersets():
    assert normalise_label("ISO-8859-1") == "cp1252"
    assert normalise_label("us-ascii") == "cp1252"
    assert normalise_label("gb2312") == "gb18030"
    assert normalise_label("no-such-charset") is None


def test_latin1_declared_page_with_windows_1252_quotes():
    data = '<meta charset="iso-8859-1"><p>\u201cquoted\u201d</p>'.encode("cp1252")
    text, _ = decode(data)
    assert "\u201cquoted\u201d" in text


def test_declared_legacy_charset_but_valid_utf8_is_read_as_utf8():
    data = '<meta charset="iso-8859-1"><p>naïve café</p>'.encode("utf-8")
    text, encoding = decode(data)
    assert encoding == "utf-8" and "naïve café" in text


def test_undeclared_legacy_page_is_detected():
    data = ("<html><body><p>" + "Ceci est une phrase en français, très élégante. " * 20 + "</p>")
    text, encoding = decode(data.encode("cp1252"))
    assert "français" in text and "élégante" in text


def test_wrong_bytes_never_fail():
    text, encoding = decode(b'<meta charset="utf-8"><p>bad \xff\xfe bytes</p>')
    assert "bad" in text and "bytes" in text and encoding == "utf-8"


def test_empty_input_is_refused():
    with pytest.raises(EmptyInputError):
        decode(b"  \n ")


@pytest.mark.parametrize(
    "data, kind",
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "PNG"),
        (b"%PDF-1.7\n%\xe2\xe3", "PDF"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "JPEG"),
        (b"\x1f\x8b\x08\x00\x00\x00", "gzip"),
        (b"abc\x00\x00\x00def\x00" * 50, "NUL"),
    ],
)
def test_binary_input_is_not_html(data, kind):
    assert sniff_binary(data) is not None
    with pytest.raises(NotHTMLError, match=kind):
        decode(data)


@pytest.mark.parametrize("label", ["undefined", "idna", "punycode", "rot13", "zlib", "base64",
                                   "unicode-escape", "utf-7", "cp037", "hz-gb-2312"])
def test_labels_outside_the_whatwg_table_are_ignored(label):
    # A label is looked up in the Encoding Standard's table only: Python's codec registry
    # would hand "idna" or "undefined" a page and raise UnicodeError (fuzz case 01).
    for page in (f"<meta charset={label}><p>caf\u00e9 au lait</p>",
                 f'<?xml version="1.0" encoding="{label}"?><p>caf\u00e9 au lait</p>'):
        text, encoding = decode(page.encode("utf-8"))
        assert "caf\u00e9" in text and encoding == "utf-8"
    text, encoding = decode("<p>caf\u00e9</p>".encode("utf-8"), http_charset=label)
    assert "caf\u00e9" in text


def test_whatwg_labels_and_their_browser_decoders():
    assert normalise_label("x-mac-cyrillic") == "mac-cyrillic"
    assert normalise_label(" Windows-874 ") == "cp874"
    assert normalise_label("gbk") == "gb18030" and normalise_label("unicode") == "utf-16-le"
    meta_utf16 = b'<meta charset="utf-16"><p>plain ASCII bytes</p>'
    assert decode(meta_utf16)[1] == "utf-8"  # a readable meta cannot be UTF-16
    user_defined = b"<meta charset=x-user-defined><p>caf\xe9</p>"
    assert decode(user_defined) == ("<meta charset=x-user-defined><p>caf\u00e9</p>", "cp1252")


def test_utf16_without_byte_order_mark_is_read():
    page = "<html><body><p>Gr\u00fc\u00dfe aus der Stadt am Fluss</p></body></html>"
    for codec in ("utf-16-le", "utf-16-be"):
        text, encoding = decode(page.encode(codec))
        assert (text, encoding) == (page, codec)


def test_random_bytes_are_not_html():
    import random

    for size in (300, 5000, 100_000):
        with pytest.raises(NotHTMLError, match="control"):
            decode(random.Random(size).randbytes(size).replace(b"\x00", b"\x01"))
    # A few stray control characters in a real page do not make it binary.
    text, _ = decode(b"<p>" + b"words of a page, " * 40 + b"\x01\x02\x1b[0m</p>")
    assert "words" in text


@pytest.mark.parametrize("codec", ["utf-32", "utf-32-be"])
def test_utf32_is_named_as_such(codec):
    """Browsers do not read UTF-32 (WHATWG): its byte-order mark was taken for UTF-16's and the
    page refused as "control characters (utf-16-le)", which told the user nothing."""
    page = "<html><body><p>A page saved as UTF-32 by an editor.</p></body></html>"
    data = page.encode(codec)
    if codec == "utf-32-be":
        data = b"\x00\x00\xfe\xff" + data
    with pytest.raises(NotHTMLError, match="UTF-32 text, which browsers do not read"):
        decode(data)
    assert decode(page.encode("utf-16"))[0] == page  # UTF-16's mark is still UTF-16
