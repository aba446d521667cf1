"""The WARC reader: pages with their URL, date and HTTP charset; every damaged record or byte range
an error item with its offset; records that are not pages counted, never lost."""

from __future__ import annotations

import gzip
import re
import zlib

import brotli
import pytest

from grist.errors import GristError, NotWarcError, WarcError
from grist.io.sources import Skipped
from grist.io.warc import read_record, read_warc, warc_pages
from warc_files import page_html, response, warc_record, write_warc


def test_pages_carry_url_date_charset_and_offset(tmp_path):
    latin = ("<html><body><p>Caf\xe9 cr\xe8me, a page in Latin-1 with enough words.</p>"
             "</body></html>")
    records = [warc_record("warcinfo", 90, b"software: test\r\n",
                           content_type="application/warc-fields"),
               response(1), warc_record("request", 91, b"GET /1 HTTP/1.1\r\n\r\n",
                                        url="https://site1.example/1",
                                        content_type="application/http; msgtype=request"),
               response(2, latin.encode("latin-1"), content_type="text/html; charset=ISO-8859-1")]
    offsets = write_warc(tmp_path / "a.warc.gz", records)
    items = list(read_warc(tmp_path / "a.warc.gz"))
    assert [i.record_type for i in items] == ["warcinfo", "response", "request", "response"]
    assert [i.offset for i in items] == offsets
    page = items[1].page
    assert page.url == "https://site1.example/1" and page.date == "2024-05-06T07:08:09Z"
    assert page.input == "<urn:uuid:00000000-0000-0000-0000-000000000001>"
    assert items[3].page.http_charset and b"Caf\xe9" in items[3].page.content
    assert [(i.page, i.error) for i in (items[0], items[2])] == [(None, None)] * 2
    assert items[2].entry() == Skipped(items[2].input, "a request record, not a page",
                                       "request")
    import grist
    assert "Café crème" in grist.extract(items[3].page, method="lineblock").text
    assert [p.url for p in warc_pages(tmp_path / "a.warc.gz")] == [
        "https://site1.example/1", "https://site2.example/2"]


def test_bad_records_become_errors_with_offsets(tmp_path):
    records = [response(0),
               response(1, b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, content_type="image/png"),
               response(2, b"%PDF-1.4 \x00\x01\x02" * 50, content_type="text/html"),
               response(3, page_html(3) + "x" * 5000),
               response(4)]
    offsets = write_warc(tmp_path / "b.warc.gz", records)
    from grist.limits import Limits
    items = list(read_warc(tmp_path / "b.warc.gz", Limits(max_bytes=4000)))
    assert [i.offset for i in items] == offsets
    assert items[0].page and items[4].page
    assert items[1].error.reason == "not-html" and "image/png" in str(items[1].error)
    assert items[2].page is not None  # declared HTML: the extraction refuses the binary bytes
    with pytest.raises(Exception, match="not an HTML page"):
        import grist
        grist.extract(items[2].page)
    assert items[3].error.reason == "limit-exceeded"


@pytest.mark.parametrize("compress", [True, False])
@pytest.mark.parametrize("delta", [40, -40, 5000])
def test_a_wrong_length_costs_only_its_record(tmp_path, compress, delta):
    records = [response(n) for n in range(4)]
    length = len(records[1].split(b"\r\n\r\n", 1)[1]) - 4
    records[1] = warc_record("response", 1, records[1].split(b"\r\n\r\n", 1)[1][:-4],
                             url="https://site1.example/1", length=length + delta)
    path = tmp_path / ("c.warc.gz" if compress else "c.warc")
    offsets = write_warc(path, records, compress)
    items = list(read_warc(path))
    assert len(items) == 4
    assert [i.page is not None for i in items] == [True, False, True, True]
    assert items[1].offset == offsets[1] and items[1].error.reason == "warc-error"
    assert "length does not match" in str(items[1].error)
    assert [i.page.url for i in items if i.page] == [
        "https://site0.example/0", "https://site2.example/2", "https://site0.example/3"]


