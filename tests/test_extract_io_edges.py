"""Edges of WARC, extract and inspect input and output: a cut-off WARC of one gzip stream,
``extract -j`` with file names that are not UTF-8, an --out file that is not a regular one, a
JSON line's url and date on its error record, and a WARC of one page beside a 404 inspected."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

from warc_files import page_html, response, warc_record

from grist.cli import main
from grist.cli.inspect import _read
from grist.errors import GristError
from grist.io.warc import read_warc

STOPPED = "; stopped by the error above"


def _extract(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``grist extract ARGS`` in this process: (status, stdout, stderr)."""
    code = main(["extract", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _pages_folder(root: Path, names: list[str]) -> Path:
    """A folder of article pages, page i under the i-th name."""
    root.mkdir()
    for number, name in enumerate(names, 1):
        (root / name).write_text(page_html(number), encoding="utf-8")
    return root


def test_a_cut_off_warc_of_one_gzip_stream_gives_its_last_record_as_the_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The cut record was a page of what could be read of it, and the file an error more: four
    pages for three records."""
    path = tmp_path / "cut.warc.gz"
    path.write_bytes(gzip.compress(b"".join(response(n) for n in range(3)), mtime=0)[:-10])
    items = list(read_warc(path))
    assert [item.page is not None for item in items] == [True, True, False]
    last = items[-1]
    assert (last.url, last.record_type) == ("https://site2.example/2", "response")
    assert str(last.error).startswith("the gzip data is cut off or damaged in the record; "
                                      f"the rest of {path} skipped")
    code, out, err = _extract(capsys, "--quiet", "--format", "json", str(path))
    assert code == 1 and len(out.splitlines()) == 3
    assert "grist extract: 3 pages, 2 results, 1 error (1 warc-error)" in err
    path.write_bytes(gzip.compress(b"".join(response(n) for n in range(3)), mtime=0)[:-4])
    items = list(read_warc(path))  # (cut in the gzip trailer: every record whole, a page)
    assert [item.page is not None for item in items] == [True, True, True, False]
    assert items[-1].input == str(path) and "after the last record read" in str(items[-1].error)


def test_extract_j_writes_names_differing_in_bytes_not_utf8_where_one_process_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Both records were named ``caf\\ufffd.html`` by their JSON: page 1 went to page 2's file
    and page 2 to a ``-2`` file."""
    names = [os.fsdecode(b"caf\xe8.html"), os.fsdecode(b"caf\xe9.html")]
    root = _pages_folder(tmp_path / "pages", names)
    written = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"out{jobs}"
        assert _extract(capsys, "--quiet", "-j", jobs, "--out", str(out), str(root))[0] == 0
        written[jobs] = {name: (out / name).read_text("utf-8") for name in os.listdir(out)}
    assert written["2"] == written["1"]
    assert sorted(written["1"]) == [os.fsdecode(b"caf\xe8.txt"), os.fsdecode(b"caf\xe9.txt")]
    for number, name in enumerate(sorted(written["1"]), 1):
        assert f"text of article {number}," in written["1"][name]


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("target", ["folder", "device"])
def test_an_out_file_that_is_not_a_regular_one_stops_the_batch_with_its_summary(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], jobs: str, target: str) -> None:
    """A folder where a page's file goes, or a link to /dev/full, ended the batch with the error
    line alone: no summary line, though every other unwritable output has one."""
    root = _pages_folder(tmp_path / "pages", ["a.html", "b.html"])
    out = tmp_path / "out"
    out.mkdir()
    if target == "folder":
        (out / "b.txt").mkdir()
    elif Path("/dev/full").exists():
        (out / "b.txt").symlink_to("/dev/full")
    else:
        pytest.skip("needs /dev/full")
    code, _, err = _extract(capsys, "--quiet", "-j", jobs, "--out", str(out), str(root))
    lines = err.splitlines()
    assert code == 1 and lines[0].startswith(f"grist: error: cannot write into {out}: {out}/b.txt")
    assert "not a regular file" in lines[0]
    assert lines[1].startswith("grist extract: 1 page, 1 result, 0 errors") and \
        lines[1].endswith(STOPPED)


def test_a_json_line_without_html_has_its_url_and_date_in_its_error_record(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """extract, extract -j and batch wrote the error record without them."""
    lines = tmp_path / "pages.jsonl"
    lines.write_text(json.dumps({"html": page_html(1), "url": "http://a.example/1"}) + "\n"
                     + json.dumps({"url": "http://a.example/2", "date": "2024-01-03"}) + "\n",
                     encoding="utf-8")
    expected = {"url": "http://a.example/2", "date": "2024-01-03", "reason": "dataset-error"}
    for jobs in ("1", "2"):
        out = _extract(capsys, "--quiet", "-j", jobs, "--format", "json", str(lines))[1]
        record = json.loads(out.splitlines()[1])
        assert {key: record.get(key) for key in expected} == expected
    assert main(["batch", str(lines), "--out", str(tmp_path / "batch"), "--quiet"]) == 1
    capsys.readouterr()
    records = [json.loads(line) for shard in sorted((tmp_path / "batch").glob("shard-*.jsonl"))
               for line in shard.read_text("utf-8").splitlines()]
    assert {key: records[1].get(key) for key in expected} == expected


def _not_found(number: int) -> bytes:
    """A response record of a 404 page."""
    http = (b"HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\n\r\n"
            + page_html(number).encode())
    return warc_record("response", number, http, url=f"https://a.example/{number}")


def test_inspect_shows_the_one_page_of_a_warc_that_also_holds_a_404(tmp_path: Path) -> None:
    """The 404 response, an http-status error record everywhere else, counted as a second page:
    the WARC was refused as holding several; one holding only the 404 says so."""
    crawl = tmp_path / "crawl.warc"
    crawl.write_bytes(_not_found(2) + response(1))
    assert _read(str(crawl)).url == "https://site1.example/1"
    lost = tmp_path / "lost.warc"
    lost.write_bytes(_not_found(2))
    with pytest.raises(GristError, match=r"^<urn:uuid:[0-]+2>: HTTP 404 Not Found$"):
        _read(str(lost))
