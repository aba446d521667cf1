"""``grist inspect`` on inputs that are not one page's file: a JSON-lines or WARC file that holds
one page shows it, one of several pages or none, a folder, and a WARC file that is not one are
refused before any server starts; ``--record`` picks one page of a WARC or JSON-lines file (by a
record's id, offset or URL; a line's label, number, id or url) and says clearly when it names
none, or a record that is no page; a port it cannot use is one line, an impossible one a usage
error."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from grist.cli import main
from grist.cli.inspect import _read
from warc_files import page_html, response, warc_record, write_warc

httpx = pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

INFO = warc_record("warcinfo", 9, b"x: y\r\n", content_type="application/warc-fields")


def _inspect(*args: str) -> subprocess.CompletedProcess:
    """``grist inspect ... --no-browser`` run to its end (a server that starts never ends: the
    timeout fails the test)."""
    return subprocess.run([sys.executable, "-m", "grist", "inspect", *args, "--no-browser"],
                          capture_output=True, text=True, timeout=60)


@contextmanager
def _inspector(page: Path, *args: str) -> Iterator[dict]:
    """``grist inspect PAGE ARGS --no-browser`` started, yielding the page it preloaded (its html
    and url, as the inspector fetches them); stopped with Ctrl-C after."""
    process = subprocess.Popen([sys.executable, "-m", "grist", "inspect", str(page), *args,
                                "--no-browser"], stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        found = re.search(r"inspector at (http://127\.0\.0\.1:\d+)/inspect\?preload=(\S+)", line)
        assert found, line
        yield httpx.get(f"{found.group(1)}/inspect/preload/{found.group(2)}").json()
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()


def test_a_json_lines_or_warc_file_of_one_page_is_inspected_as_that_page(tmp_path: Path) -> None:
    """A one-line JSON-lines file was refused as holding several pages; a WARC file was shown
    as one page of its every byte (chunk sizes, headers and all its records)."""
    lines = tmp_path / "one.jsonl"
    lines.write_text(json.dumps({"html": page_html(1), "url": "https://a.example/1"}) + "\n",
                     encoding="utf-8")
    with _inspector(lines) as shown:
        assert shown == {"html": page_html(1), "url": "https://a.example/1"}
    crawl = tmp_path / "one.warc.gz"
    write_warc(crawl, [INFO, response(1)])
    with _inspector(crawl) as shown:
        assert shown == {"html": page_html(1), "url": "https://site1.example/1"}


@pytest.mark.parametrize(("name", "records", "said"), [
    pytest.param("crawl.warc.gz", [INFO, response(1), response(2)], "{path} holds several "
                 "pages; grist inspect shows one page: give a page's file or URL, its HTML on "
                 "stdin, or a JSON-lines or WARC file that holds one page", id="warc-of-several"),
    pytest.param("info.warc.gz", [INFO], "{path} holds no page", id="warc-of-none"),
    pytest.param("pages.jsonl", [b'{"html": "<p>one</p>"}\n{"html": "<p>two</p>"}\n'],
                 "{path} holds several pages; grist inspect shows one page",
                 id="json-lines-of-several"),
    pytest.param("empty.jsonl", [], "{path} holds no page", id="empty-json-lines"),
    pytest.param("fake.warc", [b"<html><p>a page named as a WARC file</p></html>"],
                 "{path}: not a WARC file: it does not start with a WARC record", id="not-warc"),
])
def test_a_file_of_no_or_several_pages_is_refused_before_a_server_starts(
        tmp_path: Path, name: str, records: list[bytes], said: str) -> None:
    """The WARC files were inspected as one page (a server started); an empty JSON-lines file
    was said to hold several pages."""
    path = tmp_path / name
    write_warc(path, records, compress=name.endswith(".gz"))
    done = _inspect(str(path))
    assert done.returncode == 1 and done.stderr.startswith(
        f"grist: error: {said.format(path=path)}")


def test_a_missing_warc_file_is_said_as_a_missing_json_lines_file_is(tmp_path: Path) -> None:
    """It was "cannot read PATH: No such file or directory", said once reading began."""
    for name in ("missing.warc.gz", "missing.jsonl"):
        done = _inspect(str(tmp_path / name))
        assert done.returncode == 1
        assert done.stderr == f"grist: error: {tmp_path / name}: no such file\n"


def test_a_folder_is_refused_even_of_one_page(tmp_path: Path) -> None:
    """It was said to hold several pages."""
    (tmp_path / "a.html").write_text(page_html(1), encoding="utf-8")
    done = _inspect(str(tmp_path))
    assert done.returncode == 1 and done.stderr.startswith(
        f"grist: error: {tmp_path} is a folder; grist inspect shows one page: ")


def test_a_taken_port_is_one_line_and_an_impossible_one_a_usage_error(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text(page_html(1), encoding="utf-8")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        done = _inspect(str(page), "--port", port)
    assert done.returncode == 1 and done.stderr == (
        f"grist: error: cannot listen on 127.0.0.1:{port}: Address already in use (another "
        "program listens there: choose another --port)\n")
    done = _inspect(str(page), "--port", "70000")
    assert done.returncode == 2 and done.stderr.endswith(
        "grist inspect: error: argument --port: must be 0 or more and at most 65535, not 70000\n")


def _id(number: int) -> str:
    """The WARC-Record-ID ``warc_files.warc_record`` gives record ``number``."""
    return f"<urn:uuid:00000000-0000-0000-0000-{number:012d}>"


NOT_FOUND = (b"HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nContent-Length: 9\r\n\r\n"
             b"not found")
REQUEST = warc_record("request", 3, b"GET /3 HTTP/1.1\r\n\r\n", url="https://site0.example/3",
                      content_type="application/http; msgtype=request")


@pytest.fixture
def crawl(tmp_path: Path) -> tuple[Path, list[int]]:
    """A WARC file of three pages (records 1, 2, 5), a request, and a 404 (record 4) of the URL
    that page 5 holds later; and the records' offsets."""
    path = tmp_path / "crawl.warc.gz"
    gone = warc_record("response", 4, NOT_FOUND, url="https://site2.example/5")
    offsets = write_warc(path, [INFO, response(1), response(2), REQUEST, gone, response(5)])
    return path, offsets


