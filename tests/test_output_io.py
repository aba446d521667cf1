"""Output I/O of ``grist extract``: file names that are not UTF-8, stdout under any locale,
and a batch stopped early (a reader closing stdout, an --out folder that cannot be
written) still ending with its summary line and an exit status that says whether a page failed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from grist.cli import main
from grist.io import sinks
from grist.io.atomic import temporary_beside, write_atomically
from grist.io.sinks import MAX_NAME, short_name

PAGE = ("<html><body><article><h1>Harbour reopens</h1>" + "<p>The old harbour reopened on "
        "Monday after two years of work, and the boats came back to the quay.</p>" * 3
        + "</article></body></html>")
NO_TEXT = "<html><body><script>var x = 1;</script></body></html>"  # fails: no visible text
NOT_UTF8 = b"\xff\xfe"  # a file name's bytes that UTF-8 cannot decode (Linux takes any bytes)


def _env(encoding: str) -> dict[str, str]:
    """The environment of a grist process whose stdio is in ``encoding`` (PYTHONIOENCODING)."""
    return {**os.environ, "PYTHONIOENCODING": encoding}


def _grist(*args: str,
           encoding: str = "utf-8:surrogateescape") -> subprocess.CompletedProcess[bytes]:
    """``grist`` in a process of its own (stdio in ``encoding``; by default stdout writes a
    name's undecodable bytes as they are, as under the C locale)."""
    return subprocess.run([sys.executable, "-m", "grist", *args], env=_env(encoding),
                          capture_output=True, timeout=120, check=False)


@pytest.fixture
def not_utf8(tmp_path: Path) -> Path:
    """A folder holding one page whose file name is not UTF-8."""
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / os.fsdecode(NOT_UTF8 + b".html")).write_text(PAGE)
    return folder


def test_a_name_that_is_not_utf8_is_written_under_its_own_bytes(tmp_path: Path) -> None:
    """The temporary beside it was named by UTF-8 encoding the name: UnicodeEncodeError."""
    write_atomically(tmp_path / os.fsdecode(NOT_UTF8 + b".txt"), b"x")
    assert os.listdir(os.fsencode(tmp_path)) == [NOT_UTF8 + b".txt"]
    long = os.fsdecode(b"\xff" * 300)  # (names are cut to fit: a temporary's, a long one's)
    temporary = os.fsencode(temporary_beside(tmp_path / long).name)
    assert temporary.startswith(b"." + b"\xff" * 100 + b".")
    shortened = os.fsencode(short_name(long))  # (it kept none of the name's bytes)
    assert shortened.startswith(b"\xff" * (MAX_NAME - 17)) and len(shortened) <= MAX_NAME
    cut = temporary_beside(tmp_path / ("a" + "é" * 60)).name  # byte 100 is inside an é
    assert cut.startswith(f".a{'é' * 49}.")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_extract_out_writes_a_page_whose_name_is_not_utf8(
        capsys: pytest.CaptureFixture[str], not_utf8: Path, tmp_path: Path, jobs: str) -> None:
    """One process raised UnicodeEncodeError (a traceback); -j failed the shard, no file."""
    out = tmp_path / "out"
    code = main(["extract", "-j", jobs, "--out", str(out), str(not_utf8)])
    assert code == 0 and "1 page, 1 result" in capsys.readouterr().err
    assert os.listdir(os.fsencode(out)) == [NOT_UTF8 + b".txt"]
    assert "harbour" in (out / os.fsdecode(NOT_UTF8 + b".txt")).read_text()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_json_and_csv_name_a_file_that_is_not_utf8_in_valid_utf8(
        not_utf8: Path, jobs: str) -> None:
    """JSON lines and CSV held the name's raw bytes, which no UTF-8 reader takes (-j: a shard
    failed instead)."""
    expected = f"{not_utf8}/\ufffd\ufffd.html"
    done = _grist("extract", "-j", jobs, "--format", "json", str(not_utf8))
    assert done.returncode == 0 and json.loads(done.stdout.decode("utf-8"))["input"] == expected
    done = _grist("extract", "-j", jobs, "--format", "csv", str(not_utf8))
    assert done.returncode == 0 and done.stdout.decode("utf-8").splitlines()[1].startswith(expected)


@pytest.mark.parametrize(("encoding", "fmt"), [("ascii", "text"), ("latin-1", "json")])
def test_stdout_is_utf8_whatever_its_locale_encoding(
        tmp_path: Path, encoding: str, fmt: str) -> None:
    """Under an ASCII stdout a traceback (UnicodeEncodeError); under Latin-1, Latin-1 bytes or,
    for a character it lacks (the euro sign), a traceback."""
    page = tmp_path / "café.html"
    page.write_text(PAGE.replace("Monday", "Monday — the café sold 20 € coffees —"))
    done = _grist("extract", "--format", fmt, str(page), encoding=encoding)
    assert done.returncode == 0 and not done.stderr
    text = done.stdout.decode("utf-8")
    text = json.loads(text)["text"] if fmt == "json" else text
    assert "— the café sold 20 € coffees —" in text


@pytest.mark.parametrize(("failing", "code"), [(True, 1), (False, 0)])
def test_a_reader_closing_stdout_stops_a_batch_with_its_summary_and_status(
        tmp_path: Path, failing: bool, code: int) -> None:
    """The status was 0 even when a page had failed, and no summary line was written."""
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.html").write_text(NO_TEXT if failing else PAGE)
    words = "<p>" + "The harbour master said the quay walls will stand. " * 400 + "</p>"
    for n in range(20):  # far more JSON than a pipe holds: the writes after the close fail
        (folder / f"p{n:02}.html").write_text(f"<html><body>{words}</body></html>")
    with subprocess.Popen([sys.executable, "-m", "grist", "extract", "-q", "--format", "json",
                           str(folder)], env=_env("utf-8"), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.read(10)  # (the first record, a.html's, is being written)
        process.stdout.close()
        err = process.stderr.read().decode("utf-8")
        assert process.wait(timeout=120) == code
    assert "Traceback" not in err and "Exception ignored" not in err
    assert err.splitlines()[-1].endswith("; stopped: stdout was closed")
    assert (" 1 error (1 no-text)" in err) == failing


def test_a_batch_that_cannot_write_its_out_folder_ends_with_its_summary(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    """The batch stopped on the error line alone, no summary (docs/usage.md promises one)."""
    pages = [tmp_path / "a.html", tmp_path / "b.html"]
    for page in pages:
        page.write_text(PAGE)

    def full_disk(path: Path, data: bytes, **options: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(sinks, "write_atomically", full_disk)
    code = main(["extract", "--out", str(tmp_path / "out"), *map(str, pages)])
    lines = capsys.readouterr().err.splitlines()
    assert code == 1 and lines[0] == (f"grist: error: cannot write into {tmp_path / 'out'}: "
                                      "No space left on device")
    assert lines[1].startswith("grist extract: 0 pages, 0 results, 0 errors in ")
    assert lines[1].endswith("; stopped by the error above") and len(lines) == 2
