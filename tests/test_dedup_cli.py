"""``grist dedup`` over a folder, a JSON-lines file, stdin, and with a saved index: what
--min-words leaves out, the exit status when inputs fail, a page or error records on stdin, a
rolling index re-run, options that do not apply, and where the index may be written."""

import gzip
import io
import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from grist.cli import main
from grist.dedup.documents import MinHashGroups
from grist.dedup.groups import DuplicateGroups
from grist.dedup.index import FingerprintIndex
from grist.dedup.simhash import modified_simhash

STORY = ("The regional council confirmed on Monday that the old stone bridge, closed since spring, "
         "will reopen in May after repairs costing four million euros. Engineers replaced two "
         "arches, and traffic will be limited to cars and bicycles during the first month.")
OTHER = ("A small museum in the harbour town has opened an exhibition of ship models, maps and "
         "letters written by sailors who crossed the Atlantic in the nineteenth century.")


def _page(text: str, nav: str = "Home News Sport") -> str:
    return f"<html><body><div>{nav}</div><div><p>{text}</p></div></body></html>"


def _groups(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def stdin(data: bytes) -> io.TextIOWrapper:
    """A stdin that can be read ahead, as a pipe's or a file's is."""
    return io.TextIOWrapper(io.BufferedReader(io.BytesIO(data)))


def test_duplicate_groups_union_find():
    finder = DuplicateGroups(FingerprintIndex(3), modified_simhash)
    finder.add("a", STORY)
    finder.add("b", OTHER)
    assert finder.add("c", STORY + " Updated at noon.") == [0]  # 2 bits apart
    assert finder.add("d", STORY) == [0, 2]
    assert finder.add("e", "the of and") == [] and finder.skipped == 1
    assert finder.groups() == [[0, 2, 3]]


def test_dedup_folder_documents(tmp_path, capsys):
    (tmp_path / "a.html").write_text(_page(STORY))
    (tmp_path / "b.html").write_text(_page(STORY, nav="Start Weather"))
    (tmp_path / "c.html").write_text(_page(OTHER))
    assert main(["dedup", str(tmp_path), "--quiet", "--method", "tagscore"]) == 0
    out, err = capsys.readouterr()
    groups = _groups(out)
    assert len(groups) == 1 and groups[0]["size"] == 2
    assert {m["key"].rsplit("/", 1)[-1] for m in groups[0]["members"]} == {"a.html", "b.html"}
    assert "1 near-duplicate in 1 group;" in err


def test_dedup_names_and_counts_the_folders_files_that_are_not_pages(tmp_path, capsys):
    (tmp_path / "a.html").write_text(_page(STORY))
    (tmp_path / "logo.html").write_bytes(bytes(range(256)) * 8)
    (tmp_path / "blank.html").write_text("")
    assert main(["dedup", str(tmp_path), "--method", "tagscore"]) == 0
    err = capsys.readouterr().err
    assert "grist: skipped: " + str(tmp_path / "blank.html") + ": empty file" in err
    assert str(tmp_path / "logo.html") + ": not HTML" in err
    assert "1 page, 1 result, 0 errors, 2 other files skipped" in err
    assert main(["dedup", str(tmp_path), "--method", "tagscore", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "grist: skipped" not in err and "2 other files skipped" in err


def test_dedup_jsonl_blocks_and_saved_index(tmp_path, capsys):
    data = tmp_path / "pages.jsonl"
    records = [
        {"id": "p1", "html": _page(STORY), "gold": ""},
        {"id": "p2", "html": _page(OTHER), "gold": ""},
        {"id": "p3", "blocks": [{"text": STORY, "label": "content"}, {"text": "x", "label": "content"}]},
    ]
    data.write_text("\n".join(json.dumps(r) for r in records) + "\nnot json\n")
    saved = tmp_path / "index.npz"
    code = main(["dedup", str(data), "--level", "block", "--quiet", "--method", "tagscore",
                 "--save-index", str(saved)])
    out, err = capsys.readouterr()
    assert code == 1  # (the line that is not JSON failed)
    (group,) = _groups(out)
    assert [m["key"] for m in group["members"]] == ["p1#0", "p3#0"]
    assert f"grist: error: {data}:4: the line is not JSON" in err
    assert len(FingerprintIndex.load(saved)) == 3


def test_dedup_stdin_against_loaded_index(tmp_path, capsys, monkeypatch):
    index = FingerprintIndex(3)
    index.add(modified_simhash(STORY), "archived")
    path = tmp_path / "idx.npz"
    index.save(path)
    monkeypatch.setattr("sys.stdin", stdin(json.dumps({"id": "new", "text": STORY}).encode()))
    assert main(["dedup", "-", "--index", str(path), "--quiet"]) == 0
    (group,) = _groups(capsys.readouterr().out)
    assert [m["key"] for m in group["members"]] == ["archived", "new"]
    assert main(["dedup", str(tmp_path / "missing.jsonl"), "--quiet"]) == 1


def test_a_saved_index_keeps_its_fingerprint_function(tmp_path, capsys):
    """An index of plain simhash fingerprints was read back as modified simhash ones, so the same
    story matched nothing in the next run."""
    (tmp_path / "a.html").write_text(_page(STORY))
    (tmp_path / "b.html").write_text(_page(STORY, nav="Front page"))
    saved = tmp_path / "idx.npz"
    assert main(["dedup", str(tmp_path / "a.html"), "--fingerprint", "simhash", "--quiet",
                 "--save-index", str(saved)]) == 0
    assert FingerprintIndex.load(saved).fingerprint == "simhash"
    capsys.readouterr()
    assert main(["dedup", str(tmp_path / "b.html"), "--index", str(saved), "--quiet"]) == 0
    (group,) = _groups(capsys.readouterr().out)
    assert [m["key"] for m in group["members"]] == [str(tmp_path / "a.html"),
                                                     str(tmp_path / "b.html")]
    for other in ("modified_simhash", "minhash"):
        assert main(["dedup", str(tmp_path / "b.html"), "--index", str(saved),
                     "--fingerprint", other, "--quiet"]) == 1
        assert "holds simhash fingerprints" in capsys.readouterr().err


def test_a_damaged_or_foreign_index_file_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "a.html").write_text(_page(STORY))
    saved = tmp_path / "minhash.npz"
    assert main(["dedup", str(tmp_path / "a.html"), "--quiet", "--save-index", str(saved)]) == 0
    whole = saved.read_bytes()
    flipped = bytearray(whole)
    flipped[len(whole) // 2] ^= 0xFF
    damaged = "is not an index written by grist dedup"
    cases = {"cut.npz": (whole[: len(whole) // 3], (damaged,)),
             # its listing is whole: asked for simhash, it is a MinHash index first
             "flipped.npz": (bytes(flipped), (damaged, "holds minhash fingerprints")),
             "page.npz": (b"<p>not an index</p>", ("not a NumPy .npz file",))}
    for name, (data, messages) in cases.items():
        (tmp_path / name).write_bytes(data)
        for extra in ([], ["--fingerprint", "simhash"], ["--fingerprint", "minhash"]):
            capsys.readouterr()
            assert main(["dedup", str(tmp_path / "a.html"), "--index", str(tmp_path / name),
                         "--quiet", *extra]) == 1, (name, extra)
            err = capsys.readouterr().err
            assert any(m in err for m in messages) and "Traceback" not in err, (name, extra)
    assert main(["dedup", str(tmp_path / "a.html"), "--index", str(saved), "--fingerprint",
                 "simhash", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "minhash.npz holds minhash fingerprints: leave out --fingerprint" in err


def test_records_with_lone_surrogates_or_texts_that_are_not_strings(tmp_path, capsys):
    data = tmp_path / "texts.jsonl"
    data.write_text("\n".join([
        json.dumps({"id": "a\ud800", "text": STORY.replace("bridge", "bri\ud800dge")}),
        json.dumps({"id": "b", "text": STORY.replace("bridge", "bri\ud800dge")}),
        json.dumps({"id": "c", "text": 5}),
        json.dumps({"id": "d", "blocks": [{"text": 7, "label": "content"}]})]) + "\n")
    for level in ("document", "block"):
        assert main(["dedup", str(data), "--level", level, "--quiet"]) == 1  # (c and d failed)
        out, err = capsys.readouterr()
        (group,) = _groups(out)
        suffix = "" if level == "document" else "#0"
        assert [m["key"] for m in group["members"]] == [f"a\ufffd{suffix}", f"b{suffix}"]
        assert f"{data}:3: a 'text' that is not a string" in err


def test_records_whose_html_or_url_is_not_a_string_are_skipped_and_named(tmp_path, capsys):
    data = tmp_path / "pages.jsonl"
    data.write_text("\n".join([
        json.dumps({"id": "a", "html": _page(STORY)}),
        json.dumps({"id": "b", "html": 123}),
        json.dumps({"id": "c", "html": _page(STORY), "url": 5})]) + "\n")
    assert main(["dedup", str(data), "--quiet"]) == 1  # (b failed)
    out, err = capsys.readouterr()
    (group,) = _groups(out)
    assert [m["key"] for m in group["members"]] == ["a", "c"]  # a bad url is no url
    assert f"{data}:2: the record has no 'html' string field" in err and "Traceback" not in err


def test_an_index_that_cannot_be_saved_is_said_before_the_work(tmp_path, capsys):
    (tmp_path / "a.html").write_text(_page(STORY))
    target = tmp_path / "missing" / "idx.npz"
    with pytest.raises(SystemExit) as stop:
        main(["dedup", str(tmp_path / "a.html"), "--save-index", str(target), "--quiet"])
    out, err = capsys.readouterr()
    assert stop.value.code == 2 and out == ""
    assert f"argument --save-index: no folder {target.parent} to write idx.npz into" in err


def test_dedup_reads_gzip_compressed_json_lines_on_stdin(capsys, monkeypatch):
    """``cat docs.jsonl.gz | grist dedup -`` read the compressed bytes as lines of text."""
    lines = [json.dumps({"id": key, "text": text})
             for key, text in (("a", STORY), ("b", OTHER), ("c", STORY))]
    data = gzip.compress("\n".join(lines).encode())
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(data))))
    assert main(["dedup", "-", "--quiet"]) == 0
    (group,) = _groups(capsys.readouterr().out)
    assert [m["key"] for m in group["members"]] == ["a", "c"]


def test_an_index_is_compared_only_with_texts_of_its_level(tmp_path, capsys):
    """Documents were checked against a saved block index, silently."""
    data = tmp_path / "pages.jsonl"
    data.write_text("\n".join(json.dumps({"id": k, "text": t})
                              for k, t in (("a", STORY), ("b", OTHER))) + "\n")
    for level, fingerprint in (("block", "modified_simhash"), ("document", "minhash"),
                               ("block", "minhash")):
        saved = tmp_path / f"{level}-{fingerprint}.npz"
        assert main(["dedup", str(data), "--quiet", "--level", level, "--fingerprint",
                     fingerprint, "--save-index", str(saved)]) == 0
        other = "document" if level == "block" else "block"
        capsys.readouterr()
        assert main(["dedup", str(data), "--quiet", "--index", str(saved),
                     "--level", other]) == 1
        err = capsys.readouterr().err
        assert (f"{saved.name} is an index of {level}s (saved with --level {level}): give "
                f"--level {level}") in err and "--fingerprint" not in err
        assert main(["dedup", str(data), "--quiet", "--index", str(saved), "--level", level,
                     "--save-index", str(saved)]) == 0
        assert _groups(capsys.readouterr().out) == []  # (the same keys: not added again)
    # a file written before the level was saved does not say it: not checked
    old = tmp_path / "old.npz"
    FingerprintIndex(3, "modified_simhash").save(old)
    assert main(["dedup", str(data), "--quiet", "--index", str(old), "--level", "block"]) == 0


def test_a_minhash_index_keeps_its_shingle_size(tmp_path, capsys):
    """--shingle 3 against an index of 2-word shingles was ignored, silently."""
    data = tmp_path / "pages.jsonl"
    data.write_text(json.dumps({"id": "a", "text": STORY}) + "\n")
    saved = tmp_path / "idx.npz"
    assert main(["dedup", str(data), "--quiet", "--shingle", "3", "--save-index",
                 str(saved)]) == 0
    capsys.readouterr()
    assert main(["dedup", str(data), "--quiet", "--index", str(saved), "--shingle", "2"]) == 1
    assert ("idx.npz holds shingles of 3 words: leave out --shingle (or give --shingle 3)"
            in capsys.readouterr().err)
    copy = tmp_path / "copy.jsonl"
    copy.write_text(json.dumps({"id": "b", "text": STORY}) + "\n")
    for same in ([], ["--shingle", "3"]):
        assert main(["dedup", str(copy), "--quiet", "--index", str(saved), *same]) == 0
        (group,) = _groups(capsys.readouterr().out)
        assert len(group["members"]) == 2


def test_k_applies_to_a_loaded_simhash_index(tmp_path, capsys):
    """-k was ignored for an --index file: its own k was always used."""
    index = FingerprintIndex(3, "simhash")
    index.add(1, "stored")
    saved = tmp_path / "idx.npz"
    index.save(saved)
    assert FingerprintIndex.load(saved).k == 3 and FingerprintIndex.load(saved, k=7).k == 7
    data = tmp_path / "pages.jsonl"
    data.write_text(json.dumps({"id": "a", "text": STORY}) + "\n")
    assert main(["dedup", str(data), "--quiet", "--index", str(saved), "-k", "63"]) == 0
    (group,) = _groups(capsys.readouterr().out)  # within 63 bits of anything
    assert [m["key"] for m in group["members"]] == ["stored", "a"]


def test_a_rolling_index_starts_empty_and_keeps_what_it_saw(tmp_path, capsys):
    data = tmp_path / "texts.jsonl"
    data.write_text("\n".join(json.dumps({"id": k, "text": STORY}) for k in "ab") + "\n")
    rolling = ["dedup", str(data), "--index", str(tmp_path / "seen.npz"), "--save-index",
               str(tmp_path / "seen.npz"), "--quiet"]
    assert main(rolling) == 0  # (no seen.npz yet: the first run starts the index)
    assert [len(g["members"]) for g in _groups(capsys.readouterr()[0])] == [2]
    assert main(rolling) == 0  # (the same keys again: nothing added, nothing new matched)
    assert [len(g["members"]) for g in _groups(capsys.readouterr()[0])] == [2]
    assert main(["dedup", str(data), "--index", str(tmp_path / "other.npz")]) == 1  # no save
    assert "cannot read the index" in capsys.readouterr().err


SHORT = "The council approved the new budget on Monday evening."  # 9 words


def _keys(out: str) -> list[list[str]]:
    """The keys of each group printed."""
    return [[m["key"] for m in group["members"]] for group in _groups(out)]


def _texts(path: Path, *records: tuple[str, str]) -> Path:
    path.write_text("".join(json.dumps({"id": k, "text": t}) + "\n" for k, t in records))
    return path


def _site(folder: Path) -> Path:
    folder.mkdir()
    for name, text in (("a", STORY), ("b", STORY), ("c", OTHER)):
        (folder / f"{name}.html").write_text(_page(text))
    return folder


def small_files() -> None:
    """In a child process: files over 4 KiB cannot be written (as on a full disk)."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))


def test_min_words_governs_document_level_minhash(tmp_path, capsys):
    """Texts under 10 words were never matched whatever --min-words said, and were counted as
    fingerprinted."""
    data = _texts(tmp_path / "short.jsonl", ("a", SHORT), ("b", SHORT))
    assert main(["dedup", "-q", "--min-words", "1", str(data)]) == 0
    out, err = capsys.readouterr()
    assert _keys(out) == [["a", "b"]]
    assert "2 documents fingerprinted (0 under --min-words 1 left out)" in err
    assert main(["dedup", "-q", "--min-words", "10", str(data)]) == 0
    out, err = capsys.readouterr()
    assert out == "" and "0 documents fingerprinted (2 under --min-words 10 left out)" in err


def test_the_summary_counts_texts_with_nothing_to_fingerprint(tmp_path, capsys):
    data = _texts(tmp_path / "stop.jsonl", ("a", "the of and it"), ("b", STORY))
    assert main(["dedup", "-q", "--min-words", "1", "--fingerprint", "simhash", str(data)]) == 0
    err = capsys.readouterr().err
    assert ("1 document fingerprinted (0 under --min-words 1, 1 with nothing to fingerprint "
            "left out)") in err


def test_an_input_that_fails_makes_the_exit_status_1(tmp_path, capsys):
    """A missing page or a corrupt .jsonl.gz exited 0, where extract and templates exit 1."""
    missing = tmp_path / "nonexist.html"
    assert main(["dedup", "-q", str(missing)]) == 1
    err = capsys.readouterr().err
    assert f"grist: error: {missing}: No such file or directory" in err
    assert "1 page, 0 results, 1 error (1 unreadable-input)" in err
    corrupt = tmp_path / "c.jsonl.gz"
    corrupt.write_bytes(gzip.compress(json.dumps({"id": "a", "text": STORY}).encode() * 50)[:60])
    assert main(["dedup", "-q", str(corrupt)]) == 1
    err = capsys.readouterr().err
    assert f"grist: error: {corrupt}:1: cannot read" in err and "1 error (1 dataset-error)" in err
    site = _site(tmp_path / "site")
    (site / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    assert main(["dedup", "-q", str(site)]) == 0  # (a file that is no page is a skip)
    assert "3 pages, 3 results, 0 errors, 1 other file skipped" in capsys.readouterr().err


def test_an_html_page_on_stdin_is_read_as_a_page(tmp_path, capsys, monkeypatch):
    """A page on stdin gave one "the line is not JSON" skip per line, and exit 0."""
    saved = tmp_path / "seen.npz"
    assert main(["dedup", "-q", str(_site(tmp_path / "site")), "--save-index", str(saved)]) == 0
    capsys.readouterr()
    page = "<!doctype html>\n<html>\n<body>\n<div>Front page</div>\n<p>" + STORY + "</p>\n</body>"
    monkeypatch.setattr(sys, "stdin", stdin(page.encode()))
    assert main(["dedup", "-q", "-", "--index", str(saved)]) == 0
    out, err = capsys.readouterr()
    assert [group[-1] for group in _keys(out)] == ["<stdin>"]
    assert "not JSON" not in err and "1 page, 1 result, 0 errors" in err


def test_error_records_of_extract_are_those_inputs_errors(tmp_path, capsys, monkeypatch):
    """An error record of grist extract --format json was 'the record has no html string'."""
    site = _site(tmp_path / "site")
    empty = tmp_path / "empty.html"
    empty.write_text("")
    assert main(["extract", "--format", "json", "-q", str(site), str(empty)]) == 1
    records = capsys.readouterr().out
    monkeypatch.setattr(sys, "stdin", stdin(records.encode()))
    assert main(["dedup", "-q", "-"]) == 1
    out, err = capsys.readouterr()
    assert _keys(out) == [[str(site / "a.html"), str(site / "b.html")]]
    assert f"grist: error: {empty}: the page is empty" in err and "'html'" not in err
    assert "4 pages, 3 results, 1 error (1 empty-input)" in err


@pytest.mark.parametrize("options", [[], ["--level", "block"], ["--fingerprint", "simhash"]])
def test_a_rolling_index_re_run_changes_nothing(tmp_path, capsys, options):
    """The second run matched every document with itself and the index grew by the same keys
    every run."""
    site = _site(tmp_path / "site")
    seen = tmp_path / "seen.npz"
    rolling = ["dedup", "-q", str(site), "--index", str(seen), "--save-index", str(seen),
               *options]
    assert main(rolling) == 0
    first = capsys.readouterr()
    for _ in range(2):
        assert main(rolling) == 0
        out, err = capsys.readouterr()
        assert _keys(out) == _keys(first.out) and len(_keys(out)) == 1
        assert err.split("; index of ")[1] == first.err.split("; index of ")[1]
        assert "already in the index left out" in err


def test_a_key_whose_text_changed_keeps_its_first_text(tmp_path, capsys):
    seen = tmp_path / "seen.npz"
    rolling = ["dedup", "-q", "--index", str(seen), "--save-index", str(seen)]
    assert main([*rolling, str(_texts(tmp_path / "1.jsonl", ("a", STORY)))]) == 0
    changed = _texts(tmp_path / "2.jsonl", ("a", OTHER), ("b", OTHER), ("c", STORY))
    assert main([*rolling, str(changed)]) == 0
    assert _keys(capsys.readouterr().out) == [["a", "c"]]  # (a is still the story)
    assert MinHashGroups.load(seen).keys == ["a", "b", "c"]


@pytest.mark.parametrize(("options", "message"), [
    (["--fingerprint", "simhash", "--threshold", "0.9"],
     "--threshold applies to --fingerprint minhash only, not to simhash, which takes -k"),
    (["--level", "block", "--shingle", "3"],
     "--shingle applies to --fingerprint minhash only, not to modified_simhash (the default for "
     "--level block), which takes -k"),
    (["-k", "5"], "-k applies to --fingerprint simhash and modified_simhash only, not to minhash "
     "(the default for --level document), which takes --threshold")])
def test_options_that_do_not_apply_are_usage_errors(tmp_path, capsys, options, message):
    """They were accepted and ignored."""
    data = _texts(tmp_path / "a.jsonl", ("a", STORY))
    with pytest.raises(SystemExit) as stop:
        main(["dedup", "-q", str(data), *options])
    assert stop.value.code == 2 and message in capsys.readouterr().err


def test_options_that_do_not_apply_to_the_index_file_are_refused(tmp_path, capsys):
    data = _texts(tmp_path / "a.jsonl", ("a", STORY))
    saved = tmp_path / "blocks.npz"
    assert main(["dedup", "-q", str(data), "--level", "block", "--save-index", str(saved)]) == 0
    capsys.readouterr()
    assert main(["dedup", "-q", str(data), "--level", "block", "--index", str(saved),
                 "--threshold", "0.9"]) == 1
    assert (f"{saved} holds modified_simhash fingerprints: --threshold applies to --fingerprint "
            "minhash only") in capsys.readouterr().err


def test_a_minhash_index_keeps_its_threshold_unless_one_is_given(tmp_path, capsys):
    data = _texts(tmp_path / "a.jsonl", ("a", STORY))
    saved = tmp_path / "idx.npz"
    assert main(["dedup", "-q", str(data), "--threshold", "0.9", "--save-index", str(saved)]) == 0
    assert main(["dedup", "-q", str(data), "--index", str(saved), "--save-index",
                 str(saved)]) == 0
    assert MinHashGroups.load(saved).config.threshold == 0.9


def test_dash_is_no_index_file(tmp_path, capsys, monkeypatch):
    """--save-index - wrote a file named -."""
    monkeypatch.chdir(tmp_path)
    data = _texts(tmp_path / "a.jsonl", ("a", STORY))
    for option, message in (("--save-index", "- is not a file"), ("--index", "- (stdin)")):
        with pytest.raises(SystemExit) as stop:
            main(["dedup", "-q", str(data), option, "-"])
        assert stop.value.code == 2
        assert f"argument {option}: {message}" in capsys.readouterr().err
    assert not (tmp_path / "-").exists()


def test_a_rolling_index_that_cannot_be_saved_is_kept_whole(tmp_path):
    """--save-index under ulimit -f left a broken index of the first KiB."""
    seen = tmp_path / "seen.npz"
    assert main(["dedup", "-q", str(_texts(tmp_path / "1.jsonl", ("a", STORY))),
                 "--save-index", str(seen)]) == 0
    before = seen.read_bytes()
    more = _texts(tmp_path / "2.jsonl", *((f"k{n}", f"{OTHER} {n}") for n in range(20)))
    done = subprocess.run([sys.executable, "-m", "grist", "dedup", "-q", str(more), "--index",
                           str(seen), "--save-index", str(seen)], capture_output=True,
                          text=True, preexec_fn=small_files)
    assert done.returncode == 1
    assert f"grist: error: cannot write the index {seen}: File too large" in done.stderr
    assert seen.read_bytes() == before and MinHashGroups.load(seen).keys == ["a"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