@pytest.fixture
def lines(tmp_path: Path) -> Path:
    """A JSON-lines file: page 1 (no id), a blank line, page 2 (id x2), a line with no html."""
    path = tmp_path / "pages.jsonl"
    path.write_text("\n".join([
        json.dumps({"html": page_html(1), "url": "https://a.example/1"}), "",
        json.dumps({"html": page_html(2), "url": "https://a.example/2", "id": "x2"}),
        json.dumps({"url": "https://a.example/4", "id": "x4"})]) + "\n", encoding="utf-8")
    return path


def test_record_picks_one_page_of_a_warc_or_json_lines_file_for_the_inspector(
        crawl: tuple[Path, list[int]], lines: Path) -> None:
    """Either file was refused as holding several pages, whichever page the user wanted."""
    path, offsets = crawl
    with _inspector(path, "--record", str(offsets[2])) as shown:
        assert shown == {"html": page_html(2), "url": "https://site2.example/2"}
    with _inspector(lines, "--record", "x2") as shown:
        assert shown == {"html": page_html(2), "url": "https://a.example/2"}


@pytest.mark.parametrize("record", [_id(2), _id(2)[1:-1], "https://site2.example/2", "OFFSET"])
def test_a_warc_record_is_named_by_its_id_offset_or_url(crawl: tuple[Path, list[int]],
                                                        record: str) -> None:
    path, offsets = crawl
    page = _read(str(path), str(offsets[2]) if record == "OFFSET" else record)
    assert (page.input, page.url, page.content) == (_id(2), "https://site2.example/2",
                                                    page_html(2).encode())
    assert page.date == "2024-05-06T07:08:09Z"


def test_a_url_names_its_page_though_an_error_record_of_it_comes_first(
        crawl: tuple[Path, list[int]]) -> None:
    """Record 4, a 404 of https://site2.example/5, is before page 5 of the same URL."""
    page = _read(str(crawl[0]), "https://site2.example/5")
    assert page.input == _id(5) and page.content == page_html(5).encode()


