"""The benchmark suite: scoring of worker outputs, speed figures, worst pages, and a tiny run."""

import gzip
import importlib.util
import json
import re
import sys

import pytest

from grist.cli import main
from grist.evaluate.bench import Gold, score_run, speed
from grist.evaluate.report import diff_text, worst_pages
from grist.evaluate.runner import Output, SystemRun
from grist.methods import available_methods

GOLDS = {"tiny": [Gold("a", "Title Some text in the body", 100), Gold("b", "x y z", 50)]}


def test_score_run_counts_missing_and_failed_pages():
    run = SystemRun("sys", {("tiny", "a"): Output("Title Copyright Some text in", 0.5)})
    (result,) = score_run(run, GOLDS, rounds=50, keep_texts=True)
    summary = result.datasets["tiny"]
    assert summary["pages"] == 2
    assert summary["errors"] == 1  # page b has no output: empty and failed
    assert summary["lcs_f1"] == pytest.approx((8 / 11) / 2)
    assert result.texts[("tiny", "b")] == ""


def test_a_method_with_roles_is_scored_with_the_convention_and_body_only():
    run = SystemRun("grist:auto", {
        ("tiny", "a"): Output("Title Some text in the body", 0.5, default="Some text in the body"),
        ("tiny", "b"): Output("x y z", 0.5, default="x y z"),
    })
    convention, body = score_run(run, GOLDS, rounds=10, keep_texts=True)
    assert (convention.system, body.system) == ("grist:auto", "grist:auto (body only)")
    assert convention.datasets["tiny"]["lcs_f1"] == 1.0
    assert body.datasets["tiny"]["lcs_r"] == pytest.approx((5 / 6 + 1) / 2)
    assert body.texts[("tiny", "a")] == "Some text in the body"


def test_speed_is_pages_over_extraction_seconds():
    figures = speed([0.1, 0.1, 0.2, 0.6])
    assert figures["pages_per_s"] == pytest.approx(4 / 1.0)
    assert figures["p50_ms"] == pytest.approx(150.0)
    assert figures["p99_ms"] == pytest.approx(600.0)


def test_worst_pages_ranks_gap_to_best_peer():
    outputs = {
        "grist:m": {("tiny", "a"): Output("Title", 0.1), ("tiny", "b"): Output("x y z", 0.1)},
        "peer1": {("tiny", "a"): Output("Title Some text in the body", 0.1)},
        "peer2": {("tiny", "a"): Output("Title Some", 0.1), ("tiny", "b"): Output("x y", 0.1)},
    }
    results = {
        name: score_run(SystemRun(name, out), GOLDS, rounds=10, keep_texts=False)[0]
        for name, out in outputs.items()
    }
    worst = worst_pages(results, ["grist:m"], 1)
    assert [(w["id"], w["peer"]) for w in worst] == [("a", "peer1")]
    assert worst[0]["gap"] == pytest.approx(1.0 - 2 * (1 / 6) / (1 + 1 / 6))


def test_diff_text_shows_missing_and_extra_paragraphs():
    diff = diff_text("Menu\nBody text", "Body text\nMore body")
    assert "-Menu" in diff and "+More body" in diff


@pytest.mark.skipif(not available_methods(), reason="no grist method built yet")
def _write_records(path, records):
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.writelines(json.dumps(r) + "\n" for r in records)


def _tiny_dataset(path, named=None):
    """A two-page dataset: one page with a body and a menu, one empty page (an error); its
    records name the dataset ``named`` when given (a sample cut from another)."""
    body = "".join(
        f"<p>Paragraph {i} tells a long story about the harbour, the boats and the people who "
        "work there every single day of the year.</p>" for i in range(5)
    )
    records = [
        {"id": "1", "html": f"<html><body><nav>Home | About</nav>{body}</body></html>",
         "gold": body.replace("<p>", "").replace("</p>", "\n\n")},
        {"id": "2", "html": "", "gold": "nothing to find"},
    ]
    _write_records(path, [{**r, "dataset": named} if named else r for r in records])
    return path


