"""``grist extract`` on files, folders, stdin and URLs, in every format, and on bad inputs."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

from local_server import base_url

import pytest

import grist
from grist.cli import main
from grist.limits import Limits

GOOD = (
    "<html><head><title>Harbour</title></head><body><div><a href='/'>Home</a></div>"
    "<h2>Harbour reopens</h2><p>The old harbour reopened on Monday after two years of work.</p>"
    "</body></html>"
)
TEXT = "Harbour reopens\n\nThe old harbour reopened on Monday after two years of work."

# name -> (bytes, the start of the one-line error message)
BAD = {
    "empty": (b"", "the page is empty"),
    "blank": (b" \n\t ", "the page is empty"),
    "png": (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(64), "not an HTML page: it looks like a PNG"),
    "pdf": (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj", "not an HTML page: it looks like a PDF"),
    "deep": (b"<div>" * 100_000 + b"deep text", "the page nests elements more than"),
    "notext": (
        b"<html><head><title>t</title><script>var x = 1;</script></head><body>",
        "the page has no visible text",
    ),
    "cut-before-text": (b"<html><head><title>Cut here", "the page has no visible text"),
}


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["extract", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def page(tmp_path: Path) -> Path:
    path = tmp_path / "harbour.html"
    path.write_text(GOOD, encoding="utf-8")
    return path


def test_file_text(capsys: pytest.CaptureFixture[str], standin: str, page: Path) -> None:
    assert run(capsys, "--method", standin, str(page)) == (0, TEXT + "\n", "")


@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "html"])
def test_file_every_format_matches_api(
    capsys: pytest.CaptureFixture[str], standin: str, page: Path, fmt: str
) -> None:
    code, out, err = run(capsys, "--method", standin, "--format", fmt, str(page))
    assert code == 0 and err == ""
    assert out == grist.extract(page.read_bytes(), method=standin).render(fmt) + "\n"


def test_markdown_and_json_content(
    capsys: pytest.CaptureFixture[str], standin: str, page: Path
) -> None:
    assert run(capsys, "--method", standin, "--format", "markdown", str(page))[1].startswith(
        "## Harbour reopens\n\nThe old harbour"
    )
    data = json.loads(run(capsys, "--method", standin, "--format", "json", str(page))[1])
    assert data["metadata"]["title"] == "Harbour" and data["text"] == TEXT
    assert [b["label"] for b in data["blocks"]] == ["boilerplate", "content", "content"]


def test_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, standin: str
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(GOOD.encode("utf-16"))))
    assert run(capsys, "--method", standin, "-") == (0, TEXT + "\n", "")


def test_stdin_empty(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, standin: str
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    assert run(capsys, "--method", standin, "-") == (
        1,
        "",
        "grist: error: <stdin>: the page is empty\n",
    )


@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "html"])
def test_url_every_format(
    capsys: pytest.CaptureFixture[str], server: ThreadingHTTPServer, standin: str, fmt: str
) -> None:
    code, out, err = run(
        capsys, "--method", standin, "--format", fmt, base_url(server) + "/redirect"
    )
    assert code == 0 and err == ""
    assert "crème brûlée" in out  # the HTTP charset (iso-8859-1) was used to decode
    if fmt == "json":
        assert json.loads(out)["url"] == base_url(server) + "/article.html"


def test_url_errors(
    capsys: pytest.CaptureFixture[str], server: ThreadingHTTPServer, standin: str
) -> None:
    url = base_url(server) + "/image.png"
    assert run(capsys, "--method", standin, url) == (
        1,
        "",
        f"grist: error: {url}: the server sent image/png, not an HTML page\n",
    )
    code, _, err = run(capsys, "--method", standin, base_url(server) + "/missing")
    assert code == 1 and err.endswith("HTTP 404 Not Found\n")


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_one_line_error(
    capsys: pytest.CaptureFixture[str], standin: str, tmp_path: Path, name: str
) -> None:
    data, message = BAD[name]
    path = tmp_path / f"{name}.html"
    path.write_bytes(data)
    code, out, err = run(capsys, "--method", standin, str(path))
    assert (code, out) == (1, "")
    assert err.startswith(f"grist: error: {path}: {message}") or message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_huge_page_above_the_cap(
    capsys: pytest.CaptureFixture[str], standin: str, tmp_path: Path
) -> None:
    path = tmp_path / "huge.html"
    with path.open("wb") as fh:
        fh.write(b"<p>")
        fh.truncate(Limits().max_bytes + 1)
    code, out, err = run(capsys, "--method", standin, str(path))
    assert (code, out) == (1, "")
    assert err == f"grist: error: {path}: the page is larger than 20.0 MiB (Limits.max_bytes)\n"


def test_missing_file(capsys: pytest.CaptureFixture[str], standin: str, tmp_path: Path) -> None:
    path = tmp_path / "nope.html"
    assert run(capsys, "--method", standin, str(path)) == (
        1,
        "",
        f"grist: error: {path}: No such file or directory\n",
    )


def test_truncated_page_keeps_what_arrived(
    capsys: pytest.CaptureFixture[str], standin: str, tmp_path: Path
) -> None:
    # Browsers render a page cut mid-tag; so does grist (no page is dropped for it).
    path = tmp_path / "cut.html"
    path.write_bytes(GOOD.encode()[: GOOD.index("</p>") + 3])  # ends inside "</p"
    assert run(capsys, "--method", standin, str(path)) == (0, TEXT + "\n", "")


def test_wrongly_encoded_bytes_are_decoded_not_dropped(
    capsys: pytest.CaptureFixture[str], standin: str, tmp_path: Path
) -> None:
    path = tmp_path / "latin.html"
    path.write_bytes(b'<meta charset="utf-8"><p>Caf\xe9 cr\xe8me and more words here</p>')
    code, out, err = run(capsys, "--method", standin, str(path))
    assert (code, err) == (0, "")
    assert out == "Caf\ufffd cr\ufffdme and more words here\n"


def test_unknown_method(capsys: pytest.CaptureFixture[str], page: Path) -> None:
    code, out, err = run(capsys, "--method", "nosuch", str(page))
    assert (code, out) == (1, "") and err.startswith("grist: error: unknown method 'nosuch'")


def _folder(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    (root / "sub").mkdir(parents=True)
    (root / "a.html").write_text(GOOD)
    (root / "sub" / "b.htm").write_text(GOOD.replace("Monday", "Tuesday"))
    (root / "c.html").write_bytes(BAD["png"][0])
    (root / "notes.txt").write_text("not a page")
    return root


def test_folder_reads_the_html_files_and_names_what_it_skipped(
    capsys: pytest.CaptureFixture[str], standin: str, tmp_path: Path
) -> None:
    root = _folder(tmp_path)
    (root / "page.php").write_text(GOOD.replace("Monday", "Friday"))  # no .htm* suffix
    (root / "empty.html").write_text("")
    code, out, err = run(capsys, "--method", standin, str(root))
    assert code == 0
    tuesday = TEXT.replace("Monday", "Tuesday")
    friday = TEXT.replace("Monday", "Friday")
    assert out == (f"==> {root}/a.html <==\n{TEXT}\n\n==> {root}/page.php <==\n{friday}\n\n"
                   f"==> {root}/sub/b.htm <==\n{tuesday}\n")
    *skipped, summary = err.splitlines()
    assert skipped == [
        f"grist: skipped: {root}/c.html: not HTML: it looks like a PNG image",
        f"grist: skipped: {root}/empty.html: empty file",
        f"grist: skipped: {root}/notes.txt: not HTML: no HTML tag in its first 4 KiB",
    ]
    assert summary.startswith("grist extract: 3 pages, 3 results, 0 errors, 3 other files "
                              "skipped in ")


def test_a_folder_reads_utf16_pages_and_pages_opening_with_a_long_comment(
    capsys: pytest.CaptureFixture[str], standin: str, tmp_path: Path
) -> None:
    root = tmp_path / "site"
    root.mkdir()
    (root / "le.html").write_bytes(("\ufeff" + GOOD).encode("utf-16-le"))
    (root / "be.html").write_bytes(("\ufeff" + GOOD).encode("utf-16-be"))
    (root / "licence.html").write_text("<!-- " + "licence terms " * 400 + "-->\n" + GOOD)
    (root / "open.txt").write_text("<!-- never closed " + "words " * 2000)
    code, out, err = run(capsys, "--method", standin, str(root))
    assert code == 0 and out.count(TEXT) == 3
    *skipped, summary = err.splitlines()
    assert skipped == [f"grist: skipped: {root}/open.txt: not HTML: no HTML tag in its first 4 KiB"]
    assert summary.startswith("grist extract: 3 pages, 3 results, 0 errors, 1 other file skipped")


def test_a_named_file_that_is_not_html_is_an_error(
    capsys: pytest.CaptureFixture[str], standin: str, tmp_path: Path
) -> None:
    root = _folder(tmp_path)
    code, _, err = run(capsys, "--method", standin, str(root / "a.html"), str(root / "c.html"))
    png = "the input is not an HTML page: it looks like a PNG image"
    assert code == 1 and f"grist: error: {root}/c.html: {png}" in err.splitlines()


def test_batch_all_good_exits_zero(
    capsys: pytest.CaptureFixture[str], standin: str, page: Path
) -> None:
    code, out, err = run(capsys, "--method", standin, str(page), str(page))
    assert code == 0 and out.count(f"==> {page} <==") == 2
    assert err.startswith("grist extract: 2 pages, 2 results, 0 errors in ")


def test_batch_json_lines_with_error_records(
    capsys: pytest.CaptureFixture[str], standin: str, tmp_path: Path
) -> None:
    root = _folder(tmp_path)
    missing = tmp_path / "missing.html"
    code, out, _ = run(capsys, "--method", standin, "--format", "json", str(root), str(missing))
    assert code == 1
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["input"] for r in records] == [f"{root}/a.html", f"{root}/sub/b.htm", str(missing)]
    assert records[0]["text"] == TEXT and records[1]["text"] == TEXT.replace("Monday", "Tuesday")
    assert records[2] == {"input": str(missing), "error": "No such file or directory",
                          "reason": "unreadable-input"}


@pytest.mark.parametrize(
    ("fmt", "suffix"), [("text", ".txt"), ("markdown", ".md"), ("json", ".json"), ("html", ".html"),
                        ("xml", ".xml"), ("csv", ".csv")]
)
def test_out_dir_one_file_per_page(
    capsys: pytest.CaptureFixture[str], standin: str, tmp_path: Path, fmt: str, suffix: str
) -> None:
    root, out_dir = _folder(tmp_path), tmp_path / "out"
    code, out, err = run(
        capsys,
        "--method",
        standin,
        "--format",
        fmt,
        "--out",
        str(out_dir),
        str(root),
        str(root / "a.html"),
    )
    assert (code, out) == (0, "") and err.count("\n") == 3  # two skipped files and the summary
    written = sorted(str(p.relative_to(out_dir)) for p in out_dir.rglob("*") if p.is_file())
    assert written == sorted([f"a{suffix}", f"a-2{suffix}", f"sub/b{suffix}"])
    body = (out_dir / f"a{suffix}").read_text(encoding="utf-8")
    if fmt == "json":
        assert json.loads(body)["text"] == TEXT
    else:
        assert "The old harbour reopened on Monday" in body
    if fmt == "csv":  # each file a table of its own, its page named (the column was empty)
        rows = list(csv.DictReader(io.StringIO(body)))
        assert len(rows) == 1 and rows[0]["input"] == f"{root}/a.html"


def test_a_page_file_that_cannot_be_written_whole_is_not_left_half_written(tmp_path: Path) -> None:
    """A full disk (here a file-size limit, so writes fail part-way as on one) stops the run with
    a clear error; the pages written before are whole, the failed one is absent, not cut."""
    import resource

    small, large, out_dir = tmp_path / "small.html", tmp_path / "large.html", tmp_path / "out"
    small.write_text(GOOD, encoding="utf-8")
    paragraph = "<p>The harbour master said the new quay walls will stand for a century. </p>"
    large.write_text(f"<html><body>{paragraph * 200}</body></html>", encoding="utf-8")
    limit = 8192  # bytes: more than the small page's JSON, less than the large one's

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    done = subprocess.run(
        [sys.executable, "-m", "grist", "extract", "--method", "justext", "--format", "json",
         "--out", str(out_dir), str(small), str(large)],
        capture_output=True, text=True, timeout=120, check=False, preexec_fn=limited)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"grist: error: cannot write into {out_dir}: File too large" in done.stderr
    assert sorted(p.name for p in out_dir.iterdir()) == ["small.json"]  # no temporary left
    assert json.loads((out_dir / "small.json").read_text(encoding="utf-8"))["blocks"]


def test_empty_folder(capsys: pytest.CaptureFixture[str], standin: str, tmp_path: Path) -> None:
    assert run(capsys, "--method", standin, str(tmp_path)) == (
        1,
        "",
        f"grist: error: {tmp_path}: no files in this folder\n",
    )


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_only_on_a_terminal_and_not_quiet(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], standin: str, page: Path
) -> None:
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["extract", "--method", standin, str(page), str(page)]) == 0
    assert "2/2" in terminal.getvalue()
    terminal.seek(0)
    terminal.truncate()
    assert main(["extract", "--quiet", "--method", standin, str(page), str(page)]) == 0
    assert terminal.getvalue().startswith("grist extract: 2 pages, 2 results, 0 errors in ")
    assert terminal.getvalue().count("\n") == 1  # the summary only
    assert capsys.readouterr().out.count("The old harbour") == 4


def test_python_m_grist_subprocess(tmp_path: Path, page: Path) -> None:
    methods = grist.available_methods()
    if not methods:
        pytest.skip("no extraction method is installed yet")
    bad = tmp_path / "bad.pdf.html"
    bad.write_bytes(BAD["pdf"][0])
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "grist",
            "extract",
            "--method",
            methods[0],
            "--format",
            "json",
            str(page),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["metadata"]["title"] == "Harbour"
    done = subprocess.run(
        [sys.executable, "-m", "grist", "extract", "--method", methods[0], str(bad)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert (
        done.stderr
        == f"grist: error: {bad}: the input is not an HTML page: it looks like a PDF document\n"
    )


def test_empty_result_says_why(
    capsys: pytest.CaptureFixture[str], standin: str, tmp_path: Path
) -> None:
    path = tmp_path / "short.html"
    path.write_text("<p>Too short</p>")
    code, out, err = run(capsys, "--method", standin, str(path))
    assert (code, out) == (0, "")
    assert err == (
        f"grist: note: {path}: nothing extracted: "
        "no block was classified as content (1 blocks, all boilerplate)\n"
    )
    assert run(capsys, "--quiet", "--method", standin, str(path)) == (0, "", "")


def test_page_warnings_become_notes(capsys: pytest.CaptureFixture[str], standin: str,
                                    page: Path) -> None:
    code, out, err = run(capsys, "--method", f"{standin}/noted", str(page))
    assert code == 0 and out == TEXT + "\n"
    assert err == f"grist: note: {page}: standin: a page note\n"
    assert run(capsys, "--quiet", "--method", f"{standin}/noted", str(page))[2] == ""
    assert run(capsys, "-q", "--method", f"{standin}/noted", str(page))[2] == ""


def test_json_lines_input_one_record_per_line_and_bad_lines_reported(
    capsys: pytest.CaptureFixture[str], standin: str, tmp_path: Path
) -> None:
    import gzip

    data = tmp_path / "pages.jsonl.gz"
    lines = ["\ufeff" + json.dumps({"id": "one", "html": GOOD, "url": "https://a.example/1"}),
             "{not json", json.dumps({"url": "https://a.example/3"}), json.dumps({"html": GOOD}),
             '{"html": "a\tb"}']  # a byte-order mark opens the file; a raw tab in a string
    data.write_bytes(gzip.compress("\n".join(lines).encode()))
    code, out, err = run(capsys, "--method", standin, "--format", "json", str(data))
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and len(records) == 5
    assert records[0]["input"] == f"{data}:1 (one)" and records[0]["url"] == "https://a.example/1"
    assert records[0]["text"] == TEXT and records[3]["text"] == TEXT
    assert records[1]["reason"] == records[2]["reason"] == records[4]["reason"] == "dataset-error"
    assert records[1]["error"] == "the line is not JSON (Expecting property name enclosed in " \
        "double quotes, at character 2)" and "'html'" in records[2]["error"]
    assert records[4]["error"] == "the line is not JSON (a control character inside a string: " \
        "a tab or line break must be \\t or \\n, at character 12)"
    assert err.splitlines()[-1].startswith("grist extract: 5 pages, 2 results, 3 errors")


def _stdin(data: bytes) -> io.TextIOWrapper:
    """A stdin that can be read ahead, as a pipe's or a file's is."""
    return io.TextIOWrapper(io.BufferedReader(io.BytesIO(data)))


@pytest.mark.parametrize("compressed", [False, True])
def test_json_lines_on_stdin_are_read_as_records(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, standin: str,
    compressed: bool
) -> None:
    """``zcat pages.jsonl.gz | grist extract -`` gave one page whose text was the JSON."""
    import gzip

    lines = "\n".join([json.dumps({"id": "one", "html": GOOD}), "{not json",
                       json.dumps({"html": GOOD})]).encode()
    monkeypatch.setattr(sys, "stdin", _stdin(gzip.compress(lines) if compressed else lines))
    code, out, err = run(capsys, "--method", standin, "--format", "json", "-")
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 1
    assert [r["input"] for r in records] == ["<stdin>:1 (one)", "<stdin>:2", "<stdin>:3"]
    assert records[0]["text"] == records[2]["text"] == TEXT
    assert records[1]["reason"] == "dataset-error"
    assert err.splitlines()[-1].startswith("grist extract: 3 pages, 2 results, 1 error")


def test_a_page_on_stdin_that_starts_with_spaces_is_still_a_page(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, standin: str
) -> None:
    monkeypatch.setattr(sys, "stdin", _stdin(b"\n  \t" + GOOD.encode()))
    assert run(capsys, "--method", standin, "-") == (0, TEXT + "\n", "")


def test_summary_when_stderr_is_not_a_terminal(tmp_path: Path, page: Path) -> None:
    bad = tmp_path / "bad.html"
    bad.write_bytes(b"")
    done = subprocess.run(
        [sys.executable, "-m", "grist", "extract", "--method", "lineblock", str(page), str(bad)],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1].startswith(
        "grist extract: 2 pages, 1 result, 1 error (1 empty-input) in ")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_stdout_on_a_full_disk_is_a_message_not_a_traceback(page: Path) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "grist", "extract", "--method", "justext",
                               "--format", "json", str(page)], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=60, check=False)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "grist: error: cannot write the output: No space left on device" in done.stderr


def _numbered_pages(tmp_path: Path, count: int) -> Path:
    root = tmp_path / "many"
    root.mkdir()
    for n in range(count):
        story = (f"<p>The old harbour reopened on day {n} after two years of work, and the "
                 "fishing boats that had moored in the next town all came back to it.</p>")
        (root / f"p{n:03d}.html").write_text(GOOD.replace("</body>", story * 3 + "</body>"))
    return root


def test_worker_processes_write_what_one_process_writes_in_the_same_order(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from grist.cli.extract import EXTRACT_FILES_PER_SHARD

    root = _numbered_pages(tmp_path, 2 * EXTRACT_FILES_PER_SHARD + 3)  # three shards
    code, alone, _ = run(capsys, "--quiet", str(root))
    assert code == 0 and alone.count("==> ") == 2 * EXTRACT_FILES_PER_SHARD + 3
    assert alone.count("reopened on day 102 after") == 3
    code, workers, _ = run(capsys, "--quiet", "-j", "2", str(root))
    assert code == 0 and workers == alone


def test_a_folders_json_lines_and_warc_files_are_read_as_records_with_or_without_workers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from warc_files import response, write_warc

    root = _numbered_pages(tmp_path, 2)
    records = [json.dumps({"id": f"j{n}", "html": GOOD.replace("</body>", f"<p>Line {n} of the "
                          "file tells of the harbour and the boats that came back.</p></body>")})
               for n in range(3)]
    (root / "more.jsonl").write_text("\n".join(records) + "\nnot json\n")
    write_warc(root / "crawl.warc.gz", [response(n) for n in range(2)])
    code, alone, err = run(capsys, "--quiet", "--format", "json", str(root))
    inputs = [json.loads(line)["input"] for line in alone.splitlines()]
    assert code == 1 and len(inputs) == 2 + 4 + 2  # pages, JSON lines (one broken), records
    assert f"{root}/more.jsonl:2 (j1)" in inputs and f"{root}/more.jsonl:4" in inputs
    assert err.splitlines()[-1].startswith("grist extract: 8 pages, 7 results, 1 error ")
    code, workers, _ = run(capsys, "--quiet", "-j", "2", "--format", "json", str(root))
    assert code == 1 and workers == alone


def test_a_warc_files_records_are_named_alike_in_a_folder_or_named_directly(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A WARC file found in a folder wrote its records as ``crawl.warc``, ``crawl.warc-2``, ...;
    named directly, after each record's id: now after the id both ways."""
    from warc_files import response, write_warc

    root = _numbered_pages(tmp_path, 1)
    write_warc(root / "crawl.warc.gz", [response(n) for n in range(2)])
    written = {}
    for way, inputs in (("folder", [str(root)]),
                        ("named", [str(root / "crawl.warc.gz"), str(root / "p000.html")])):
        code, _, _ = run(capsys, "--quiet", "--out", str(tmp_path / way), *inputs)
        assert code == 0
        written[way] = sorted(p.name for p in (tmp_path / way).iterdir())
    assert written["folder"] == written["named"] == [
        "p000.txt", "urn_uuid_00000000-0000-0000-0000-000000000000.txt",
        "urn_uuid_00000000-0000-0000-0000-000000000001.txt"]


