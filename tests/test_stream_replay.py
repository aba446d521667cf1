"""``grist stream --replay``: stored pages through the same pipeline, without the network."""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path

import pytest
from stream_server import article

from grist.cli import main
from grist.io.sources import Unreadable
from grist.stream.replay import replay_pages


def record(n: int, date: str | None, url: str | None = None) -> str:
    page = {"html": article(n).decode(), "url": url or f"https://news.example/a/{n}.html"}
    if date:
        page["date"] = date
    return json.dumps(page)


def test_time_order_sorts_by_date_and_file_order_keeps_the_file(tmp_path: Path) -> None:
    lines = [record(1, "2021-03-02T10:00:00Z"), record(2, "2021-03-01"), record(3, None),
             record(4, "2021-03-01T12:00:00+02:00")]
    (tmp_path / "p.jsonl.gz").write_bytes(gzip.compress("\n".join(lines).encode()))
    timed = [p.url.rsplit("/", 1)[1] for p in replay_pages([tmp_path / "p.jsonl.gz"], "time")]
    assert timed == ["2.html", "4.html", "1.html", "3.html"]  # undated last
    stored = [p.input for p in replay_pages([tmp_path / "p.jsonl.gz"], "file")]
    assert stored == [f"{tmp_path / 'p.jsonl.gz'}:{n}" for n in (1, 2, 3, 4)]


def test_a_folder_of_pages_and_json_lines(tmp_path: Path) -> None:
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "a.html").write_text(
        "<html><head><link rel=canonical href='https://news.example/a/9.html'></head>"
        "<body><p>x</p></body></html>")
    (tmp_path / "pages" / "b.html").write_text("<p>no url here</p>")
    (tmp_path / "pages" / "more.jsonl").write_text(record(5, None) + "\n{broken\n")
    found = list(replay_pages([tmp_path / "pages"], "file"))
    assert [getattr(p, "url", None) for p in found[:1]] == ["https://news.example/a/9.html"]
    assert isinstance(found[1], Unreadable) and "names no URL" in str(found[1].error)
    assert found[2].url == "https://news.example/a/5.html"
    assert isinstance(found[3], Unreadable) and found[3].input.endswith("more.jsonl:2")


def test_replay_writes_pages_and_errors_and_a_rerun_resumes(tmp_path: Path) -> None:
    pages = [record(n, f"2021-03-{n:02d}") for n in range(1, 9)]
    pages.append(record(3, "2021-03-20"))  # the same URL again: a duplicate by URL key
    pages.append(json.dumps({"html": "<p>x</p>"}))  # no url
    (tmp_path / "pages.jsonl").write_text("\n".join(pages) + "\n")
    args = ["stream", "--replay", str(tmp_path / "pages.jsonl"), "--out",
            str(tmp_path / "out.jsonl"), "--state", str(tmp_path / "s.db"), "--quiet"]
    assert main(args) == 1  # the page without a URL failed
    out = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    done = [r for r in out if "error" not in r]
    assert [r["url"].rsplit("/", 1)[1] for r in done] == [f"{n}.html" for n in range(1, 9)]
    [error] = [r for r in out if "error" in r]
    assert error["input"].endswith("pages.jsonl:10") and "no 'url'" in error["error"]
    assert all(set(b) >= {"text", "label", "decided_by", "reason"} for b in done[-1]["blocks"])
    assert any(b["decided_by"] == "tree" for b in done[-1]["blocks"])
    before = (tmp_path / "out.jsonl").read_bytes()
    assert main(args) == 0  # nothing new, nothing failed in this run
    assert (tmp_path / "out.jsonl").read_bytes() == before  # nothing processed twice


def test_replay_without_state_and_into_a_folder(tmp_path: Path) -> None:
    (tmp_path / "p.jsonl").write_text("\n".join(record(n, None) for n in range(1, 4)))
    assert main(["stream", "--replay", str(tmp_path / "p.jsonl"), "--out",
                 str(tmp_path / "out"), "--quiet"]) == 0
    files = sorted((tmp_path / "out" / "news.example").glob("*.json"))
    assert len(files) == 3
    texts = {json.loads(f.read_text())["url"]: json.loads(f.read_text())["text"] for f in files}
    assert "number 2" in texts["https://news.example/a/2.html"]


