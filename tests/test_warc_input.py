"""WARC input as crawls write it, odd parts included: HTTP statuses, text that is not HTML,
chunked bodies, LF-only headers, a .gz compressed as one stream, ARC files; and the date of a
WARC output's warcinfo record. Every file is built here, byte by byte."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from grist.io.sources import Skipped, Source, Unreadable
from grist.io.warc import read_warc
from grist.stream.replay import replay_pages
from test_batch import grist, outputs
from warc_files import page_html, warc_record, write_warc


def http(body: bytes, status: str = "200 OK", content_type: str = "text/html",
         headers: tuple[tuple[str, str], ...] = (), eol: str = "\r\n") -> bytes:
    """An HTTP response: its status line, Content-Type, ``headers`` (a Content-Length unless
    chunked), lines ending in ``eol``."""
    fields = [("Content-Type", content_type), *headers]
    if not any(name == "Transfer-Encoding" for name, _ in fields):
        fields.append(("Content-Length", str(len(body))))
    lines = [f"HTTP/1.1 {status}", *(f"{name}: {value}" for name, value in fields)]
    return (eol.join(lines) + eol + eol).encode() + body


def chunked(body: bytes, size: int = 50) -> bytes:
    """``body`` in the chunked Transfer-Encoding, ``size`` bytes a chunk."""
    pieces = [body[i:i + size] for i in range(0, len(body), size)]
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n"


def record(number: int, block: bytes, url: str | None = None) -> bytes:
    """A response record of page ``number`` holding ``block``."""
    return warc_record("response", number, block, url=url or f"https://w.example/{number}")


def page(number: int) -> bytes:
    return record(number, http(page_html(number).encode()))


def test_a_response_that_is_not_2xx_is_an_http_status_error(tmp_path: Path) -> None:
    """404, 500 and 301 answers were extracted as pages ("Moved Permanently ...")."""
    moved = b"<html><body><h1>Moved Permanently</h1><p>The document has moved.</p></body></html>"
    write_warc(tmp_path / "s.warc.gz", [
        page(0), record(1, http(page_html(1).encode(), "404 Not Found")),
        record(2, http(moved, "301 Moved Permanently", headers=(("Location", "/x"),))),
        record(3, http(page_html(3).encode(), "500 Internal Server Error")),
        record(4, http(b"", "204 No Content"))])
    items = list(read_warc(tmp_path / "s.warc.gz"))
    assert items[0].page is not None and items[4].page is not None
    assert [(i.error.reason, str(i.error)) for i in items[1:4]] == [
        ("http-status", "HTTP 404 Not Found"), ("http-status", "HTTP 301 Moved Permanently"),
        ("http-status", "HTTP 500 Internal Server Error")]
    assert items[1].url == "https://w.example/1"
    done = grist("batch", str(tmp_path / "s.warc.gz"), "--out", str(tmp_path / "out"), "-j", "1")
    assert "5 pages, 1 result, 4 errors (1 empty-input, 3 http-status)" in done.stderr


@pytest.mark.parametrize(("content_type", "body", "is_page"), [
    ("text/plain", b"User-agent: *\nDisallow: /private\n", False),
    ("application/xml", b'<?xml version="1.0"?><urlset><url><loc>https://w.example/a</loc>'
                        b"</url></urlset>", False),
    ("text/xml", b'<?xml version="1.0"?><rss><channel><title>News</title><item><title>A</title>'
                 b"<description>Words</description></item></channel></rss>", False),
    ("application/xml", b"<feed><title>Atom</title><entry><title>A</title></entry></feed>", False),
    ("text/plain", page_html(7).encode(), True),
    ("application/xml", b'<?xml version="1.0"?>' + page_html(8).encode(), True)],
    ids=["robots", "sitemap", "rss", "atom", "html-as-text", "xhtml-as-xml"])
def test_text_and_xml_records_are_pages_only_when_they_sniff_as_html(
        tmp_path: Path, content_type: str, body: bytes, is_page: bool) -> None:
    """robots.txt, sitemaps and feeds were results (text/plain and XML counted as HTML)."""
    write_warc(tmp_path / "t.warc.gz", [record(1, http(body, content_type=content_type))])
    (item,) = read_warc(tmp_path / "t.warc.gz")
    if is_page:
        assert item.page is not None and item.page.content == body
    else:
        assert item.error.reason == "not-html"
        assert str(item.error).startswith(f"the record is {content_type}, not an HTML page (")


def test_a_bad_chunked_body_is_corrupt_input_said_briefly(tmp_path: Path) -> None:
    """Raw gzip bytes went into the message (FastWARC's chunk header error) as warc-error, and a
    cut-off chunked body at the end of a file added an error record for no bytes. A body stored
    de-chunked under its chunked header is read as it is, as warcio reads it."""
    html = page_html(1).encode()
    stored_plain = http(gzip.compress(html), headers=(
        ("Content-Encoding", "gzip"), ("Transfer-Encoding", "chunked")))
    cut = http(chunked(html)[:300], headers=(("Transfer-Encoding", "chunked"),))
    extended = http(chunked(html).replace(b"\r\n", b";name=x\r\n", 1),
                    headers=(("Transfer-Encoding", "chunked"),))
    bad_size = http(chunked(html).replace(b"\r\n", b"\r\nzz\r\n", 2)[:400],
                    headers=(("Transfer-Encoding", "chunked"),))
    for compress in (True, False):
        path = tmp_path / ("c.warc.gz" if compress else "c.warc")
        write_warc(path, [record(1, stored_plain), record(2, extended), record(3, cut),
                          record(4, bad_size)], compress)
        items = list(read_warc(path))
        assert len(items) == 4 and items[0].page.content == items[1].page.content == html
        assert [i.error.reason for i in items[2:]] == ["corrupt-input"] * 2
        assert str(items[2].error) == ("the record's chunked payload is cut off before its last "
                                       "chunk")
        assert str(items[3].error) == ("the record's chunked payload is damaged: a chunk holds "
                                       "more data than its size says")


def test_http_headers_ending_in_lf_alone_are_read(tmp_path: Path) -> None:
    """An older crawl's LF-only header lines were a warc-error (no HTTP response)."""
    latin = "<html><body><p>Caf\xe9 cr\xe8me, in Latin-1.</p></body></html>".encode("latin-1")
    write_warc(tmp_path / "lf.warc", [
        record(1, http(latin, content_type="text/html; charset=ISO-8859-1", eol="\n")),
        record(2, http(b"gone", "404 Not Found", eol="\n")),
        record(3, b"\r\n" + http(page_html(3).encode())),
        record(4, b"not an HTTP response at all\r\n\r\n")], compress=False)
    items = list(read_warc(tmp_path / "lf.warc"))
    assert items[0].page.content == latin and items[0].page.http_charset == "iso-8859-1"
    assert str(items[1].error) == "HTTP 404 Not Found"
    assert items[2].page is not None
    assert items[3].error.reason == "warc-error" and "no HTTP response" in str(items[3].error)


def whole_gzip(path: Path, pages: int) -> None:
    """A WARC file gzip-compressed as one stream (not one member per record)."""
    path.write_bytes(gzip.compress(b"".join(
        record(n, http(page_html(n).encode()), url=f"https://a.example/{n}")
        for n in range(pages))))


def test_a_warc_compressed_as_one_stream_has_no_offsets_and_site_aware_reads_it(
        tmp_path: Path) -> None:
    """Every record had the file's size as its offset, and --site-aware stopped the job (no WARC
    record at that offset); time-ordered replay stopped after the first page."""
    path = tmp_path / "whole.warc.gz"
    whole_gzip(path, 8)
    items = list(read_warc(path))
    assert [i.offset for i in items] == [None] * 8 and all(i.page for i in items)
    done = grist("batch", str(path), "--out", str(tmp_path / "out"), "--site-aware", "-j", "1")
    assert done.returncode == 0, done.stderr
    records = outputs(tmp_path / "out")
    assert len(records) == 8 and all("text" in r and "offset" not in r for r in records)
    assert (tmp_path / "out" / "sites" / "site-00000.json.gz").exists()
    replayed = list(replay_pages([path]))
    assert [p.url for p in replayed] == [f"https://a.example/{n}" for n in range(8)]


def test_damage_in_a_warc_compressed_as_one_stream_ends_the_file(tmp_path: Path) -> None:
    """No byte range of a compressed file's size is named: only the rest of the file. The record
    the damage is in is the error (it was a page of what could be read of it, and the file an
    error more)."""
    path = tmp_path / "whole.warc.gz"
    whole_gzip(path, 4)
    path.write_bytes(path.read_bytes()[:-30])
    items = list(read_warc(path))
    assert all(i.offset is None for i in items) and [bool(i.page) for i in items] == [
        True, True, False]
    assert items[-1].error.reason == "warc-error" and items[-1].url == "https://a.example/2"
    assert str(items[-1].error) == (
        "the gzip data is cut off or damaged in the record; "
        f"the rest of {path} skipped (compressed as one gzip stream, it cannot be read past "
        "damage)")
    path.write_bytes(path.read_bytes()[:200] + bytes(20) + path.read_bytes()[220:])
    items = list(read_warc(path))
    assert items[-1].error.reason == "warc-error" and all(i.offset is None for i in items)
    assert str(items[-1].error).endswith(
        f"the rest of {path} skipped (compressed as one gzip stream, it cannot be read past "
        "damage)")


def arc_file() -> bytes:
    """An ARC file: its filedesc header, then three records of an HTML page each."""
    def one(number: int) -> bytes:
        response = http(page_html(number).encode())
        return (f"http://c.example/{number} 1.2.3.4 20240101000000 text/html "
                f"{len(response)}\n").encode() + response + b"\n"
    desc = b"1 0 test\nURL IP-address Archive-date Content-type Archive-length\n"
    return (f"filedesc://multi.arc 0.0.0.0 20240101000000 text/plain {len(desc)}\n".encode()
            + desc + b"\n" + b"".join(one(n) for n in range(3)))


def test_an_arc_file_is_refused_not_read_as_one_page(tmp_path: Path) -> None:
    """An ARC file was one HTML page holding all its records' pages."""
    (tmp_path / "multi.arc").write_bytes(arc_file())
    (tmp_path / "renamed.html").write_bytes(arc_file())
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "multi.arc.gz").write_bytes(gzip.compress(arc_file()))
    (folder / "p.html").write_text(page_html(1))
    for name in ("multi.arc", "renamed.html", "d/multi.arc.gz"):
        (found,) = Source("file", name, "x", str(tmp_path / name), sniff=True).pages()
        assert isinstance(found, Unreadable) and not isinstance(found, Skipped)
        assert found.error.reason == "unreadable-input"
        assert str(found.error).startswith("an ARC file (the crawl archive format before WARC), "
                                           "which grist does not read: convert it to WARC")
    done = grist("batch", str(folder), "--out", str(tmp_path / "out"), "-j", "1")
    assert "2 pages, 1 result, 1 error (1 unreadable-input)" in done.stderr
    extracted = grist("extract", str(tmp_path / "multi.arc"))
    assert extracted.returncode == 1 and not extracted.stdout
    assert "grist: error: " in extracted.stderr and "an ARC file" in extracted.stderr