def test_links_in_a_folder_are_inputs_of_their_own_and_a_dangling_one_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = _numbered_pages(tmp_path, 1)
    (root / "link.html").symlink_to("p000.html")
    (root / "dangling.html").symlink_to("gone.html")
    for jobs in ("1", "2"):
        code, out, err = run(capsys, "-j", jobs, "--format", "json", str(root))
        assert code == 0
        assert [json.loads(line)["input"] for line in out.splitlines()] == [
            f"{root}/link.html", f"{root}/p000.html"]
        assert f"grist: skipped: {root}/dangling.html: No such file or directory" in err
        assert "2 pages, 2 results, 0 errors, 1 other file skipped" in err


def test_finished_shards_are_written_in_input_order_as_soon_as_they_can_be(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from grist.batch.job import JobConfig
    from grist.batch.run import BatchOptions, run_job
    from grist.cli.extract import _ShardsInOrder
    from grist.io.sinks import ResultSink, Summary
    from grist.progress import progress

    root = _numbered_pages(tmp_path, 5)
    job = tmp_path / "job"
    config = JobConfig(method="justext")
    run_job([str(root)], config, job, BatchOptions(jobs=1, files_per_shard=2), Summary("extract"))
    second = job / "shard-00001.done"
    held = second.read_bytes()
    second.unlink()  # as while the second shard is still being extracted
    with progress(unit="page", quiet=True) as bar:
        shards = _ShardsInOrder(job, config, ResultSink("text", None, True, bar, True,
                                                        Summary("x")), {}, "text")
        shards.write_ready()
        first = capsys.readouterr().out
        assert [line for line in first.splitlines() if line.startswith("==> ")] == [
            f"==> {root}/p000.html <==", f"==> {root}/p001.html <=="]
        (job / "shard-00002.done").rename(job / "later")  # the third finishes before the second
        second.write_bytes(held)
        shards.write_ready()
        assert [line for line in capsys.readouterr().out.splitlines()
                if line.startswith("==> ")] == [f"==> {root}/p002.html <==",
                                                f"==> {root}/p003.html <=="]
        (job / "later").rename(job / "shard-00002.done")
        shards.write_ready()
        assert f"==> {root}/p004.html <==" in capsys.readouterr().out
        shards.write_ready()
        assert capsys.readouterr().out == ""


def _mixed_folder(tmp_path: Path) -> Path:
    """Four pages (one fails) among files that are not pages: first, between pages and last."""
    root = tmp_path / "mixed"
    (root / "sub").mkdir(parents=True)
    (root / "0.png").write_bytes(BAD["png"][0])
    (root / "a.html").write_text(GOOD)
    (root / "b.html").write_bytes(BAD["notext"][0])
    (root / "c.pdf").write_bytes(BAD["pdf"][0])
    (root / "sub" / "d.html").write_text(GOOD.replace("Monday", "Tuesday"))
    (root / "e.html").write_text(GOOD.replace("Monday", "Friday"))
    (root / "f.txt").write_text("not a page")
    return root


@pytest.mark.parametrize("way", [["--format", "text"], ["--format", "json"],
                                 ["--format", "csv", "--out", "OUT"]], ids=["text", "json", "out"])
def test_workers_name_the_files_that_are_not_pages_as_one_process_does(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, way: list[str]
) -> None:
    """Workers sniff a folder's files: the same stdout, stderr lines (in the same order, the
    skipped files among the errors), summary counts, status and written files."""
    root = _mixed_folder(tmp_path)
    seen = {}
    for jobs in ("1", "2"):
        args = [str(tmp_path / f"out{jobs}") if arg == "OUT" else arg for arg in way]
        code, out, err = run(capsys, "-j", jobs, *args, str(root))
        written = sorted(str(p.relative_to(tmp_path / f"out{jobs}")) for p in
                         (tmp_path / f"out{jobs}").rglob("*")) if "--out" in way else []
        *lines, summary = err.splitlines()
        seen[jobs] = code, out, [*lines, summary.rsplit(" in ", 1)[0]], written  # (no time)
    assert seen["2"] == seen["1"]
    code, _, err, written = seen["1"]
    assert code == 1 and err[1].startswith(f"grist: error: {root}/b.html: the page has no "
                                           "visible text")
    assert err[:1] + err[2:] == [
        f"grist: skipped: {root}/0.png: not HTML: it looks like a PNG image",
        f"grist: skipped: {root}/c.pdf: not HTML: it looks like a PDF document",
        f"grist: skipped: {root}/f.txt: not HTML: no HTML tag in its first 4 KiB",
        "grist extract: 4 pages, 3 results, 1 error (1 no-text), 3 other files skipped"]
    assert written == ([] if "--out" not in way else ["a.csv", "e.csv", "sub", "sub/d.csv"])


def test_the_parent_of_workers_reads_no_page(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Telling pages from other files is the workers' work: the parent process reads none of a
    folder's files (it once read every one whole, serially, before any worker started)."""
    from grist.io.sources import PageOrError, Source

    root = _mixed_folder(tmp_path)
    read_here: list[str] = []
    pages = Source.pages

    def recorded(source: Source, *args: Any, **kwargs: Any) -> Iterator[PageOrError]:
        read_here.append(source.location)
        return pages(source, *args, **kwargs)

    monkeypatch.setattr(Source, "pages", recorded)  # in this process only: workers import grist
    code, out, err = run(capsys, "-j", "2", "--format", "json", str(root))
    assert read_here == []
    assert code == 1 and len(out.splitlines()) == 4
    assert err.splitlines()[-1].startswith("grist extract: 4 pages, 3 results, 1 error "
                                           "(1 no-text), 3 other files skipped in ")


def test_skipped_files_keep_their_place_across_shards_and_beside_a_warc_files_records(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Shards of two files, so that files that are not pages open and close shards: each is named
    where it stood; a WARC file's records that are not pages stay a note of the summary."""
    from warc_files import response, warc_record, write_warc

    from grist.batch.job import JobConfig, absolute
    from grist.batch.run import BatchOptions, run_job
    from grist.cli.extract import _ShardsInOrder
    from grist.io.sinks import ResultSink, Summary
    from grist.io.sources import expand
    from grist.methods import DEFAULT_METHOD
    from grist.progress import progress

    root = _mixed_folder(tmp_path)
    code, _, alone = run(capsys, str(root))
    sources = expand([str(root)])[0]
    config = JobConfig(method=DEFAULT_METHOD)
    run_job(sources, config, tmp_path / "job", BatchOptions(jobs=1, files_per_shard=2),
            Summary("extract"))
    with progress(unit="page", quiet=True) as bar:
        _ShardsInOrder(tmp_path / "job", config, ResultSink("text", None, True, bar, False,
                                                            Summary("x")),
                       {absolute(s.location): s for s in sources}, "text").write_ready()
    assert capsys.readouterr().err.splitlines() == alone.splitlines()[:-1]

    write_warc(root / "crawl.warc.gz", [response(0), warc_record("request", 7, b"GET /")])
    code, _, err = run(capsys, "-j", "2", str(root))
    assert code == 1 and err.count("grist: skipped: ") == 3
    assert err.splitlines()[-1].startswith("grist extract: 5 pages, 4 results, 1 error "
                                           "(1 no-text), 3 other files skipped in ")
    assert err.splitlines()[-1].endswith("; 1 record that is not a page (1 request)")
