"""A WARC file read as a ``Source`` (``grist.io.sources``), the one place every command reads one:
its records with their offsets, and what each command makes of them (the cases in which the
commands used to differ are named in each test)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grist.batch.job import JobConfig, plan
from grist.cli import main
from grist.document import RawPage
from grist.errors import GristError
from grist.io.sources import Skipped, Source, Unreadable, expand
from grist.stream.replay import replay_pages
from warc_files import page_html, response, warc_record, write_warc

INFO = warc_record("warcinfo", 9, b"x: y\r\n", content_type="application/warc-fields")


def not_found(number: int) -> bytes:
    """A 404 response record of https://gone.example/NUMBER."""
    return warc_record("response", number, b"HTTP/1.1 404 Not Found\r\nContent-Type: text/html"
                       b"\r\n\r\n<p>gone</p>", url=f"https://gone.example/{number}")


def record_id(number: int) -> str:
    return f"<urn:uuid:00000000-0000-0000-0000-{number:012d}>"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_records_give_every_record_with_its_offset_and_pages_only_pages_and_errors(tmp_path):
    path = tmp_path / "crawl.warc.gz"
    offsets = write_warc(path, [INFO, response(1), not_found(2), response(3)])
    (source,), batch = expand([str(path)])
    assert (source.kind, batch) == ("warc", True)
    records = list(source.records())
    assert [offset for offset, _ in records] == offsets
    info, first, gone, last = (page for _, page in records)
    assert isinstance(info, Skipped) and (info.input, info.record_type) == (record_id(9),
                                                                           "warcinfo")
    assert isinstance(first, RawPage) and first.url == "https://site1.example/1"
    assert isinstance(gone, Unreadable) and str(gone.error) == "HTTP 404 Not Found"
    assert (gone.input, gone.url, gone.date) == (record_id(2), "https://gone.example/2",
                                                 "2024-05-06T07:08:09Z")
    assert [(type(p), p.input) for p in source.pages()] == [
        (RawPage, record_id(1)), (Unreadable, record_id(2)), (RawPage, record_id(3))]


def test_a_file_named_as_warc_that_is_none_is_one_error_named_as_given(tmp_path):
    path = tmp_path / "fake.warc"
    path.write_text(page_html(1), encoding="utf-8")
    ((offset, page),) = Source("warc", "fake.warc", "fake", str(path)).records()
    assert offset is None and isinstance(page, Unreadable) and page.input == "fake.warc"
    assert page.error.reason == "not-warc"


def test_a_missing_warc_file_is_refused_before_anything_is_read_as_a_json_lines_one_is(tmp_path):
    """templates and inspect said "cannot read X: No such file or directory" once reading."""
    with pytest.raises(GristError, match=r"missing\.warc\.gz: no such file$"):
        expand([str(tmp_path / "missing.warc.gz")])


def test_a_folders_warc_files_are_read_as_warc_hidden_ones_left_out(tmp_path, capsys):
    """templates read a folder's WARC file as one page of all its bytes, and grist batch read
    the WARC files of hidden folders, which every other command (and every other file) skips."""
    folder = tmp_path / "f"
    (folder / ".hidden").mkdir(parents=True)
    (folder / "a.html").write_text(page_html(10), encoding="utf-8")
    write_warc(folder / "b.warc.gz", [INFO, response(11)])
    write_warc(folder / ".hidden" / "c.warc.gz", [response(12)])
    sources, _ = expand([str(folder)])
    assert [(Path(s.location).name, s.kind, s.sniff) for s in sources] == [
        ("a.html", "file", True), ("b.warc.gz", "warc", False)]
    code, out, _ = run(capsys, "templates", str(folder), "--format", "json", "--quiet")
    inputs = [row["input"] for row in map(json.loads, out.splitlines()) if "input" in row]
    assert code == 0 and inputs == [str(folder / "a.html"), record_id(11)]
    job = plan([str(folder)], JobConfig())
    assert [(s.kind, [Path(i).name for i in s.inputs]) for s in job.shards] == [
        ("warc", ["b.warc.gz"]), ("files", ["a.html"])]  # (a folder's WARC files first, as ever)


def test_templates_reads_warc_pages_in_input_order_and_goes_on_past_a_bad_one(tmp_path, capsys):
    """A WARC file's pages came after every other input's, and a file named as WARC that is not
    one stopped the command with a message that did not name it."""
    first, last = tmp_path / "first.html", tmp_path / "last.html"
    first.write_text(page_html(1), encoding="utf-8")
    last.write_text(page_html(2), encoding="utf-8")
    crawl, fake = tmp_path / "crawl.warc.gz", tmp_path / "fake.warc"
    write_warc(crawl, [INFO, response(3), not_found(4)])
    fake.write_text(page_html(5), encoding="utf-8")
    code, out, err = run(capsys, "templates", str(first), str(crawl), str(fake), str(last),
                         "--format", "json", "--quiet")
    rows = [row for row in map(json.loads, out.splitlines()) if "input" in row]
    assert code == 1 and [row["input"] for row in rows] == [
        str(first), record_id(3), record_id(4), str(fake), str(last)]
    assert [row.get("reason") for row in rows] == [None, None, "http-status", "not-warc", None]
    assert f"grist: error: {fake}: not a WARC file" in err
    assert "5 pages, 3 results, 2 errors (1 http-status, 1 not-warc)" in err


def test_extract_refuses_url_for_a_warc_file_as_for_json_lines(tmp_path, capsys):
    """--url was ignored without a word for a WARC file (its records name their own URLs)."""
    crawl = tmp_path / "one.warc.gz"
    write_warc(crawl, [response(1)])
    code, out, err = run(capsys, "extract", "--url", "https://other.example/", str(crawl))
    assert code == 1 and not out
    assert err == "grist: error: --url sets the URL of one page read from a file or stdin\n"


def test_dedup_reads_a_warc_files_pages_not_the_file_as_one_page(tmp_path, capsys):
    """The file was fingerprinted as one page of all its bytes."""
    crawl = tmp_path / "crawl.warc.gz"
    write_warc(crawl, [INFO, response(1), response(2)])
    code, out, err = run(capsys, "dedup", str(crawl), "--quiet")
    (group,) = map(json.loads, out.splitlines())
    assert code == 0 and [m["key"] for m in group["members"]] == [record_id(1), record_id(2)]
    assert "2 pages, 2 results" in err


@pytest.mark.parametrize("order", ["file", "time"])
def test_replay_keeps_an_error_records_url_and_date(tmp_path, order):
    """A replayed WARC error record lost the URL and date that batch records keep."""
    crawl = tmp_path / "crawl.warc.gz"
    write_warc(crawl, [INFO, not_found(2), response(1)])
    pages = list(replay_pages([crawl], order))
    gone = next(p for p in pages if isinstance(p, Unreadable))
    assert (gone.input, gone.url, gone.date) == (record_id(2), "https://gone.example/2",
                                                 "2024-05-06T07:08:09Z")
    assert [p.input for p in pages if isinstance(p, RawPage)] == [record_id(1)]
