"""``grist extract --format json`` carries each page's ``url`` and ``date`` (a WARC record's
WARC-Target-URI and WARC-Date, a JSON line's fields) on results and error records alike, as
``grist batch`` does, in one process and on workers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grist.cli import main
from grist.io.records import read_final
from warc_files import http_response, page_html, response, warc_record, write_warc

DATE = b"2024-05-06T07:08:09Z"  # the WARC-Date warc_files writes


def _dated(record: bytes, day: int) -> bytes:
    """A record of ``warc_files`` with its WARC-Date moved to another day of May 2024."""
    return record.replace(DATE, f"2024-05-{day:02d}T07:08:09Z".encode())


def _crawl(path: Path) -> Path:
    """A WARC file of a warcinfo record, two pages, a PNG (not-html) and a record cut off at the
    end of the file (warc-error), each page-like record on its own day."""
    png = http_response(b"\x89PNG\r\n\x1a\n" + bytes(20), content_type="image/png")
    cut = http_response(page_html(4).encode())
    write_warc(path, [
        warc_record("warcinfo", 9, b"x: y\r\n", content_type="application/warc-fields"),
        _dated(response(1), 1),
        _dated(warc_record("response", 2, png, url="https://img.example/2.png"), 2),
        _dated(response(3), 3),
        _dated(warc_record("response", 4, cut, url="https://cut.example/4", length=99_999), 4),
    ], compress=False)
    return path


def _extracted(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict]:
    """The JSON lines ``grist extract --format json`` writes for the inputs."""
    main(["extract", "--quiet", "--format", "json", *args])
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def _fields(records: list[dict]) -> list[tuple]:
    """Each record's input, url and date, and whether it is an error (key absent: ``-``)."""
    return [(r["input"], r.get("url", "-"), r.get("date", "-"), "error" in r) for r in records]


def test_warc_results_and_error_records_carry_url_and_date_as_batch_does(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Results had no ``date`` (only the page's metadata.date, null here) and the not-html and
    warc-error records were only input, error and reason."""
    warc = _crawl(tmp_path / "crawl.warc")
    assert main(["batch", "--quiet", str(warc), "--out", str(tmp_path / "batch")]) == 1
    batch = [r for path in sorted((tmp_path / "batch").glob("shard-*.jsonl*"))
             for r in read_final(path)]
    expected = [(f"<urn:uuid:00000000-0000-0000-0000-00000000000{n}>", url,
                 f"2024-05-0{n}T07:08:09Z", n in (2, 4))
                for n, url in ((1, "https://site1.example/1"), (2, "https://img.example/2.png"),
                               (3, "https://site0.example/3"), (4, "https://cut.example/4"))]
    assert _fields(batch) == expected
    for jobs in ("1", "2"):
        records = _extracted(capsys, "-j", jobs, str(warc))
        assert _fields(records) == expected
        assert [r["reason"] for r in records if "error" in r] == ["not-html", "warc-error"]
        assert records[0]["metadata"]["date"] is None  # the page's own date: none in its HTML


def test_json_lines_keep_their_date_in_one_process_and_on_workers(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A JSON line's ``date`` was dropped, on results and on error records."""
    lines = tmp_path / "pages.jsonl"
    lines.write_text("\n".join(json.dumps(record) for record in (
        {"html": page_html(1), "url": "https://a.example/1", "date": "2023-05-06"},
        {"html": "", "url": "https://a.example/2", "date": "2023-05-07"},
        {"html": page_html(3)},
        "not a page",
    )) + "\n", encoding="utf-8")
    expected = [(f"{lines}:1", "https://a.example/1", "2023-05-06", False),
                (f"{lines}:2", "https://a.example/2", "2023-05-07", True),
                (f"{lines}:3", None, "-", False),
                (f"{lines}:4", "-", "-", True)]  # (no page read: nothing known of it)
    assert _fields(_extracted(capsys, str(lines))) == expected
    assert _fields(_extracted(capsys, "-j", "2", str(lines), str(lines))) == expected * 2