def test_bench_command_writes_reports(tmp_path, capsys):
    data = _tiny_dataset(tmp_path / "tiny.jsonl.gz")
    method = available_methods()[0]
    status = main([
        "bench", "--datasets", str(data), "--methods", method, "--peers",
        "--rounds", "20", "--jobs", "1", "--out", str(tmp_path / "out"),
        "--scores-dir", str(tmp_path / "scores"),
    ])
    assert status == 0
    printed = capsys.readouterr()
    assert f"grist:{method}" in printed.out
    # each system's end is a line on stderr even without a terminal (the bars are off in logs)
    assert re.search(rf"grist bench: grist:{method} done in \d+ s: 2 pages, 1 failed, "
                     "worker restarts: 0", printed.err)
    report = json.loads(next((tmp_path / "out").glob("bench-*.json")).read_text())
    tiny = report["systems"][f"grist:{method}"]["datasets"]["tiny"]
    assert tiny["pages"] == 2 and tiny["errors"] == 1  # the empty page is a counted error
    assert 0.0 <= tiny["lcs_f1"] <= 0.5
    assert report["systems"][f"grist:{method}"]["peak_rss_mib"] > 0
    plotted = importlib.util.find_spec("matplotlib") is not None
    assert len(list((tmp_path / "out").glob("bench-*.png"))) == (2 if plotted else 0)
    # without matplotlib the run says why it wrote no plots, and which extra brings them
    assert ("no plots written" in printed.err) is not plotted
    assert plotted or "pip install 'grist[bench]'" in printed.err
    assert "## tiny (2 pages)" in next((tmp_path / "out").glob("bench-*.md")).read_text()


def test_a_bench_without_matplotlib_says_which_extra_plots(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # (importing it fails, as uninstalled)
    data = _tiny_dataset(tmp_path / "tiny.jsonl.gz")
    status = main(["bench", "--datasets", str(data), "--methods", "lineblock", "--rounds", "20",
                   "--jobs", "1", "--out", str(tmp_path / "out"),
                   "--scores-dir", str(tmp_path / "scores")])
    assert status == 0
    err = capsys.readouterr().err
    assert "note: no plots written: plotting the results needs the 'bench' extra" in err
    assert "and 0 plots" in err and not list((tmp_path / "out").glob("*.png"))
    assert list((tmp_path / "out").glob("bench-*.md"))  # the tables are written all the same


def test_bench_reads_only_the_page_datasets_of_a_folder(tmp_path, capsys):
    folder = tmp_path / "datasets"
    folder.mkdir()
    _tiny_dataset(folder / "tiny.jsonl.gz")
    # metadata gold beside the pages (as modern-dev-meta.jsonl.gz): same suffix, no html
    _write_records(folder / "tiny-meta.jsonl.gz", [{"id": "1", "title": "Harbour", "author": "A"}])
    method = available_methods()[0]
    status = main(["bench", "--datasets-dir", str(folder), "--methods", method, "--peers",
                   "--rounds", "20", "--jobs", "1", "--out", str(tmp_path / "out"),
                   "--scores-dir", str(tmp_path / "scores")])
    assert status == 0
    printed = capsys.readouterr()
    assert "skipped tiny-meta.jsonl.gz: its records have no html" in printed.err
    report = json.loads(next((tmp_path / "out").glob("bench-*.json")).read_text())
    assert list(report["systems"][f"grist:{method}"]["datasets"]) == ["tiny"]


def test_a_folder_without_page_datasets_is_a_clear_error(tmp_path, capsys):
    _write_records(tmp_path / "only-meta.jsonl.gz", [{"id": "1", "title": "T"}])
    assert main(["bench", "--datasets-dir", str(tmp_path), "--peers", "--jobs", "1"]) == 1
    assert "no *.jsonl.gz datasets of pages in" in capsys.readouterr().err


def test_a_sample_of_a_dataset_is_scored_under_its_files_name(tmp_path, capsys):
    data = _tiny_dataset(tmp_path / "sample.jsonl.gz", named="l3s-gn1")
    method = "lineblock"  # (keeps the tiny page's paragraphs)
    assert main(["bench", "--datasets", str(data), "--methods", method, "--peers", "--rounds",
                 "20", "--jobs", "1", "--out", str(tmp_path / "out"),
                 "--scores-dir", str(tmp_path / "scores")]) == 0
    report = json.loads(next((tmp_path / "out").glob("bench-*.json")).read_text())
    sample = report["systems"][f"grist:{method}"]["datasets"]["sample"]
    assert sample["errors"] == 1 and sample["output_chars"] > 0 and sample["sh_f1"] > 0.3


def test_an_unknown_peer_is_an_error_not_a_note(tmp_path, capsys):
    data = _tiny_dataset(tmp_path / "tiny.jsonl.gz")
    assert main(["bench", "--datasets", str(data), "--peers", "trafilature", "--jobs", "1",
                 "--out", str(tmp_path / "out")]) == 1
    assert "unknown peer 'trafilature'; the peers are: trafilatura" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
