"""``grist extract --model FILE`` uses a model trained with ``grist train``."""

from __future__ import annotations

from grist.cli import main
from test_train_cli import page, training_folder  # noqa: F401 - the fixture is used below


def test_extract_with_a_trained_tree(training_folder, tmp_path, capsys):  # noqa: F811
    model = tmp_path / "tree.json"
    assert main(["train", str(training_folder), "--method", "tree", "--out", str(model),
                 "--min-leaf", "2"]) == 0
    html, _ = page("lighthouse", 3)
    target = tmp_path / "lighthouse.html"
    target.write_text(html)
    capsys.readouterr()
    assert main(["extract", "--method", "tree", "--model", str(model), str(target)]) == 0
    text = capsys.readouterr().out
    assert text.count("The lighthouse story") == 3
    assert "Privacy" not in text and "Orchard news" not in text


def test_model_for_a_method_without_one_is_a_one_line_error(tmp_path, capsys):
    target = tmp_path / "p.html"
    target.write_text("<p>Some text here.</p>")
    assert main(["extract", "--method", "justext", "--model", "x.json", str(target)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("grist: error:") and "does not use a trained model" in err
    assert "\n" not in err


def test_missing_model_file_is_reported(tmp_path, capsys):
    target = tmp_path / "p.html"
    target.write_text("<p>Some text here.</p>")
    assert main(["extract", "--method", "tree", "--model", str(tmp_path / "nope"), str(target)]) == 1
    assert "model file not found" in capsys.readouterr().err


def test_a_dataset_given_as_the_model_says_what_model_files_are(tmp_path, capsys):
    """A JSON-lines dataset named by mistake said only that it is no model file."""
    target = tmp_path / "p.html"
    target.write_text("<p>Some text here.</p>")
    data = tmp_path / "pages.jsonl"
    data.write_text('{"html": "<p>x</p>", "gold": "x"}\n')
    assert main(["extract", "--model", str(data), str(target)]) == 1
    err = capsys.readouterr().err
    assert f'{data} is not a grist model file (its JSON has no "format": "grist-model"; those ' \
           "are written by grist train or grist templates --save)" in err
