"""``grist extract`` inputs and output options: -i lists, --url, gzip files, CSV batches,
--links/--images/--with-metadata/--explain."""

from __future__ import annotations

import csv
import gzip
import io
import json
import zlib
from pathlib import Path

import pytest

from grist.cli import main

PAGE = ("<html><head><title>Harbour | Coast</title><meta property='og:site_name' content='Coast'>"
        "</head><body><h2>Harbour reopens</h2><p>The old <b>harbour</b> reopened on Monday, see "
        "<a href='/works'>the works</a> and <img src='pier.jpg' alt='the pier'> photo.</p>"
        "</body></html>")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["extract", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _pages(tmp_path: Path) -> list[Path]:
    plain = tmp_path / "a.html"
    plain.write_text(PAGE)
    packed = tmp_path / "b.html.gz"
    packed.write_bytes(gzip.compress(PAGE.replace("Monday", "Friday").encode()))
    return [plain, packed]


def test_gzip_files_are_read_whatever_their_name(capsys, standin: str, tmp_path: Path) -> None:
    _, packed = _pages(tmp_path)
    renamed = tmp_path / "page"
    renamed.write_bytes(packed.read_bytes())
    code, out, _ = run(capsys, "--method", standin, str(renamed))
    assert code == 0 and "reopened on Friday" in out


def test_input_list_with_comments(capsys, standin: str, tmp_path: Path) -> None:
    plain, packed = _pages(tmp_path)
    listing = tmp_path / "inputs.txt"
    listing.write_text(f"# pages\n{plain}\n\n{packed}\n{tmp_path / 'missing.html'}\n"
                       "ftp://files.example/a.html\n")
    code, out, err = run(capsys, "--method", standin, "--format", "json", "-i", str(listing))
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["input"] for r in records] == [str(plain), str(packed), str(tmp_path /
                                                                          "missing.html"),
                                             "ftp://files.example/a.html"]
    assert "Friday" in records[1]["text"]
    assert [r["reason"] for r in records[2:]] == ["unreadable-input"] * 2
    assert records[3]["error"].startswith("not a file, and not an http(s) URL")
    assert code == 1 and "4 pages, 2 results, 2 errors (2 unreadable-input)" in err


def test_url_sets_the_page_url(capsys, standin: str, tmp_path: Path) -> None:
    plain, _ = _pages(tmp_path)
    code, out, _ = run(capsys, "--method", standin, "--format", "markdown", "--links", "--images",
                       "--url", "https://coast.example/news/1", str(plain))
    assert code == 0
    assert "[the works](https://coast.example/works)" in out
    assert "![the pier](https://coast.example/news/pier.jpg)" in out
    assert "The old **harbour** reopened" in out


def test_url_needs_one_file_or_stdin(capsys, standin: str, tmp_path: Path) -> None:
    plain, packed = _pages(tmp_path)
    code, _, err = run(capsys, "--method", standin, "--url", "https://x.org/", str(plain),
                       str(packed))
    assert code == 1 and "--url sets the URL of one page" in err


def test_no_input_is_a_clear_error(capsys, standin: str) -> None:
    code, _, err = run(capsys, "--method", standin)
    assert code == 1 and err.startswith("grist: error: no input")


def test_csv_batch_has_one_header(capsys, standin: str, tmp_path: Path) -> None:
    plain, packed = _pages(tmp_path)
    code, out, _ = run(capsys, "--method", standin, "--format", "csv", str(plain), str(packed))
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and [r["input"] for r in rows] == [str(plain), str(packed)]
    assert rows[0]["title"] == "Harbour" and rows[0]["sitename"] == "Coast"
    assert "reopened on Friday" in rows[1]["text"]


def test_with_metadata_and_explain(capsys, standin: str, tmp_path: Path) -> None:
    plain, _ = _pages(tmp_path)
    code, out, _ = run(capsys, "--method", standin, "--with-metadata", str(plain))
    assert code == 0 and out.startswith('---\ntitle: "Harbour"\n') and "\n---\n\n" in out
    _, compact, _ = run(capsys, "--method", standin, "--format", "json", str(plain))
    _, explained, _ = run(capsys, "--method", standin, "--format", "json", "--explain",
                          str(plain))
    compact_block = json.loads(compact)["blocks"][0]
    explained_block = json.loads(explained)["blocks"][0]
    assert set(compact_block) == {"text", "role", "label", "score", "reason"}
    assert {"path", "tag", "info", "cell"} <= set(explained_block)
    assert json.loads(compact)["metadata"]["sitename"] == "Coast"


def cut_json_lines(tmp_path: Path, records: int, keep: float) -> tuple[Path, int]:
    """A .jsonl.gz of ``records`` pages (random words, so that compression keeps their order of
    size) cut to ``keep`` of its bytes; returns it and how many whole lines it still holds."""
    import random

    rng = random.Random(7)
    words = ["".join(rng.choice("abcdefghij") for _ in range(6)) for _ in range(2000)]
    lines = [json.dumps({"id": f"p{n}", "html": "<html><body><p>" + " ".join(
        rng.choice(words) for _ in range(300)) + ".</p></body></html>"}) for n in range(records)]
    data = gzip.compress(("\n".join(lines) + "\n").encode())
    path = tmp_path / "crawl.jsonl.gz"
    path.write_bytes(data[: int(len(data) * keep)])
    readable = zlib.decompressobj(31).decompress(path.read_bytes())  # all zlib gets out of it
    return path, readable.count(b"\n")


