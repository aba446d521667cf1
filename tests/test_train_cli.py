"""``grist train`` round trip: learn from a small labelled set made here, extract with the result."""

from __future__ import annotations

import json
import os

import pytest

import grist
from grist.cli import main
from grist.errors import ModelError
from grist.methods.auto import AutoConfig
from grist.methods.tree import TreeConfig

TOPICS = ["harbour", "orchard", "railway", "library", "market", "glacier", "vineyard", "bridge"]


def page(topic: str, n: int) -> tuple[str, str]:
    """A page with a link menu, an article about ``topic`` and a footer; and its gold text."""
    paragraphs = [
        f"The {topic} story number {i} begins on a quiet morning when the people of the valley "
        f"gathered to talk about the {topic}, its long history and what the coming years would "
        "bring to the families who had always lived and worked there."
        for i in range(n)
    ]
    menu = "".join(f"<li><a href=/{t}>{t.title()} news</a></li>" for t in TOPICS)
    html = (
        f"<html><head><title>{topic}</title></head><body><ul class=menu>{menu}</ul>"
        f"<h1>All about the {topic}</h1>" + "".join(f"<p>{p}</p>" for p in paragraphs)
        + "<div class=footer><a href=/privacy>Privacy</a> | <a href=/contact>Contact</a>"
        " | Copyright 2024</div></body></html>"
    )
    gold = "\n\n".join([f"All about the {topic}", *paragraphs])
    return html, gold


@pytest.fixture
def training_folder(tmp_path):
    folder = tmp_path / "pages"
    folder.mkdir()
    for k, topic in enumerate(TOPICS):
        html, gold = page(topic, 3 + k % 3)
        (folder / f"{topic}.html").write_text(html)
        (folder / f"{topic}.txt").write_text(gold)
    return folder


def test_train_auto_round_trip_learns_article_versus_menu(training_folder, tmp_path):
    model = tmp_path / "model.json.gz"
    status = main(["train", str(training_folder), "--out", str(model), "--rounds", "20",
                   "--min-leaf", "2"])
    assert status == 0 and model.is_file()
    html, _ = page("lighthouse", 4)
    result = grist.extract(html, method="auto", config=AutoConfig(model_path=str(model)))
    kept = [b.text for b in result.content_blocks]
    assert "All about the lighthouse" not in kept  # the headline is the title, not the body
    assert {b.role for b in result.blocks if b.text == "All about the lighthouse"} == {"title"}
    assert sum(t.startswith("The lighthouse story") for t in kept) == 4
    assert not any("news" in t or "Privacy" in t for t in kept)
    assert all(b.reason.startswith("p=") and 0 <= b.score <= 1 for b in result.blocks)


def test_train_tree_round_trip(training_folder, tmp_path):
    model = tmp_path / "tree.json"
    assert main(["train", str(training_folder), "--method", "tree", "--out", str(model),
                 "--min-leaf", "2"]) == 0
    html, _ = page("lighthouse", 4)
    result = grist.extract(html, method="tree", config=TreeConfig(model_path=str(model)))
    assert sum(b.text.startswith("The lighthouse story") for b in result.content_blocks) == 4
    assert not any(b.text.endswith("news") for b in result.content_blocks)


def test_train_without_usable_pages_is_a_one_line_error(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["train", str(empty), "--out", str(tmp_path / "m")]) == 1
    assert "grist: error:" in capsys.readouterr().err


def test_a_file_that_is_not_a_model_is_a_model_error(tmp_path):
    bogus = tmp_path / "bogus.json"
    bogus.write_text("{}")
    html, _ = page("lighthouse", 2)
    with pytest.raises(ModelError):
        grist.extract(html, method="auto", config=AutoConfig(model_path=str(bogus)))


def test_too_few_blocks_for_min_leaf_is_refused_with_what_to_do(training_folder, tmp_path,
                                                                 capsys):
    """One page (under 1000 blocks) made a one-leaf tree that kept nothing, silently."""
    model = tmp_path / "tree.json"
    for options in (["--method", "tree"], ["--min-leaf", "100000"]):
        assert main(["train", str(training_folder), "--out", str(model), "-q", *options]) == 1
        err = capsys.readouterr().err
        assert "training blocks" in err and "cannot fill two leaves" in err
        assert "lower min_leaf (grist train --min-leaf) or train on more pages" in err
        assert not model.exists()


def test_train_says_each_stage_of_the_auto_model_unless_quiet(training_folder, tmp_path, capsys):
    """After the labelling bar, nothing was said for the seconds to minutes of the fitting."""
    model = tmp_path / "model.json.gz"
    options = ["train", str(training_folder), "--out", str(model), "--rounds", "5",
               "--min-leaf", "2"]
    assert main(options) == 0
    err = capsys.readouterr().err
    assert "grist: stage 1: 5 rounds ...\n" in err and "grist: stage 2: 60 rounds ...\n" in err
    assert main([*options, "--quiet"]) == 0
    assert "grist: stage" not in capsys.readouterr().err


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")
def test_an_out_file_that_cannot_be_written_is_refused_before_the_labelling(training_folder,
                                                                           capsys):
    with pytest.raises(SystemExit) as stop:
        main(["train", str(training_folder), "--out", "/proc/model.json.gz"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "labelling" not in err
    assert "argument --out: cannot write model.json.gz into /proc" in err


def test_records_without_gold_are_refused_not_trained_on_as_empty_gold(tmp_path, capsys):
    """``{html, url, id}`` records trained a model that kept nothing ("gold coverage 1.000")."""
    data = tmp_path / "pages.jsonl"
    data.write_text("".join(json.dumps({"html": page(topic, 3)[0], "id": topic}) + "\n"
                            for topic in TOPICS))
    model = tmp_path / "model.json.gz"
    assert main(["train", str(data), "--out", str(model), "--min-leaf", "2", "-q"]) == 1
    assert capsys.readouterr().err == (f"grist: error: cannot read dataset {data}:1: no field "
                                       "'gold'\n")
    assert not model.exists()


@pytest.mark.parametrize(("options", "said"), [
    (["--rounds", "5"], "--rounds: only --method auto takes it, not tree"),
    (["--threads", "2", "--rounds", "5"], "--rounds, --threads: only --method auto takes them"),
])
def test_options_of_auto_are_refused_with_tree(training_folder, tmp_path, capsys, options, said):
    """``--method tree --rounds 5`` trained a tree as if ``--rounds`` had not been given."""
    model = tmp_path / "tree.json"
    with pytest.raises(SystemExit) as stop:
        main(["train", str(training_folder), "--method", "tree", "--out", str(model), *options])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and f"grist train: error: {said}" in err
    assert "labelling" not in err and not model.exists()
