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