def test_a_warc_file_replays_its_pages_in_time_or_file_order(tmp_path: Path) -> None:
    from warc_files import http_response, warc_record, write_warc

    def record(number: int, date: str, url: str) -> bytes:
        raw = warc_record("response", number, http_response(article(number)), url=url)
        return raw.replace(b"WARC-Date: 2024-05-06T07:08:09Z", f"WARC-Date: {date}".encode())

    write_warc(tmp_path / "crawl.warc.gz", [
        record(1, "2024-05-03T00:00:00Z", "https://news.example/a/1.html"),
        warc_record("request", 2, b"GET / HTTP/1.1\r\n\r\n", url="https://news.example/"),
        record(3, "2024-05-01T00:00:00Z", "https://news.example/a/3.html"),
        record(4, "2024-05-02T00:00:00Z", "https://news.example/a/4.html")])
    timed = [p.url.rsplit("/", 1)[1] for p in replay_pages([tmp_path], "time")]
    assert timed == ["3.html", "4.html", "1.html"]  # the request record is not a page
    stored = list(replay_pages([tmp_path / "crawl.warc.gz"], "file"))
    assert [p.url.rsplit("/", 1)[1] for p in stored] == ["1.html", "3.html", "4.html"]
    assert stored[0].date.startswith("2024-05-03") and "urn:uuid:" in stored[0].input
    assert main(["stream", "--replay", str(tmp_path / "crawl.warc.gz"), "--out",
                 str(tmp_path / "out.jsonl"), "--quiet"]) == 0
    out = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [r["url"].rsplit("/", 1)[1] for r in out] == ["3.html", "4.html", "1.html"]