def test_a_cut_off_json_lines_file_keeps_its_whole_lines_and_the_other_inputs(
        capsys, standin: str, tmp_path: Path) -> None:
    cut, whole = cut_json_lines(tmp_path, 6, 0.6)
    assert 1 <= whole < 6
    plain, _ = _pages(tmp_path)
    code, out, err = run(capsys, "--method", standin, "--format", "json", str(cut), str(plain))
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["input"] for r in records] == [
        *(f"{cut}:{n} (p{n - 1})" for n in range(1, whole + 1)), f"{cut}:{whole + 1}", str(plain)]
    assert f"past line {whole}" in records[whole]["error"]
    assert records[whole]["reason"] == "dataset-error" and "harbour" in records[-1]["text"]
    assert code == 1 and f"{whole + 2} pages, {whole + 1} results, 1 error" in err


def test_json_lines_nested_past_the_parser_are_errors_and_bad_utf8_is_replaced(
        capsys, standin: str, tmp_path: Path) -> None:
    data = tmp_path / "pages.jsonl"
    page = json.dumps({"id": "good", "html": PAGE}).encode()
    data.write_bytes(b"\n".join([
        page, b"[" * 100_000 + b"]" * 100_000, b'{"html": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        page.replace(b"harbour", b"harb\xffour")]) + b"\n")
    code, out, err = run(capsys, "--method", standin, "--format", "json", str(data))
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["input"] for r in records] == [f"{data}:{n}" + (" (good)" if n in (1, 4) else "")
                                             for n in (1, 2, 3, 4)]
    assert all("nests arrays or objects deeper" in r["error"] for r in records[1:3])
    assert "harb\ufffdour" in records[3]["text"]
    assert code == 1 and "4 pages, 2 results, 2 errors" in err


def test_names_past_what_file_systems_take_are_shortened_and_stay_apart(
        capsys, standin: str, tmp_path: Path) -> None:
    data = tmp_path / "pages.jsonl"
    data.write_text("".join(json.dumps({"id": name, "html": PAGE}) + "\n"
                            for name in ("x" * 400, "x" * 399, "é" * 300, "short")))
    code, _, err = run(capsys, "--method", standin, "--out", str(tmp_path / "out"), str(data))
    assert code == 0 and "4 pages, 4 results" in err
    names = sorted(p.name for p in (tmp_path / "out" / "pages").iterdir())
    assert len(names) == 4 and all(len(n.encode()) <= 210 for n in names)
    assert "4_(short).txt" in names


def test_lone_surrogates_in_json_lines_are_replaced_not_written(
        capsys, standin: str, tmp_path: Path) -> None:
    """A JSON escape such as \\ud800 makes a string UTF-8 cannot write: every format crashed."""
    data = tmp_path / "pages.jsonl"
    data.write_text('{"id": "s\\udfff", "url": "https://e.example/\\ud800", '
                    '"html": "<title>T\\udfff</title><p>The harbour \\ud800 reopened.</p>"}\n')
    for fmt in ("json", "html", "csv", "markdown", "xml"):
        code, out, err = run(capsys, "--method", standin, "--format", fmt, "--with-metadata", str(data))
        assert code == 0 and "1 page, 1 result" in err, fmt
        assert "\ufffd" in out or "\\ufffd" in out, fmt
    record = json.loads(run(capsys, "--method", standin, "--format", "json", str(data))[1])
    assert record["input"] == f"{data}:1 (s\ufffd)" and record["url"] == "https://e.example/\ufffd"


def test_a_damaged_page_in_a_folder_is_an_error_not_a_skipped_file(
        capsys, standin: str, tmp_path: Path) -> None:
    """A gzip file whose data is damaged is an error record wherever the damage is: damaged at
    its start (nothing readable), it was skipped unseen; so was one whose readable start was not
    HTML (a cut-off .png.gz)."""
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "a.html").write_text(PAGE)
    page = gzip.compress((PAGE * 200).encode())
    (folder / "cut.html.gz").write_bytes(page[: len(page) // 2])  # starts like a page
    (folder / "bad.html.gz").write_bytes(b"\x1f\x8b\x08\x00garbage")  # damaged at its start
    (folder / "logo.png.gz").write_bytes(gzip.compress(b"\x89PNG\r\n\x1a\n" + bytes(3000))[:40])
    (folder / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(3000))  # whole: no page
    code, out, err = run(capsys, "--method", standin, "--format", "json", str(folder))
    records = {Path(r["input"]).name: r for r in map(json.loads, out.splitlines())}
    assert set(records) == {"a.html", "bad.html.gz", "cut.html.gz", "logo.png.gz"}
    assert {records[name]["reason"] for name in ("bad.html.gz", "cut.html.gz",
                                                 "logo.png.gz")} == {"corrupt-input"}
    assert records["cut.html.gz"]["error"] == "the gzip data is cut off"
    assert "skipped:" in err and "logo.png: not HTML: it looks like a PNG image" in err
    assert code == 1 and "4 pages, 1 result, 3 errors (3 corrupt-input), 1 other file skipped" in err
