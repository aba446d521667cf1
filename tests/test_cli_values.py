"""Numeric options refuse values they cannot use, naming the option, before any work starts."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest

from grist.cli import build_parser, main
from grist.cli.values import COUNT, SECONDS, SIMILARITY, number, output_file, whole


@pytest.mark.parametrize(("args", "message"), [
    (["extract", "-j", "0", "p.html"], "argument -j/--jobs: must be 1 or more, not 0"),
    (["extract", "--time-budget", "0", "p.html"], "argument --time-budget: must be more than 0"),
    (["batch", "--files-per-shard", "0", "p.html", "--out", "o"], "--files-per-shard: must be 1"),
    (["batch", "--dedup-threshold", "1.5", "p.html", "--out", "o"],
     "--dedup-threshold: must be more than 0 and at most 1, not 1.5"),
    (["dedup", "-k", "64", "p.html"], "argument -k: must be 0 or more and at most 63, not 64"),
    (["dedup", "--shingle", "zero", "p.html"], "argument --shingle: not a whole number: 'zero'"),
    (["stream", "--feeds", "f", "--state", "s", "--out", "o", "--host-concurrency", "0"],
     "argument --host-concurrency: must be 1 or more, not 0"),
    (["stream", "--replay", "taken", "--out", "o", "--timeout", "nan"],
     "argument --timeout: not a number: 'nan'"),
    (["serve", "--port", "70000"], "argument --port: must be 0 or more and at most 65535"),
    (["serve", "--max-in-flight", "0"], "argument --max-in-flight: must be 1 or more, not 0"),
    (["train", "--threads", "-1", "--out", "m"], "argument --threads: must be 1 or more, not -1"),
    # files written after the work: their folder is checked first (training ran, then failed)
    (["train", "d.jsonl", "--out", "models/auto.json"],
     "argument --out: no folder models to write auto.json into (make it first)"),
    (["train", "d.jsonl", "--out", "."], "argument --out: . is a folder; name the file to write"),
    (["templates", "p.html", "--save", "no/site.model"], "argument --save: no folder no to write"),
    (["dedup", "p.html", "--save-index", "no/i.npz"], "argument --save-index: no folder no"),
    # "-" made a file named "-" (these files are not written to stdout)
    (["templates", "p.html", "--save", "-"], "argument --save: - is not a file: this output is "
     "not written to stdout; name a file (./- for a file named '-')"),
    (["train", "d.jsonl", "--out", "-"], "argument --out: - is not a file"),
    # an output folder that is a file ("cannot create out: File exists")
    (["batch", "p.html", "--out", "taken"], "argument --out: taken is a file; name a folder"),
    (["extract", "p.html", "--out", "taken"], "argument --out: taken is a file; name a folder"),
    # a replay of a missing file made the output and printed a run's counts before saying so
    (["stream", "--replay", "gone.jsonl", "--out", "o"],
     "argument --replay: no such file or folder: gone.jsonl"),
])
def test_a_value_the_option_cannot_use_is_refused_by_name(
        capsys: pytest.CaptureFixture[str], tmp_path, monkeypatch, args: list[str],
        message: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "taken").write_text("")
    with pytest.raises(SystemExit) as stop:
        main(args)
    assert stop.value.code == 2 and message in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir()] == ["taken"]  # refused before anything was written


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_an_output_file_that_is_no_regular_file_is_refused_and_a_link_followed(
        tmp_path: Path) -> None:
    """A FIFO, or a device as root (/dev/full), was replaced by the model after the work."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(argparse.ArgumentTypeError, match=f"{fifo} is a FIFO, not a regular file"):
        output_file(str(fifo))
    (tmp_path / "models").mkdir()
    link = tmp_path / "current.json"
    link.symlink_to(tmp_path / "models" / "real.json")  # (not there yet: written on save)
    assert output_file(str(link)) == link
    link.unlink()
    link.symlink_to(tmp_path / "gone" / "real.json")
    with pytest.raises(argparse.ArgumentTypeError,
                       match=f"no folder {tmp_path / 'gone'} to write real.json into"):
        output_file(str(link))


def test_the_types_keep_the_bounds_they_name() -> None:
    assert COUNT("3") == 3 and whole(0)("0") == 0 and whole(0, 63)("63") == 63
    assert SECONDS("0.5") == 0.5 and SECONDS("inf") == float("inf") and number(0)("0") == 0.0
    assert SIMILARITY("1") == 1.0
    for parse, text in ((COUNT, "0"), (COUNT, "1.5"), (SECONDS, "-1"), (SECONDS, "0"),
                        (SIMILARITY, "0"), (SIMILARITY, "1.01"), (number(0), "-inf"),
                        (whole(0, 63), "-1")):
        with pytest.raises(argparse.ArgumentTypeError):
            parse(text)


@pytest.mark.parametrize(("args", "usage", "message"), [
    (["batch", "p.html", "--out", "o", "--format", "parquet"], "usage: grist batch",
     "unrecognized arguments: --format parquet (--format: did you mean --text-format or "
     "--output-format?)"),
    (["extract", "p.html", "--withtitle"], "usage: grist extract",
     "unrecognized arguments: --withtitle (--withtitle: did you mean --with-title?)"),
    (["serve", "--prot", "3"], "usage: grist serve", "(--prot: did you mean --port?)"),
    (["extract", "p.html", "--bogus=1"], "usage: grist extract",
     "grist extract: error: unrecognized arguments: --bogus=1\n"),
    (["--bogus"], "usage: grist [-h]", "grist: error: unrecognized arguments: --bogus\n"),
])
def test_an_option_a_command_does_not_take_is_named_with_its_usage(args, usage, message, capsys):
    with pytest.raises(SystemExit) as exited:
        main(args)
    err = capsys.readouterr().err
    assert exited.value.code == 2 and err.startswith(usage) and message in err


def test_every_option_of_every_command_says_what_it_does_in_plain_text():
    commands = next(a for a in build_parser([])._actions
                    if isinstance(a, argparse._SubParsersAction)).choices
    silent = [f"{name} {action.option_strings[0]}" for name, parser in commands.items()
              for action in parser._actions if action.option_strings and not action.help]
    assert silent == []
    marked = [name for name, parser in commands.items() if "``" in
              (parser.description or "") + "".join(a.help or "" for a in parser._actions)]
    assert marked == []
