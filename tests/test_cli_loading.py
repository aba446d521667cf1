"""``grist COMMAND`` imports only that command's module; help and errors still list them all."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from grist.cli import _SUBCOMMANDS, main


def modules_after(statement: str, prefixes: tuple[str, ...] = ("grist.cli.",)) -> list[str]:
    """The modules named by ``prefixes`` a fresh interpreter has imported after ``statement``."""
    code = (f"import json, sys\n{statement}\n"
            f"print(json.dumps(sorted(m for m in sys.modules if m.startswith({prefixes!r}))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=120)
    return json.loads(done.stdout)


def test_a_named_command_loads_its_module_alone():
    def after(argv: list[str]) -> list[str]:
        return modules_after(f"from grist.cli import build_parser; build_parser({argv!r})")

    extract_alone = modules_after("import grist.cli.extract")
    assert "grist.cli.extract" in extract_alone
    assert not {"grist.cli.serve", "grist.cli.train", "grist.cli.batch"} & set(extract_alone)
    assert after(["extract", "--format", "json", "page.html"]) == extract_alone
    assert set(_SUBCOMMANDS.values()) <= set(after(["-h"]))
    assert after(["--version"]) == []


def test_extracting_local_pages_loads_no_http_client_and_no_executor():
    heavy = ("httpx", "grist.batch.run", "grist.batch.local", "grist.sites.model")
    assert modules_after("import grist.cli.extract", heavy) == []
    assert modules_after("import grist.cli.batch", heavy) != []  # (the probe sees them)


@pytest.mark.parametrize("argv", [["--help"], ["-h", "extract"]])
def test_help_lists_every_command(argv, capsys):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 0
    listed = capsys.readouterr().out
    assert all(re.search(rf"^ +{name}\b", listed, re.M) for name in _SUBCOMMANDS)


def test_an_unknown_command_names_the_known_ones(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["extrct", "page.html"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'extrct'" in err
    assert all(f"'{name}'" in err for name in _SUBCOMMANDS)


def test_a_command_still_parses_its_own_options(tmp_path, capsys):
    page = tmp_path / "p.html"
    page.write_text("<html><body><article><p>" + "A sentence about lighthouses. " * 20
                    + "</p></article></body></html>")
    assert main(["extract", "--method", "justext", "--format", "json", str(page)]) == 0
    record = json.loads(capsys.readouterr().out)
    assert "lighthouses" in record["text"]