def test_corrupt_member_garbage_and_cut_off_end(tmp_path):
    records = [response(n) for n in range(5)]
    path = tmp_path / "d.warc.gz"
    offsets = write_warc(path, records)
    data = bytearray(path.read_bytes())
    data[offsets[2] + 30: offsets[2] + 40] = b"\x00" * 10  # a bad gzip member
    data += b"trailing garbage\n" * 3
    path.write_bytes(bytes(data))
    items = list(read_warc(path))
    end = offsets[-1] + len(gzip.compress(records[4], mtime=0))
    assert [i.offset for i in items] == [*offsets, end]
    assert [bool(i.page) for i in items] == [True, True, False, True, True, False]
    assert "bytes" in str(items[2].error) and str(offsets[2]) in str(items[2].error)
    cut = tmp_path / "e.warc.gz"
    cut.write_bytes(path.read_bytes()[: offsets[4] + 20])
    items = list(read_warc(cut))
    assert items[-1].offset == offsets[4] and items[-1].error is not None
    assert "ends inside a record" in str(items[-1].error)


def test_plain_warc_cut_off(tmp_path):
    path = tmp_path / "f.warc"
    offsets = write_warc(path, [response(n) for n in range(3)], compress=False)
    path.write_bytes(path.read_bytes()[:-60])
    items = list(read_warc(path))
    assert [i.offset for i in items] == offsets
    assert "cut off" in str(items[2].error)


@pytest.mark.parametrize("content", [b"<html><body>not a warc</body></html>", b"",
                                     gzip.compress(b"<html>zipped page</html>")])
def test_not_a_warc(tmp_path, content):
    path = tmp_path / "g.warc.gz"
    path.write_bytes(content)
    with pytest.raises(NotWarcError, match="not a WARC file"):
        list(read_warc(path))


def test_http_content_and_transfer_encodings_are_decoded(tmp_path):
    html = page_html(5).encode()
    zipped = gzip.compress(html)
    chunked = b"".join(b"%x\r\n%s\r\n" % (len(zipped[i:i + 50]), zipped[i:i + 50])
                       for i in range(0, len(zipped), 50)) + b"0\r\n\r\n"
    http = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n" + chunked)
    write_warc(tmp_path / "h.warc.gz", [warc_record("response", 1, http, url="https://e.example/")])
    (item,) = read_warc(tmp_path / "h.warc.gz")
    assert item.page.content == html


def test_a_whole_file_gzip_stream_is_read(tmp_path):
    path = tmp_path / "w.warc.gz"
    path.write_bytes(gzip.compress(b"".join(response(n) for n in range(4))))
    items = list(read_warc(path))
    assert [i.page.url for i in items] == [f"https://site{n % 3}.example/{n}" for n in range(4)]


URLS = [f"https://site{n % 3}.example/{n}" for n in range(8)]


def pages_and_errors(path) -> list[tuple[int, str | None, bool]]:
    """(offset, page URL or None, has an error) of every item."""
    return [(i.offset, i.page.url if i.page else None, i.error is not None)
            for i in read_warc(path)]


# the first member's deflate data (not even its WARC header decodes), or its gzip magic
@pytest.mark.parametrize("damaged", [slice(12, 40), slice(2, 3)])
def test_a_damaged_first_member_costs_only_its_record(tmp_path, damaged):
    path = tmp_path / "first.warc.gz"
    offsets = write_warc(path, [response(n) for n in range(8)])
    data = bytearray(path.read_bytes())
    data[damaged] = bytes(damaged.stop - damaged.start)
    path.write_bytes(bytes(data))
    items = list(read_warc(path))
    assert items[0].offset == 0 and items[0].error is not None and items[0].page is None
    assert f"bytes 0-{offsets[1]}" in str(items[0].error)
    assert [i.page.url for i in items[1:]] == URLS[1:]


def test_a_cut_from_the_first_member_into_the_fourth_loses_only_those(tmp_path):
    path = tmp_path / "cut.warc.gz"
    offsets = write_warc(path, [response(n) for n in range(8)])
    data = path.read_bytes()
    start, end = offsets[0] + 200, offsets[3] + 50  # the first record's header still decodes
    path.write_bytes(data[:start] + data[end:])
    found = pages_and_errors(path)
    assert found[0] == (0, None, True)
    assert [url for _, url, _ in found[1:]] == URLS[4:]
    assert [offset for offset, _, _ in found[1:]] == [o - (end - start) for o in offsets[4:]]


