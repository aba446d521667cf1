"""Files replaced whole (``grist.io.atomic``): permissions of a new file, no half files, and the
temporaries of killed writers told from live ones."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from grist.errors import GristError
from grist.io.atomic import remove_stale_temporaries, write_atomically
from grist.modelfile import write_model


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_replaced_file_gets_a_new_files_permissions(tmp_path: Path, umask_022: None) -> None:
    plain = tmp_path / "plain"
    plain.write_bytes(b"x")
    target = tmp_path / "out.json"
    write_atomically(target, b"first")
    write_atomically(target, b"second")
    assert target.read_bytes() == b"second"
    assert _mode(target) == _mode(plain) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json", "plain"]


def test_model_files_are_readable_by_others(tmp_path: Path, umask_022: None) -> None:
    """Model files (``grist train``, ``templates --save``, the service's site models) were
    written through ``tempfile.mkstemp`` and kept its 0600: a service running as another user
    could not read them."""
    path = tmp_path / "site.model"
    write_model(path, "repeats", 1, {"counts": {}})
    assert _mode(path) == 0o644


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_bytes(b"old")
    with pytest.raises(TypeError):
        write_atomically(target, "not bytes")  # type: ignore[arg-type]
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]
    assert target.read_bytes() == b"old"


def test_a_named_temporary_is_reused(tmp_path: Path) -> None:
    target, temporary = tmp_path / "job.json", tmp_path / "job.json.tmp"
    temporary.write_bytes(b"left by a killed run")
    write_atomically(target, b"{}", temporary)
    assert [p.name for p in tmp_path.iterdir()] == ["job.json"] and target.read_bytes() == b"{}"


def test_only_the_temporaries_of_dead_writers_are_removed(tmp_path: Path) -> None:
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)
    dead = int(ended.stdout)
    stale = tmp_path / f".model.json.gz.{dead}.0123456789ab.tmp"
    suffixed = tmp_path / f".model.json.gz.{dead}.ba9876543210.tmp.json.gz"  # the service's
    older = tmp_path / f".site.json.gz.{dead}.tmp.json.gz"  # the service's, before stop 50
    live = tmp_path / f".model.json.gz.{os.getpid()}.0123456789ab.tmp"
    other = tmp_path / f".notes.{dead}.txt"  # not one of ours
    for path in (stale, suffixed, older, live, other):
        path.write_bytes(b"")
    nested = tmp_path / "sub" / f".page.md.{dead}.0123456789ab.tmp"  # extract --out's folders
    nested.parent.mkdir()
    nested.write_bytes(b"")
    assert remove_stale_temporaries(tmp_path) == 3 and nested.exists()
    assert remove_stale_temporaries(tmp_path, recursive=True) == 1 and not nested.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, other.name, "sub"])


def test_a_long_name_still_gets_a_temporary(tmp_path: Path) -> None:
    target = tmp_path / ("é" * 120 + ".json")  # 245 bytes: the name plus a suffix would not fit
    write_atomically(target, b"{}")
    assert target.read_bytes() == b"{}"


def test_a_symbolic_link_is_written_through_to_its_target(tmp_path: Path) -> None:
    """A save over a link replaced the link with a regular file and left its target as it was."""
    (tmp_path / "models").mkdir()
    target = tmp_path / "models" / "real.json"
    target.write_bytes(b"old")
    link = tmp_path / "current.json"
    link.symlink_to(Path("models") / "real.json")
    write_model(link, "repeats", 1, {"counts": {}})
    assert link.is_symlink() and os.readlink(link) == str(Path("models") / "real.json")
    assert target.read_bytes().startswith(b'{"format": "grist-model"')
    assert sorted(p.name for p in (tmp_path / "models").iterdir()) == ["real.json"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_name_that_is_not_a_regular_file_is_refused_and_kept(tmp_path: Path) -> None:
    """A FIFO (a device, as root: /dev/full) was replaced by the renamed temporary."""
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    link = tmp_path / "link.json"
    link.symlink_to(fifo)
    for name, said in ((fifo, f"{fifo} is a FIFO, not a regular file"),
                       (link, f"{link} (-> {fifo}) is a FIFO, not a regular file"),
                       (tmp_path, f"{tmp_path} is a folder, not a regular file")):
        with pytest.raises(GristError, match=re.escape(said)):
            write_atomically(name, b"{}")
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "pipe.json"]