def warcinfo_date(path: Path) -> str:
    head = gzip.GzipFile(fileobj=path.open("rb")).read(400).decode()
    match = re.search(r"WARC-Type: warcinfo\r\n(?:.*\r\n)*?WARC-Date: (\S+)", head)
    assert match
    return match.group(1)


def test_the_warc_output_is_dated_when_the_job_began(tmp_path: Path) -> None:
    """The warcinfo record said 1970-01-01T00:00:00Z."""
    write_warc(tmp_path / "a.warc.gz", [page(1), page(2)])
    out = tmp_path / "out"
    args = ("batch", str(tmp_path / "a.warc.gz"), "--out", str(out), "-j", "1",
            "--output-format", "warc")
    assert grist(*args).returncode == 0
    created = json.loads((out / "job.json").read_text())["created"]
    assert re.fullmatch(r"20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ", created)
    final = out / "shard-00000.warc.gz"
    first = final.read_bytes()
    assert warcinfo_date(final) == created
    for path in out.glob("shard-00000.*"):
        path.unlink()  # a rerun extracts the shard again: the same bytes
    assert grist(*args).returncode == 0 and final.read_bytes() == first
    job = json.loads((out / "job.json").read_text())
    del job["created"]  # a job recorded before grist noted it resumes, dated by job.json
    (out / "job.json").write_text(json.dumps(job))
    for path in out.glob("shard-00000.*"):
        path.unlink()
    assert grist(*args).returncode == 0
    assert warcinfo_date(final) != "1970-01-01T00:00:00Z" and "created" not in json.loads(
        (out / "job.json").read_text())