def test_a_damaged_header_blames_its_own_record_not_the_one_before(tmp_path):
    path = tmp_path / "header.warc"
    offsets = write_warc(path, [response(n) for n in range(6)], compress=False)
    data = bytearray(path.read_bytes())
    data[offsets[3] + 2: offsets[3] + 12] = bytes(10)  # "WA" then zeros: no record starts here
    path.write_bytes(bytes(data))
    found = pages_and_errors(path)
    assert found[:3] == [(offsets[n], URLS[n], False) for n in range(3)]
    assert found[3][:2] == (offsets[3], None) and found[3][2]
    assert [url for _, url, _ in found[4:]] == URLS[4:6]


def test_a_record_read_past_its_end_does_not_hide_the_next_one(tmp_path):
    # Record 2 loses "gth: N\r\n" of its WARC Content-Length line, so its WARC header runs on
    # into the HTTP header, whose Content-Length the reader then takes for the record's: it ends
    # exactly where record 3 starts, and record 3 must still be read.
    path = tmp_path / "length.warc"
    offsets = write_warc(path, [response(n) for n in range(6)], compress=False)
    data = path.read_bytes()
    cut = data.index(b"Content-Length:", offsets[2]) + len(b"Content-Len")
    line_end = data.index(b"\r\n", cut) + 2
    path.write_bytes(data[:cut] + data[line_end:])
    shift = line_end - cut
    found = pages_and_errors(path)
    assert found[:2] == [(offsets[n], URLS[n], False) for n in range(2)]
    assert found[2] == (offsets[2], None, True)
    assert found[3:] == [(offsets[n] - shift, URLS[n], False) for n in range(3, 6)]


@pytest.mark.parametrize("compress", [True, False])
def test_no_damage_costs_a_record_it_does_not_touch(tmp_path, compress):
    """One random flip, zeroing, cut, insertion or duplication of 1-1,000 bytes per file (fixed
    seeds): every record whose bytes it leaves alone is still read as a page, and every item is
    a page, an error or a record of a type that is not a page."""
    import random

    records = [response(n) for n in range(12)]
    urls = [f"https://site{n % 3}.example/{n}" for n in range(12)]
    for case in range(60):
        rng = random.Random(case)
        path = tmp_path / f"m{case}.warc{'.gz' if compress else ''}"
        offsets = write_warc(path, records, compress)
        data = bytearray(path.read_bytes())
        ends = [*offsets[1:], len(data)]
        kind = rng.choice(["flip", "zero", "cut", "insert", "dup"])
        at, size = rng.randrange(len(data)), rng.choice([1, 3, 10, 100, 1000])
        if kind == "flip":
            for i in range(at, min(at + size, len(data))):
                data[i] ^= rng.randrange(1, 256)
        elif kind == "zero":
            data[at:at + size] = bytes(len(data[at:at + size]))
        elif kind == "cut":
            del data[at:at + size]
        else:
            data[at:at] = bytes(rng.randrange(256) for _ in range(size)) if kind == "insert" \
                else data[at:at + size]
        path.write_bytes(bytes(data))
        reach = at + (size if kind in ("flip", "zero", "cut") else 1)
        untouched = [urls[n] for n in range(12) if not (offsets[n] < reach and at < ends[n])]
        items = list(read_warc(path))
        assert all(not (i.page and i.error) for i in items), (case, kind, at, size)
        read = {i.page.url for i in items if i.page}
        assert set(untouched) <= read, (case, kind, at, size)


HTML = page_html(1).encode()
ZIPPED = gzip.compress(HTML)


def chunked(data: bytes) -> bytes:
    """``data`` in HTTP chunked transfer coding, 50 bytes a chunk."""
    return b"".join(b"%x\r\n%s\r\n" % (len(data[i:i + 50]), data[i:i + 50])
                    for i in range(0, len(data), 50)) + b"0\r\n\r\n"


def encoded(body: bytes, coding: str, chunks: bool = False) -> bytes:
    """Response record 1, its payload ``body`` sent with Content-Encoding ``coding``."""
    extra = f"Content-Encoding: {coding}\r\n"
    if chunks:
        return warc_record("response", 1, (
            f"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n{extra}"
            "Transfer-Encoding: chunked\r\n\r\n").encode() + chunked(body),
            url="https://site1.example/1")
    return response(1, body, extra=extra)


