"""``grist eval`` on a tiny dataset written by the test."""

import gzip
import json
from types import SimpleNamespace

import pytest

import grist.cli.evaluate as evaluate_cli

from grist.cli import main
from grist.errors import EmptyInputError
from grist.methods import available_methods

ARTICLE = (
    "<html><head><title>T</title></head><body>"
    "<div><a href='/'>Home</a> | <a href='/n'>News</a></div>"
    + "".join(
        f"<p>This is paragraph number {i} of a long article about the city council and its "
        "plans for the new park, which the residents have discussed for many months now.</p>"
        for i in range(6)
    )
    + "</body></html>"
)


def _write(tmp_path, records):
    path = tmp_path / "tiny.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.writelines(json.dumps(r) + "\n" for r in records)
    return path


class _WorkedExampleExtractor:
    """Stands in for a method: returns seed 004's CE output, or fails like grist on empty input."""

    def __init__(self, method):
        self.method = method

    def __call__(self, html, url=None):
        if not html:
            raise EmptyInputError("the input is empty")
        return SimpleNamespace(text="Title Copyright Some text in")


def test_eval_scores_seed004_example_and_counts_failures(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(evaluate_cli, "Extractor", _WorkedExampleExtractor)
    path = _write(tmp_path, [
        {"id": "ex", "html": "<p>x</p>", "gold": "Title Some text in the body"},
        {"id": "empty", "html": "", "gold": "some gold text"},
    ])
    assert main(["eval", str(path), "--method", "any"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "page\tprecision\trecall\tf1"
    assert out[1] == "ex\t0.8000\t0.6667\t0.7273"  # p = 4/5, r = 4/6, F1 = 8/11
    assert out[2] == "empty\t0.0000\t0.0000\t0.0000"  # a GristError counts as empty output
    assert out[3].endswith("precision 0.4000  recall 0.3333  F1 0.3636")
    assert out[4].endswith("scored as empty): 1 (empty-input 1)")


@pytest.mark.skipif("justext" not in available_methods(), reason="justext method not built yet")
def test_eval_runs_a_real_method(tmp_path, capsys):
    path = _write(tmp_path, [
        {"id": "page", "html": ARTICLE, "gold": "paragraph"},
        {"id": "empty", "html": "", "gold": "some gold text"},
    ])
    assert main(["eval", str(path), "--method", "justext", "--quiet"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("mean over 2 pages (justext)")
    assert "(empty-input 1)" in out[1]


def test_eval_unknown_dataset_is_one_line_error(tmp_path, capsys):
    assert main(["eval", "nope", "--datasets-dir", str(tmp_path)]) == 1
    assert capsys.readouterr().err.startswith("grist: error: no dataset 'nope'")


def test_eval_missing_dataset_file_is_named_as_a_file(tmp_path, capsys):
    missing = tmp_path / "typo.jsonl"
    assert main(["eval", str(missing), "--datasets-dir", str(tmp_path)]) == 1
    assert capsys.readouterr().err == f"grist: error: {missing}: no such file or folder\n"


def test_an_empty_dataset_is_an_error_naming_it(tmp_path, capsys):
    """It printed the header and "no pages" on stdout."""
    empty = tmp_path / "e.jsonl"
    empty.write_text("")
    assert main(["eval", str(empty)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err == f"grist: error: {empty}: no pages\n"


def test_a_record_without_gold_is_refused_not_scored_as_empty_gold(tmp_path, capsys):
    """A page justext extracts nothing from scored 1.0 against the missing gold, read as ""."""
    path = _write(tmp_path, [{"id": "1", "html": "<p>x</p>", "gold": "x"},
                             {"id": "2", "html": "<div><a href=/>Home</a></div>"}])
    assert main(["eval", str(path), "--method", "justext"]) == 1
    out, err = capsys.readouterr()
    assert "mean over" not in out
    assert err == f"grist: error: cannot read dataset {path}:2: no field 'gold'\n"