def test_a_cut_off_json_lines_file_replays_its_whole_lines_in_either_order(tmp_path: Path) -> None:
    """Time order decompresses the file first; a cut there stopped the whole replay."""
    lines = [record(n, f"2021-03-{n:02d}") for n in range(1, 9)]
    data = gzip.compress(("\n".join(lines) + "\n").encode(), compresslevel=0)  # lines kept whole
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(data[: len(data) * 5 // 8])
    (tmp_path / "more.jsonl").write_text(record(20, "2021-02-01") + "\n")
    whole = zlib.decompressobj(31).decompress(cut.read_bytes()).count(b"\n")
    assert 1 <= whole < 8
    for order in ("time", "file"):
        found = list(replay_pages([cut, tmp_path / "more.jsonl"], order))
        pages = [p.url.rsplit("/", 1)[1] for p in found if not isinstance(p, Unreadable)]
        expected = [f"{n}.html" for n in range(1, whole + 1)]
        assert pages == (["20.html", *expected] if order == "time" else [*expected, "20.html"])
        [error] = [p for p in found if isinstance(p, Unreadable)]
        assert error.input == f"{cut}:{whole + 1}" and f"past line {whole}" in str(error.error)
    out = tmp_path / "out.jsonl"
    assert main(["stream", "--replay", str(cut), str(tmp_path / "more.jsonl"), "--out", str(out),
                 "--quiet"]) == 1  # the cut line is an error record
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == whole + 2 and sum("error" in r for r in records) == 1


def test_a_line_nested_past_the_parser_is_an_error_in_either_order(tmp_path: Path) -> None:
    lines = [record(1, "2021-03-02").encode(), b"[" * 100_000 + b"]" * 100_000,
             record(2, "2021-03-01").encode()]
    (tmp_path / "p.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    for order in ("time", "file"):
        found = list(replay_pages([tmp_path / "p.jsonl"], order))
        assert [getattr(p, "url", "").rsplit("/", 1)[-1] for p in found if
                not isinstance(p, Unreadable)] == (["2.html", "1.html"] if order == "time"
                                                   else ["1.html", "2.html"])
        [error] = [p for p in found if isinstance(p, Unreadable)]
        assert error.input.endswith("p.jsonl:2") and "deeper" in str(error.error)


def test_a_host_longer_than_any_dns_name_gets_a_folder_it_fits_in(tmp_path: Path) -> None:
    hosts = ["a" * 300 + ".example", "é" * 200 + ".example"]
    (tmp_path / "p.jsonl").write_text("".join(record(n, None, f"https://{host}/{n}.html") + "\n"
                                              for n, host in enumerate(hosts)))
    assert main(["stream", "--replay", str(tmp_path / "p.jsonl"), "--out",
                 str(tmp_path / "out"), "--quiet"]) == 0
    folders = [p for p in (tmp_path / "out").iterdir() if p.is_dir()]
    assert len(folders) == 2 and all(len(p.name.encode()) <= 200 for p in folders)
    assert all(len(list(p.glob("*.json"))) == 1 for p in folders)


def test_pages_finished_before_are_counted_not_dropped_silently(tmp_path: Path, capsys) -> None:
    (tmp_path / "p.jsonl").write_text("".join(record(n, None) + "\n" for n in range(1, 4)))
    args = ["stream", "--replay", str(tmp_path / "p.jsonl"), str(tmp_path / "p.jsonl"),
            "--out", str(tmp_path / "out.jsonl"), "--state", str(tmp_path / "s.db")]
    assert main(args) == 0
    assert "extracted 3 · errors 0 · done before 3" in capsys.readouterr().err
    assert main(args) == 0  # a rerun: all six were finished before
    assert "extracted 0 · errors 0 · done before 6" in capsys.readouterr().err


def test_an_output_that_cannot_be_written_is_a_clear_error(tmp_path: Path, capsys) -> None:
    (tmp_path / "p.jsonl").write_text(record(1, None) + "\n")
    (tmp_path / "taken").write_text("a file where the output folder would go")
    blocked = tmp_path / "taken" / "out.jsonl"
    for out in (tmp_path / "taken", blocked):
        assert main(["stream", "--replay", str(tmp_path / "p.jsonl"), "--out", str(out),
                     "--quiet"]) == 1
        assert f"grist: error: cannot write the output {out}" in capsys.readouterr().err


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_stops_the_replay_with_a_message(tmp_path: Path, capsys) -> None:
    (tmp_path / "p.jsonl").write_text(record(1, None) + "\n")
    (tmp_path / "out.jsonl").symlink_to("/dev/full")  # every write there fails with ENOSPC
    assert main(["stream", "--replay", str(tmp_path / "p.jsonl"), "--out",
                 str(tmp_path / "out.jsonl"), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert f"cannot write {tmp_path / 'out.jsonl'}: No space left on device" in err


def test_temporaries_of_a_killed_run_are_removed_from_the_folders_written_again(
        tmp_path: Path) -> None:
    import subprocess
    import sys

    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)
    domain = tmp_path / "out" / "news.example"
    domain.mkdir(parents=True)
    left = domain / f".0123456789abcdef.json.{int(ended.stdout)}.0123456789ab.tmp"
    left.write_text("half a page")
    (tmp_path / "p.jsonl").write_text(record(1, None) + "\n")
    assert main(["stream", "--replay", str(tmp_path / "p.jsonl"), "--out",
                 str(tmp_path / "out"), "--quiet"]) == 0
    assert [p.suffix for p in domain.iterdir()] == [".json"]


@pytest.mark.parametrize(("option", "value", "message"), [
    ("--interval", "banana", "argument --interval: not a duration: 'banana'"),
    ("--max-age", "2 weeks", "argument --max-age: not a duration"),
    ("--retry-delay", "5x", "argument --retry-delay: not a duration"),
    ("--heuristic", "strict-support-x", "argument --heuristic: unknown URL Tree heuristic"),
])
def test_a_malformed_option_is_a_usage_error_naming_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, value: str,
        message: str) -> None:
    """A duration or heuristic the command cannot read exited 1 with a message that named no
    option; the command line's other malformed values exit 2 naming theirs."""
    (tmp_path / "p.jsonl").write_text("")
    with pytest.raises(SystemExit) as stop:
        main(["stream", "--replay", str(tmp_path / "p.jsonl"), "--out",
              str(tmp_path / "o.jsonl"), option, value])
    assert stop.value.code == 2 and message in capsys.readouterr().err
