"""The WARC reader: pages with their URL, date and HTTP charset; every damaged record or byte range
an error item with its offset; records that are not pages counted, never lost."""

from __future__ import annotations

import gzip

import pytest

from grist.errors import NotWarcError
from grist.io.warc import read_warc, warc_pages
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
    assert not items[0].is_page and not items[2].is_page
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