@pytest.mark.parametrize("record", ["3", "LABEL:3", "LABEL:3 (x2)", "x2", "https://a.example/2"])
def test_a_json_line_is_named_by_its_label_number_id_or_url(lines: Path, record: str) -> None:
    page = _read(str(lines), record.replace("LABEL", str(lines)))
    assert (page.input, page.url, page.content) == (f"{lines}:3 (x2)", "https://a.example/2",
                                                    page_html(2))
    assert _read(str(lines), "1").content == page_html(1)


def _refused(capsys, *args: str) -> str:
    """What ``grist inspect ARGS`` says on stderr; it must fail before any server starts."""
    assert main(["inspect", *args, "--no-browser"]) == 1
    err = capsys.readouterr().err
    assert "inspector at" not in err
    return err


def test_record_of_a_page_file_or_url_is_refused(capsys, tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text(page_html(1), encoding="utf-8")
    for named in (str(page), "https://a.example/1"):
        assert _refused(capsys, named, "--record", "1") == (
            f"grist: error: --record applies to WARC and JSON-lines files; {named} is one page\n")


def test_a_record_that_names_nothing_is_said_with_a_few_of_the_pages(
        capsys, crawl: tuple[Path, list[int]], lines: Path, tmp_path: Path) -> None:
    """An offset inside a record, past the file's end, and a name no record has are no record;
    the pages are counted and the first three named (", ..." when there are more)."""
    path, offsets = crawl
    pages = f"it holds 3 pages, e.g. {_id(1)}, {_id(2)}, {_id(5)}\n"
    for record, what in ((str(offsets[1] + 5), f"at offset {offsets[1] + 5}"),
                         ("999999", "at offset 999999"), ("https://nowhere.example/", None)):
        assert _refused(capsys, str(path), "--record", record) == (
            f"grist: error: no record {what or record} in {path}; {pages}")
    assert _refused(capsys, str(lines), "--record", "9") == (
        f"grist: error: no record 9 in {lines}; it holds 2 pages, e.g. {lines}:1, "
        f"{lines}:3 (x2)\n")
    more = tmp_path / "more.warc"
    write_warc(more, [response(n) for n in range(1, 6)], compress=False)
    assert _refused(capsys, str(more), "--record", "x").endswith(
        f"it holds 5 pages, e.g. {_id(1)}, {_id(2)}, {_id(3)}, ...\n")
    empty = tmp_path / "info.warc.gz"
    write_warc(empty, [INFO])
    assert _refused(capsys, str(empty), "--record", "x") == (
        f"grist: error: no record x in {empty}; it holds no page\n")


def test_a_record_that_is_no_page_is_said_with_its_reason(
        capsys, crawl: tuple[Path, list[int]], lines: Path, tmp_path: Path) -> None:
    path, offsets = crawl
    for record in (_id(4), str(offsets[4])):
        assert _refused(capsys, str(path), "--record", record) == (
            f"grist: error: {_id(4)}: HTTP 404 Not Found\n")
    assert _refused(capsys, str(path), "--record", str(offsets[3])) == (
        f"grist: error: {_id(3)}: a request record, not a page\n")
    for record in ("4", f"{lines}:4", "https://a.example/4"):
        assert _refused(capsys, str(lines), "--record", record) == (
            f"grist: error: {lines}:4: the record has no 'html' string field\n")
    fake = tmp_path / "fake.warc"
    fake.write_text("<html><p>a page named as a WARC file</p></html>", encoding="utf-8")
    for record in ("0", "x"):
        assert _refused(capsys, str(fake), "--record", record).startswith(
            f"grist: error: {fake}: not a WARC file: it does not start with a WARC record")


def test_several_pages_are_refused_with_how_to_pick_one(capsys, crawl: tuple[Path, list[int]],
                                                        lines: Path) -> None:
    assert _refused(capsys, str(crawl[0])).endswith(
        f"or name one of its pages with --record (e.g. --record '{_id(1)}')\n")
    assert _refused(capsys, str(lines)).endswith(f"(e.g. --record {lines}:1)\n")
