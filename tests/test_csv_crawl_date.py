"""CSV output carries each page's crawl date, as JSON records carry ``date`` (a WARC record's
WARC-Date, a JSON line's ``date``), in a ``crawl_date`` column after the others (scripts read
the columns by position), in one process and on workers, on stdout and under ``--out``."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

import grist
from grist.cli import main
from warc_files import page_html, response, write_warc

# The columns before crawl_date, in the order scripts read them by position.
EARLIER = ["input", "url", "title", "author", "date", "date_modified", "sitename", "language",
           "page_type", "description", "image", "categories", "tags", "text"]
PUBLISHED = '<meta property="article:published_time" content="2019-03-04">'


def _table(capsys: pytest.CaptureFixture[str], *args: str) -> list[list[str]]:
    """The rows (header first) ``grist extract --format csv ARGS`` writes on stdout."""
    assert main(["extract", "--quiet", "--format", "csv", *args]) == 0
    return list(csv.reader(io.StringIO(capsys.readouterr().out)))


def _lines(path: Path) -> Path:
    """A JSON-lines file: a page dated 2024-01-02 whose own metadata says 2019-03-04, and a page
    with no date."""
    dated = page_html(1).replace("<head>", f"<head>{PUBLISHED}")
    path.write_text(json.dumps({"html": dated, "date": "2024-01-02T03:04:05Z"}) + "\n"
                    + json.dumps({"html": page_html(2), "id": "p2"}) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("jobs", [[], ["-j", "2"]], ids=["one-process", "workers"])
def test_a_json_line_date_is_the_crawl_date_column(capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path, jobs: list[str]) -> None:
    """CSV had no column for it: a row said only the page's own date (2019-03-04)."""
    lines = _lines(tmp_path / "pages.jsonl")
    header, *rows = _table(capsys, *jobs, str(lines))
    assert header == [*EARLIER, "crawl_date"]
    assert [(r[0], r[4], r[-1]) for r in rows] == [
        (f"{lines}:1", "2019-03-04", "2024-01-02T03:04:05Z"), (f"{lines}:2 (p2)", "", "")]


def test_a_warc_record_date_is_the_crawl_date_column(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    crawl = tmp_path / "crawl.warc.gz"
    write_warc(crawl, [response(1), response(2).replace(b"2024-05-06", b"2024-05-07")])
    header, *rows = _table(capsys, str(crawl))
    assert [(r[header.index("url")], r[-1]) for r in rows] == [
        ("https://site1.example/1", "2024-05-06T07:08:09Z"),
        ("https://site2.example/2", "2024-05-07T07:08:09Z")]


def test_a_page_file_of_its_own_has_the_column_empty(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    """Under --out each page's table has the column; a page read from a file has no crawl date,
    nor has a result rendered by the library."""
    lines = _lines(tmp_path / "pages.jsonl")
    out = tmp_path / "out"
    assert main(["extract", "--quiet", "--format", "csv", "--out", str(out), str(lines)]) == 0
    header, row = list(csv.reader(io.StringIO((out / "pages" / "1.csv").read_text())))
    assert header[-1] == "crawl_date" and row[-1] == "2024-01-02T03:04:05Z"
    page = tmp_path / "page.html"
    page.write_text(page_html(3), encoding="utf-8")
    header, row = _table(capsys, str(page))
    assert header == [*EARLIER, "crawl_date"] and row[0] == str(page) and row[-1] == ""
    header, row = list(csv.reader(io.StringIO(grist.extract(page_html(3)).render("csv"))))
    assert header[-1] == "crawl_date" and row[-1] == "" and "article 3" in row[-2]
