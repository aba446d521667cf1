"""grist batch on the local executor: every input record in the output once (a result or an error
with its reason), counts that add up, hung and crashing pages isolated, the output formats."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from grist.io.records import read_final
from local_server import server  # noqa: F401 - the fixture
from warc_files import page_html, response, warc_record, write_warc

TESTS = Path(__file__).parent


def grist(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(TESTS), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "grist", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=120)


def outputs(out: Path) -> list[dict]:
    records = []
    for path in sorted(out.glob("shard-*")):
        if path.name.endswith((".jsonl", ".jsonl.gz", ".parquet")):
            records += list(read_final(path))
    return records


def mixed_inputs(tmp_path: Path) -> tuple[list[str], int]:
    """A WARC with good and bad records, a JSON-lines file and a folder; returns (inputs, pages)."""
    warc = tmp_path / "crawl.warc.gz"
    info = warc_record("warcinfo", 99, b"x: y\r\n", content_type="application/warc-fields")
    write_warc(warc, [info,
                      *[response(n) for n in range(6)],
                      response(6, b"\x89PNG\r\n\x1a\n\x00\x00", content_type="image/png"),
                      warc_record("request", 98, b"GET / HTTP/1.1\r\n\r\n")])
    lines = [json.dumps({"html": page_html(10 + n), "url": f"https://j.example/{n}", "id": f"j{n}"})
             for n in range(4)] + ["not json"]
    (tmp_path / "pages.jsonl").write_text("\n".join(lines) + "\n")
    damaged = tmp_path / "damaged.warc.gz"
    offsets = write_warc(damaged, [response(n) for n in range(30, 34)])
    data = bytearray(damaged.read_bytes())
    data[offsets[1] + 30: offsets[1] + 40] = bytes(10)  # a corrupt gzip member
    damaged.write_bytes(bytes(data[: offsets[3] + 25]))  # and the file cut off in the last one
    folder = tmp_path / "site"
    folder.mkdir()
    for n in range(3):
        (folder / f"p{n}.html").write_text(page_html(20 + n))
    (folder / "empty.html").write_text("")  # in a folder: skipped as no page, counted
    (tmp_path / "named.html").write_text("")  # named on the command line: an error record
    return ([str(warc), str(damaged), str(tmp_path / "pages.jsonl"), str(folder),
             str(tmp_path / "named.html")], 7 + 4 + 5 + 3 + 1)


def test_every_record_once_and_the_summary_adds_up(tmp_path):
    inputs, pages = mixed_inputs(tmp_path)
    run = grist("batch", *inputs, "--out", str(tmp_path / "out"), "-j", "2",
                "--plugin", "batch_plugin", "--method", "fragile", "--files-per-shard", "2")
    assert run.returncode == 1, run.stderr  # some pages failed
    records = outputs(tmp_path / "out")
    assert len(records) == pages
    assert len({(r["source"], r["input"]) for r in records}) == pages
    errors = {r["input"]: r["reason"] for r in records if "error" in r}
    assert sorted(errors.values()) == ["dataset-error", "empty-input", "not-html",
                                       "warc-error", "warc-error"]
    damage = [r for r in records if r["source"].endswith("damaged.warc.gz") and "error" in r]
    assert [("offset" in r, "bytes" in r["error"]) for r in damage] == [(True, True)] * 2
    warc_records = [r for r in records if r["source"].endswith("crawl.warc.gz")]
    assert warc_records[0]["url"] == "https://site0.example/0"
    assert warc_records[0]["date"] == "2024-05-06T07:08:09Z" and warc_records[0]["offset"] == \
        len(__import__("gzip").compress(warc_record("warcinfo", 99, b"x: y\r\n",
                                        content_type="application/warc-fields"), mtime=0))
    assert "Article number 3" in warc_records[3]["text"]
    image = next(r for r in warc_records if r.get("reason") == "not-html")
    assert (image["url"], image["date"]) == ("https://site0.example/6", warc_records[0]["date"])
    line = run.stderr.strip().splitlines()[-1]
    assert line.startswith(f"grist batch: {pages} pages, {pages - 5} results, 5 errors "
                           "(1 dataset-error, 1 empty-input, 1 not-html, 2 warc-error) in ")
    assert line.endswith("; 3 records that are not a page (1 file that is not a page, "
                         "1 request, 1 warcinfo)")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["pages"] == pages and len(summary["worker_peak_rss_mib"]) == 2
    again = grist("batch", *inputs, "--out", str(tmp_path / "out"), "-j", "2",
                  "--plugin", "batch_plugin", "--method", "fragile", "--files-per-shard", "2")
    assert again.stderr.strip().splitlines()[-1].split(" in ")[0] == line.split(" in ")[0]
    assert outputs(tmp_path / "out") == records
    other = grist("batch", *inputs, "--out", str(tmp_path / "out"), "--method", "lineblock")
    assert other.returncode == 1 and "holds another job" in other.stderr


def finished_two_shard_job(tmp_path: Path) -> list[str]:
    """Run a batch of four pages in two shards into ``tmp_path/out``; its arguments."""
    for n in range(4):
        (tmp_path / f"p{n}.html").write_text(page_html(n))
    args = ["batch", *(str(tmp_path / f"p{n}.html") for n in range(4)), "--out",
            str(tmp_path / "out"), "-j", "1", "--files-per-shard", "2", "--method", "justext"]
    assert grist(*args).returncode == 0
    return args


def test_a_damaged_marker_or_job_file_is_a_clear_error_on_resume(tmp_path):
    args = finished_two_shard_job(tmp_path)
    marker = tmp_path / "out" / "shard-00001.done"
    marker.write_text(marker.read_text()[:3])  # damaged by something outside grist
    again = grist(*args)
    assert again.returncode == 1 and "Traceback" not in again.stderr
    assert f"{marker} is damaged" in again.stderr and "shard-00001.*" in again.stderr
    (tmp_path / "out" / "job.json").write_text("garbage")
    again = grist(*args)
    assert again.returncode == 1 and "job.json is damaged (not JSON)" in again.stderr


def test_a_finished_shard_whose_output_was_cut_is_extracted_again(tmp_path):
    args = finished_two_shard_job(tmp_path)
    whole = outputs(tmp_path / "out")
    cut = tmp_path / "out" / "shard-00001.jsonl"
    cut.write_bytes(cut.read_bytes()[:-40])  # damaged after the run, by something else
    again = grist(*args)
    assert again.returncode == 0 and "1 shard extracted again: the output changed after it " \
        "was finished (shard-00001)" in again.stderr
    assert outputs(tmp_path / "out") == whole
    assert "extracted again" not in grist(*args).stderr  # nothing changed since


def test_a_folder_serves_one_batch_at_a_time(tmp_path):
    """Two batches on one folder both extracted every shard: each page was written twice."""
    import fcntl

    (tmp_path / "p.html").write_text(page_html(1))
    out = tmp_path / "out"
    args = ["batch", str(tmp_path / "p.html"), "--out", str(out), "--quiet"]
    assert grist(*args).returncode == 0
    held = os.open(out, os.O_RDONLY)  # as a running grist batch holds it
    try:
        fcntl.flock(held, fcntl.LOCK_EX)
        busy = grist(*args)
    finally:
        os.close(held)
    assert busy.returncode == 1 and f"{out} is in use by another grist batch" in busy.stderr
    assert grist(*args).returncode == 0  # free again


def test_hung_and_crashing_pages_cost_only_themselves(tmp_path):
    pages = [page_html(n) for n in range(8)]
    pages[2] = page_html(2, "HANG")
    pages[5] = page_html(5, "CRASH")
    write_warc(tmp_path / "w.warc.gz", [response(n, html) for n, html in enumerate(pages)])
    run = grist("batch", str(tmp_path / "w.warc.gz"), "--out", str(tmp_path / "out"), "-j", "1",
                "--plugin", "batch_plugin", "--method", "fragile", "--page-timeout", "2")
    records = outputs(tmp_path / "out")
    assert [r.get("reason") for r in records] == [None, None, "worker-lost", None, None,
                                                  "worker-lost", None, None], run.stderr
    assert "hard time limit of 2 s" in records[2]["error"]
    assert "exit code -11" in records[5]["error"]
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["worker_restarts"] == 2


def test_not_a_warc_is_one_error_line(tmp_path):
    (tmp_path / "x.warc.gz").write_text("<html>hello</html>")
    run = grist("batch", str(tmp_path / "x.warc.gz"), "--out", str(tmp_path / "out"), "--quiet")
    assert run.returncode == 1
    records = outputs(tmp_path / "out")
    assert len(records) == 1 and records[0]["reason"] == "not-warc"
    assert "not a WARC file" in records[0]["error"]


def test_damaged_starts_and_cut_off_json_lines_cost_only_what_is_damaged(tmp_path):
    from test_cli_inputs import cut_json_lines

    cut, whole = cut_json_lines(tmp_path, 6, 0.6)
    warc = tmp_path / "first-damaged.warc.gz"
    offsets = write_warc(warc, [response(n) for n in range(5)])
    data = bytearray(warc.read_bytes())
    data[12:40] = bytes(28)  # the first member: not even its header decodes
    warc.write_bytes(bytes(data))
    run = grist("batch", str(cut), str(warc), "--out", str(tmp_path / "out"), "--quiet")
    assert run.returncode == 1
    records = outputs(tmp_path / "out")
    errors = [(r["input"], r["reason"]) for r in records if "error" in r]
    assert errors == [(f"{cut}:{whole + 1}", "dataset-error"), (f"{warc}@0", "warc-error")]
    assert len(records) == whole + 1 + 5
    assert sorted(r["url"] for r in records if r["source"] == str(warc) and "error" not in r) \
        == sorted(f"https://site{n % 3}.example/{n}" for n in range(1, 5))
    assert f"{whole + 6} pages, {whole + 4} results, 2 errors" in run.stderr


@pytest.mark.parametrize("fmt", ["jsonl.gz", "parquet", "warc"])
def test_output_formats(tmp_path, fmt):
    inputs, pages = mixed_inputs(tmp_path)
    run = grist("batch", *inputs, "--out", str(tmp_path / fmt), "--output-format", fmt,
                "--plugin", "batch_plugin", "--method", "fragile", "-j", "2")
    assert "5 errors" in run.stderr
    if fmt != "warc":
        records = outputs(tmp_path / fmt)
        assert len(records) == pages and sum("error" in r for r in records) == 5
        if fmt == "parquet":
            import pyarrow.parquet as pq
            table = pq.read_table(next((tmp_path / fmt).glob("shard-*.parquet")))
            assert {"input", "url", "text", "error", "reason", "offset"} <= set(table.schema.names)
        return
    from fastwarc.warc import ArchiveIterator
    found = []
    for path in sorted((tmp_path / fmt).glob("shard-*.warc.gz")):
        for record in ArchiveIterator(str(path)):
            found.append((str(record.record_type), record.headers.get("WARC-Refers-To"),
                          record.headers.get("WARC-Target-URI"), record.reader.read()))
    conversions = [f for f in found if f[0] == "conversion"]
    metadata = [f for f in found if f[0] == "metadata"]
    assert len(conversions) + len(metadata) == pages and len(metadata) == 5
    first = conversions[0]
    assert first[1] == "<urn:uuid:00000000-0000-0000-0000-000000000000>"
    assert first[2] == "https://site0.example/0" and b"Article number 0" in first[3]


def story(number: int, change: str = "") -> str:
    """A long page whose words depend on ``number``; ``change`` replaces one word of it."""
    rng = __import__("random").Random(number)
    words = [rng.choice(["river", "stone", "market", "winter", "letter", "garden", "engine",
                         "harbour", "silver", "window", "forest", "signal", "candle", "meadow",
                         "bridge", "orchard", "lantern", "valley", "compass", "thunder"])
             for _ in range(150)]
    if change:
        words[70] = change
    return f"<html><body><h1>Story {number}</h1><p>{' '.join(words)}.</p></body></html>"


@pytest.mark.parametrize("mode", ["mark", "drop"])
def test_dedup_across_the_run(tmp_path, mode):
    write_warc(tmp_path / "a.warc.gz", [response(n, story(n)) for n in range(6)])
    lines = [json.dumps({"html": story(2, "changed"), "url": "https://j.example/1", "id": "copy"}),
             json.dumps({"html": story(40), "url": "https://j.example/2", "id": "new"})]
    (tmp_path / "b.jsonl").write_text("\n".join(lines) + "\n")
    run = grist("batch", str(tmp_path / "a.warc.gz"), str(tmp_path / "b.jsonl"), "--out",
                str(tmp_path / "out"), "--dedup", mode, "--plugin", "batch_plugin",
                "--method", "fragile", "-j", "2")
    assert run.returncode == 0, run.stderr
    records = outputs(tmp_path / "out")
    copy_label = f"{tmp_path / 'b.jsonl'}:1 (copy)"
    if mode == "mark":
        assert len(records) == 8
        marked = {r["input"]: r["duplicate_of"] for r in records if "duplicate_of" in r}
        assert marked == {copy_label: "<urn:uuid:00000000-0000-0000-0000-000000000002>"}
        assert run.stderr.strip().endswith("; 1 near-duplicate marked")
    else:
        assert len(records) == 7 and copy_label not in {r["input"] for r in records}
        assert run.stderr.strip().endswith("; 1 near-duplicate dropped")
    assert not list((tmp_path / "out").glob("*.minhash"))



@pytest.mark.parametrize("fmt", ["jsonl", "parquet", "warc"])
def test_lone_surrogates_in_json_lines_reach_every_output_format(tmp_path, fmt):
    (tmp_path / "p.jsonl").write_text('{"id": "s\\udfff", "url": "https://e.example/\\ud800", '
                                      f'"html": {json.dumps(page_html(1))}}}\n')
    run = grist("batch", str(tmp_path / "p.jsonl"), "--out", str(tmp_path / "out"),
                "--output-format", fmt, "--quiet")
    assert run.returncode == 0 and "1 page, 1 result, 0 errors" in run.stderr, run.stderr
    if fmt != "warc":
        [record] = outputs(tmp_path / "out")
        assert record["url"] == "https://e.example/\ufffd"


def test_warc_output_headers_hold_one_line_each_and_name_the_file(tmp_path):
    """A record's URL (user data in JSON lines) with CR LF in it wrote headers of its own, and
    the warcinfo record named the temporary file."""
    evil = "https://e.example/a\r\nWARC-Type: resource\r\nContent-Length: 5\r\n\r\nEVIL!"
    lines = [{"html": page_html(1), "url": evil, "date": "2021-03-04T05:06:07+02:00"},
             {"html": page_html(2), "url": "https://e.example/b", "date": "yesterday\r\nX-Evil: 1"}]
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    assert grist("batch", str(tmp_path / "p.jsonl"), "--out", str(tmp_path / "out"),
                 "--output-format", "warc", "--quiet").returncode == 0
    from fastwarc.warc import ArchiveIterator
    path = tmp_path / "out" / "shard-00000.warc.gz"
    found = [(str(r.record_type), dict(r.headers)) for r in ArchiveIterator(str(path))]
    assert [kind for kind, _ in found] == ["warcinfo", "conversion", "conversion"]
    assert found[0][1]["WARC-Filename"] == path.name
    first, second = found[1][1], found[2][1]
    assert first["WARC-Target-URI"] == evil.replace("\r\n", "%0D%0A")
    assert first["WARC-Date"] == "2021-03-04T03:06:07Z"
    assert "X-Evil" not in second and second["WARC-Date"].endswith("Z")
    assert "X-Evil" not in str(found) and "EVIL" not in "".join(k for k, _ in found)


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_extract_on_workers_writes_what_one_process_writes(tmp_path, fmt):
    folder = tmp_path / "pages"
    folder.mkdir()
    for n in range(5):
        (folder / f"p{n}.html").write_text(page_html(n))
    (folder / "empty.html").write_text("")
    (tmp_path / "more.jsonl").write_text(json.dumps({"html": page_html(7), "url": "http://x.org/7"})
                                         + "\n")
    args = ["extract", "--method", "lineblock", "--format", fmt, "pages", "more.jsonl"]
    one = grist(*args, cwd=tmp_path)  # relative names: the outputs name inputs as given
    many = grist(*args, "-j", "2", cwd=tmp_path)
    assert many.stdout == one.stdout and one.stdout.count("Article number") >= 6
    assert str(tmp_path) not in many.stdout and "more.jsonl:1" in many.stdout
    strip = [line.split(" in ")[0] for line in one.stderr.splitlines()]
    assert [line.split(" in ")[0] for line in many.stderr.splitlines()] == strip
    assert strip[0].startswith("grist: skipped: ") and strip[0].endswith("empty.html: empty file")
    assert strip[-1] == "grist extract: 6 pages, 6 results, 0 errors, 1 other file skipped"


def test_extract_reads_a_warc_file(tmp_path):
    write_warc(tmp_path / "c.warc.gz", [response(0), warc_record("request", 7, b"GET /"),
                                        response(1, b"\x89PNG\r\n\x1a\n", content_type="image/png")])
    run = grist("extract", "--method", "lineblock", str(tmp_path / "c.warc.gz"))
    assert run.returncode == 1
    assert run.stdout.startswith("==> <urn:uuid:00000000-0000-0000-0000-000000000000> <==\n")
    assert "Article number 0" in run.stdout
    assert "the record is image/png, not an HTML page" in run.stderr
    assert run.stderr.splitlines()[-1].startswith("grist extract: 2 pages, 1 result, 1 error")
    assert run.stderr.splitlines()[-1].endswith("; 1 record that is not a page (1 request)")


def test_batch_records_carry_metadata_and_links_when_asked(tmp_path):
    folder = tmp_path / "pages"
    folder.mkdir()
    words = "a paragraph long enough to be the main content of the page, " * 4
    (folder / "a.html").write_text(
        '<html lang="en"><head><title>Rivers | Atlas</title>'
        '<meta property="og:site_name" content="Atlas">'
        '<meta name="author" content="Ann Smith"></head><body><article><h1>Rivers</h1>'
        f'<p>Rivers carry water. See <a href="/maps">the maps</a> and {words}</p>'
        f'<p>{words}</p></article></body></html>')
    run = grist("batch", str(folder), "--out", str(tmp_path / "out"), "-j", "1",
                "--method", "justext", "--text-format", "markdown", "--links",
                "--with-metadata")
    assert run.returncode == 0, run.stderr
    [record] = outputs(tmp_path / "out")
    assert record["metadata"]["sitename"] == "Atlas" and record["metadata"]["author"] == "Ann Smith"
    assert "[the maps](/maps)" in record["text"]  # no URL known: the link as the page has it
    plain = grist("batch", str(folder), "--out", str(tmp_path / "plain"), "-j", "1",
                  "--method", "justext", "--text-format", "markdown")
    assert plain.returncode == 0, plain.stderr
    [bare] = outputs(tmp_path / "plain")
    assert "metadata" not in bare and "[the maps]" not in bare["text"] and "the maps" in bare["text"]
    parquet = grist("batch", str(folder), "--out", str(tmp_path / "pq"), "-j", "1",
                    "--method", "justext", "--output-format", "parquet", "--with-metadata")
    assert parquet.returncode == 0, parquet.stderr
    import pyarrow.parquet as pq
    row = pq.read_table(next((tmp_path / "pq").glob("shard-*.parquet"))).to_pylist()[0]
    assert json.loads(row["metadata"])["author"] == "Ann Smith"


def test_batch_reads_a_list_of_paths_and_urls(tmp_path, server):
    from local_server import base_url

    for n in range(2):
        (tmp_path / f"p{n}.html").write_text(page_html(n))
    listing = tmp_path / "inputs.txt"
    listing.write_text(f"# pages\n{tmp_path / 'p0.html'}\n\n{tmp_path / 'p1.html'}\n"
                       f"{base_url(server)}/utf8.html\n{base_url(server)}/missing\n")
    run = grist("batch", "-i", str(listing), "--out", str(tmp_path / "out"), "-j", "1",
                "--method", "lineblock")
    records = outputs(tmp_path / "out")
    assert [r["input"].rsplit("/", 1)[-1] for r in records] == \
        ["p0.html", "p1.html", "utf8.html", "missing"]
    assert "crème brûlée" in records[2]["text"] and records[2]["url"].endswith("/utf8.html")
    assert records[3]["reason"] == "fetch-failed" and run.returncode == 1
    empty = grist("batch", "--out", str(tmp_path / "none"))
    assert empty.returncode != 0 and "no input: give WARC files" in empty.stderr


def test_files_that_are_not_pages_are_counted_in_words_and_keyed_as_before(tmp_path):
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "a.html").write_text("<html><body><p>The harbour reopened on Monday after two "
                                   "years of work on the old quay.</p></body></html>")
    (folder / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    (folder / "notes.txt").write_text("not a page")
    run = grist("batch", str(folder), "--out", str(tmp_path / "out"), "-j", "1",
                "--method", "justext")
    assert run.returncode == 0, run.stderr
    assert run.stderr.strip().splitlines()[-1].endswith(
        "; 2 records that are not a page (2 files that are not pages)")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["skipped_records"] == {"file that is not a page": 2}


def test_a_resumed_shard_holds_each_file_that_is_not_a_page_once_and_in_its_place(tmp_path):
    """The shard's counts hold every file that is not a page with its reason and the number of
    page lines before it (grist extract -j names them from there, in input order); a shard
    resumed after a kill holds each once, as an uninterrupted one does."""
    from grist.batch.job import JobConfig, Shard
    from grist.batch.worker import ShardCounts, ShardFiles, build_extractor, extract_shard

    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "a.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    (folder / "b.html").write_text(page_html(1))
    (folder / "c.txt").write_text("not a page")
    (folder / "d.html").write_text(page_html(2))
    names = tuple(str(folder / name) for name in ("a.png", "b.html", "c.txt", "d.html"))
    shard, config = Shard("shard-00000", "files", names, (True,) * 4), JobConfig(method="justext")
    extractor = build_extractor(config)
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    whole.mkdir()
    cut.mkdir()
    counts = extract_shard(shard, config, whole, extractor)
    lines = ShardFiles(whole, shard.id, config).part.read_text().splitlines(keepends=True)
    ShardFiles(cut, shard.id, config).part.write_text(lines[0])  # killed after one page
    resumed = extract_shard(shard, config, cut, extractor)
    assert ShardCounts.read(ShardFiles(cut, shard.id, config).extracted) == resumed == counts
    assert ShardFiles(cut, shard.id, config).part.read_text() == "".join(lines)
    assert counts.skipped_files == [
        {"input": names[0], "source": names[0], "skipped": "not HTML: it looks like a PNG image",
         "line": 0},
        {"input": names[2], "source": names[2],
         "skipped": "not HTML: no HTML tag in its first 4 KiB", "line": 1}]
    assert (counts.results, counts.skipped) == (2, {"file that is not a page": 2})


def test_a_url_of_a_scheme_grist_does_not_fetch_is_named_as_such(tmp_path):
    (tmp_path / "list.txt").write_text("ftp://files.example/page.html\n")
    run = grist("batch", "-i", str(tmp_path / "list.txt"), "--out", str(tmp_path / "out"))
    assert run.returncode == 1
    [record] = outputs(tmp_path / "out")
    assert record["input"] == "ftp://files.example/page.html"  # not a file path made of it
    assert record["reason"] == "fetch-failed" and "http(s)" in record["error"]