@pytest.mark.parametrize(("body", "coding", "chunks"), [
    (ZIPPED, "gzip", False), (ZIPPED, "x-gzip", True), (zlib.compress(HTML), "deflate", False),
    (zlib.compress(HTML, wbits=-15), "deflate", False),  # raw deflate, as browsers accept
    (zlib.compress(HTML, wbits=-15), "deflate", True), (brotli.compress(HTML), "br", False),
    (gzip.compress(HTML[:40]) + gzip.compress(HTML[40:]), "gzip", False),  # two members
    (gzip.compress(zlib.compress(HTML)), "deflate, gzip", True), (HTML, "identity", True)],
    ids=["gzip", "x-gzip-chunked", "deflate", "raw-deflate", "raw-deflate-chunked", "br",
         "two-members", "stacked-chunked", "identity-chunked"])
def test_encoded_payloads_are_decoded(tmp_path, body, coding, chunks):
    write_warc(tmp_path / "enc.warc.gz", [encoded(body, coding, chunks)])
    (item,) = read_warc(tmp_path / "enc.warc.gz")
    assert item.page.content == HTML


@pytest.mark.parametrize(("body", "coding", "reason", "message"), [
    (ZIPPED[: len(ZIPPED) // 2], "gzip", "corrupt-input",
     "the record's payload is cut off or damaged: its gzip data ends early"),
    (ZIPPED[:60], "gzip", "corrupt-input", "its gzip data ends early"),
    (zlib.compress(HTML, wbits=-15)[:-20], "deflate", "corrupt-input", "its deflate data ends"),
    (brotli.compress(HTML)[:30], "br", "corrupt-input", "its br data ends early"),
    (ZIPPED[:20] + bytes(20) + ZIPPED[40:], "gzip", "corrupt-input",
     r"does not decompress as its Content-Encoding says \(gzip: "),
    (HTML, "x-weird", "warc-error",
     r"encoded as x-weird \(its Content-Encoding\), which grist cannot decode")],
    ids=["gzip-half", "gzip-60-bytes", "raw-deflate-cut", "br-cut", "gzip-damaged", "unknown"])
def test_a_cut_off_or_damaged_payload_costs_only_its_record(tmp_path, body, coding, reason,
                                                            message):
    path = tmp_path / "cut.warc.gz"
    offsets = write_warc(path, [response(0), encoded(body, coding), response(2)])
    items = list(read_warc(path))
    assert [i.offset for i in items] == offsets
    assert [i.page.url if i.page else None for i in items] == [URLS[0], None, URLS[2]]
    assert items[1].error.reason == reason and items[1].url == URLS[1]
    assert re.search(message, str(items[1].error))


def test_the_size_cap_holds_once_a_payload_is_decoded(tmp_path):
    write_warc(tmp_path / "bomb.warc.gz",
               [encoded(gzip.compress(b"<p>" + b"x" * 100_000), "gzip")])
    from grist.limits import Limits
    (item,) = read_warc(tmp_path / "bomb.warc.gz", Limits(max_bytes=50_000))
    assert item.error.reason == "limit-exceeded" and "once decoded" in str(item.error)


def test_read_record_reads_one_record_and_says_why_it_cannot(tmp_path):
    path = tmp_path / "crawl.warc.gz"
    offsets = write_warc(path, [response(n) for n in range(3)])
    assert read_record(path, offsets[2]).page.url == "https://site2.example/2"
    with pytest.raises(GristError, match="cannot read .*missing.warc.gz: No such file"):
        read_record(tmp_path / "missing.warc.gz", 0)
    with pytest.raises(GristError, match="Is a directory"):
        read_record(tmp_path, 0)
    for offset in (-5, path.stat().st_size + 10):
        with pytest.raises(WarcError, match=f"no WARC record at offset {offset} of "):
            read_record(path, offset)
    for offset in (None, 0.5):
        with pytest.raises(TypeError, match="offset must be an int"):
            read_record(path, offset)


@pytest.mark.parametrize("compress", [True, False], ids=["gz", "plain"])
@pytest.mark.parametrize("damage", ["cut", "length"])
def test_a_damaged_record_error_names_its_url_and_date(tmp_path, compress, damage):
    path = tmp_path / ("d.warc.gz" if compress else "d.warc")
    second = response(2) if damage == "cut" else warc_record(
        "response", 2, response(2)[-200:], url="https://site2.example/2", length=150)
    write_warc(path, [response(1), second], compress=compress)
    if damage == "cut":
        path.write_bytes(path.read_bytes()[:-300 if not compress else -100])
    items = list(read_warc(path))
    assert isinstance(items[-1].error, WarcError) and items[-1].page is None
    assert (items[-1].url, items[-1].date) == ("https://site2.example/2", "2024-05-06T07:08:09Z")
