"""``grist inspect`` on inputs that are not one page's file: a JSON-lines or WARC file that holds
one page shows it, one of several pages or none, a folder, and a WARC file that is not one are
refused before any server starts; a port it cannot use is one line, an impossible one a usage
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
def _inspector(page: Path) -> Iterator[dict]:
    """``grist inspect PAGE --no-browser`` started, yielding the page it preloaded (its html and
    url, as the inspector fetches them); stopped with Ctrl-C after."""
    process = subprocess.Popen([sys.executable, "-m", "grist", "inspect", str(page),
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
