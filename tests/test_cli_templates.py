"""``grist templates`` and ``grist extract --site`` end to end, bad inputs, a killed save."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from site_pages import article, site_pages

from grist.cli import main
from grist.sites.model import SiteModel


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """The hand-made sites as files (no URLs: one group, clustered by template)."""
    root = tmp_path / "pages"
    root.mkdir()
    for page in site_pages():
        (root / f"{page.input}.html").write_text(page.content, encoding="utf-8")
    return root


def test_a_folders_files_that_are_not_pages_are_named_and_counted(folder, capsys):
    (folder / "logo.html").write_bytes(bytes(range(256)) * 8)
    (folder / "blank.html").write_text("")
    pages = len(list(folder.glob("*.html"))) - 2
    code, out, err = run(capsys, "templates", str(folder), "--quiet")
    assert code == 0 and "cluster 0" in out
    assert (f"grist templates: {pages} pages, {pages} results, 0 errors, 2 other files skipped"
            in err)
    code, out, err = run(capsys, "templates", str(folder))
    assert "grist: skipped: " + str(folder / "blank.html") + ": empty file" in err
    (folder / "only").mkdir()
    (folder / "only" / "blank.html").write_text("")
    code, out, err = run(capsys, "templates", str(folder / "only"))
    assert code == 0 and out == "" and "0 pages, 0 results, 0 errors, 1 other file skipped" in err


@pytest.fixture
def jsonl(tmp_path: Path) -> Path:
    path = tmp_path / "pages.jsonl"
    lines = [json.dumps({"html": p.content, "url": p.url, "id": p.input}) for p in site_pages()]
    lines += [json.dumps({"html": "", "url": "https://news.example/empty", "id": "empty"}),
              "not json at all"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_text_output_lists_clusters_and_template_paths(capsys, folder: Path) -> None:
    code, out, err = run(capsys, "templates", str(folder), "--quiet")
    assert code == 0
    assert out.count("cluster ") == 3
    assert 'html>body>div>ul>li>a "Home"' in out
    assert "14 pages, 14 results, 0 errors" in err and "3 clusters" in err


@pytest.mark.parametrize("method", ["mdl", "hash", "lsh"])
def test_json_output_has_a_line_per_page_then_per_cluster(capsys, jsonl: Path,
                                                           method: str) -> None:
    code, out, err = run(capsys, "templates", str(jsonl), "--format", "json", "--method", method)
    assert code == 1  # two inputs could not be read
    rows = [json.loads(line) for line in out.splitlines()]
    pages, clusters = rows[:16], rows[16:]
    assert [r["input"].split("(")[-1].rstrip(")") for r in pages[:14]] == [
        p.input for p in site_pages()]
    by_cluster: dict[int, set[str]] = {}
    for row in pages[:14]:
        by_cluster.setdefault(row["cluster"], set()).add(row["input"].split("(")[-1][:-1])
    assert sorted(sorted(v)[0] for v in by_cluster.values()) == ["article-0", "gazette-0",
                                                                 "listing-0"]
    assert pages[14]["cluster"] is None and pages[14]["reason"] == "empty-input"
    assert pages[15]["reason"] == "dataset-error"
    assert [c["cluster"] for c in clusters] == [0, 1, 2]
    assert {c["site"] for c in clusters} == {"news.example", "gazette.example"}
    assert all(c["template"] and {"path", "pages"} <= set(c["template"][0]) for c in clusters)
    assert "grist: error:" in err and "2 errors" in err


def test_warc_records_are_pages_too(capsys, tmp_path: Path) -> None:
    from warc_files import http_response, warc_record, write_warc

    pages = site_pages()
    records = [warc_record("response", i, http_response(p.content.encode()), url=p.url)
               for i, p in enumerate(pages)]
    records.append(warc_record("response", 99, http_response(b"%PDF-1.4", "application/pdf"),
                               url="https://news.example/file.pdf"))
    write_warc(tmp_path / "crawl.warc.gz", records)
    code, out, err = run(capsys, "templates", str(tmp_path / "crawl.warc.gz"), "--format",
                         "json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and len(rows) == len(pages) + 1 + 3
    assert rows[len(pages)]["reason"] == "not-html"
    assert {r["site"] for r in rows[: len(pages)]} == {"news.example", "gazette.example"}


def test_a_saved_model_drives_extract_site(capsys, folder: Path, tmp_path: Path) -> None:
    model = tmp_path / "site.json.gz"
    assert run(capsys, "templates", str(folder), "--save", str(model), "--quiet")[0] == 0
    page = tmp_path / "new.html"
    page.write_text(article(77), encoding="utf-8")
    code, plain, _ = run(capsys, "extract", str(page))
    code_site, with_site, err = run(capsys, "extract", "--site", str(model), str(page))
    assert code == code_site == 0
    assert "Share this story" in plain and "Share this story" not in with_site
    assert "story 77" in with_site
    code, out, err = run(capsys, "extract", "--site", str(model), "--format", "json", str(page))
    share = next(b for b in json.loads(out)["blocks"] if b["text"].startswith("Share this"))
    assert share["reason"].startswith("template path shared by 6 of 6 pages of cluster")


def test_decide_chooses_what_the_saved_model_changes(capsys, folder: Path,
                                                    tmp_path: Path) -> None:
    for decide, slots in (("template+slots", True), ("template", False)):
        model = tmp_path / f"{decide}.json"
        code, _, _ = run(capsys, "templates", str(folder), "--save", str(model), "--quiet",
                         "--decide", decide)
        loaded = SiteModel.load(model)
        assert code == 0 and loaded.config.decide == decide
        assert any(len(c.slots.hashes) for c in loaded.clusters_) == slots
    with pytest.raises(SystemExit) as exit_:
        main(["templates", str(folder), "--decide", "sometimes"])
    assert exit_.value.code == 2 and "invalid choice: 'sometimes'" in capsys.readouterr().err


def test_extract_site_never_fails_a_page(capsys, jsonl: Path, tmp_path: Path) -> None:
    model = tmp_path / "site.json"
    run(capsys, "templates", str(jsonl), "--save", str(model), "--quiet")
    page = tmp_path / "other.html"
    page.write_text(article(5), encoding="utf-8")
    code, out, err = run(capsys, "extract", "--site", str(model), str(page))
    assert code == 0 and "story 5" in out
    assert "site model: no template of pages without a URL" in err


def test_a_bad_model_file_is_one_clear_error(capsys, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\x00garbage")
    page = tmp_path / "p.html"
    page.write_text(article(1), encoding="utf-8")
    code, out, err = run(capsys, "extract", "--site", str(bad), str(page))
    assert code == 1 and out == ""
    assert err.startswith(f"grist: error: {bad} is not a grist model file (those are JSON")
    code, out, err = run(capsys, "extract", "--site", str(page), str(page))
    assert code == 1 and err.startswith(f"grist: error: {page} is not a grist model file")
    cut = tmp_path / "cut.json"
    cut.write_text('{"format": "grist-model", "kind": "site", "payl')
    code, out, err = run(capsys, "extract", "--site", str(cut), str(page))
    assert code == 1 and err.startswith(f"grist: error: cannot read model {cut}: cut off or "
                                        "damaged (")
    cut.write_bytes(b"\x1f\x8b\x08\x00" + b"\x00" * 20)
    code, out, err = run(capsys, "extract", "--site", str(cut), str(page))
    assert code == 1 and f"cannot read model {cut}: the gzip data is damaged (" in err
    assert "Traceback" not in err


def test_no_pages_at_all_is_a_clear_error(capsys, tmp_path: Path) -> None:
    code, _, err = run(capsys, "templates", str(tmp_path / "missing.html"))
    assert code == 1 and "grist: error:" in err and "Traceback" not in err


def test_a_save_without_a_readable_page_keeps_the_model_there(capsys, folder: Path,
                                                               tmp_path: Path) -> None:
    """A typo in the input path replaced a good model with an empty one (0 clusters), which
    ``extract --site`` then fell back from without a word."""
    model = tmp_path / "site.json.gz"
    assert run(capsys, "templates", str(folder), "--save", str(model), "--quiet")[0] == 0
    saved = model.read_bytes()
    code, _, err = run(capsys, "templates", str(tmp_path / "pagse"), "--save", str(model), "-q")
    assert code == 1 and model.read_bytes() == saved
    assert (f"grist: error: no page could be read, so {model} is not written (the file already "
            "there is kept)\n") in err
    (tmp_path / "blank").mkdir()
    (tmp_path / "blank" / "a.html").write_text("")  # skipped: no page, no error record
    fresh = tmp_path / "fresh.json"
    code, _, err = run(capsys, "templates", str(tmp_path / "blank"), "--save", str(fresh), "-q")
    assert code == 1 and not fresh.exists()
    assert f"so {fresh} is not written\n" in err


def test_a_save_through_a_link_replaces_its_target(capsys, folder: Path, tmp_path: Path) -> None:
    (tmp_path / "models").mkdir()
    link = tmp_path / "current.json"
    link.symlink_to(Path("models") / "real.json")
    assert run(capsys, "templates", str(folder), "--save", str(link), "--quiet")[0] == 0
    assert link.is_symlink() and SiteModel.load(tmp_path / "models" / "real.json").n_pages_ == 14


def test_damaged_gzip_in_a_folder_is_an_error_wherever_the_damage_is(capsys, folder: Path,
                                                                    tmp_path: Path) -> None:
    """Damage at the start (nothing readable) made the file a silent skip; after the start, an
    error."""
    (folder / "bad.html.gz").write_bytes(b"\x1f\x8b\x08\x00garbage")
    code, out, err = run(capsys, "templates", str(folder), "--format", "json", "--quiet")
    rows = {Path(r["input"]).name: r for r in map(json.loads, out.splitlines()) if "input" in r}
    assert code == 1 and rows["bad.html.gz"]["reason"] == "corrupt-input"
    assert "15 pages, 14 results, 1 error (1 corrupt-input) in" in err


SAVER = """
import sys
sys.path.insert(0, {tests!r})
from site_pages import site_pages
from grist.sites.model import SiteModel
pages = site_pages()
small, large = SiteModel().fit(pages[:6]), SiteModel().fit(pages)
print("ready", flush=True)
while True:
    small.save({path!r})
    large.save({path!r})
"""


def test_a_save_killed_at_any_moment_leaves_a_whole_model(tmp_path: Path) -> None:
    path = tmp_path / "site.json.gz"
    script = SAVER.format(tests=str(Path(__file__).parent), path=str(path))
    seen = set()
    for delay in (0.05, 0.13, 0.21, 0.29, 0.37):
        child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
        assert child.stdout is not None and child.stdout.readline() == b"ready\n"
        time.sleep(delay)
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        seen.add(SiteModel.load(path).n_pages_)  # whole, whichever save it is
    assert seen <= {6, 14}
    SiteModel().fit(site_pages()).save(path)  # a rerun writes over what was left
    assert SiteModel.load(path).n_pages_ == 14
