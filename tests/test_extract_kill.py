"""kill -9 of ``grist extract --out`` at random moments: every file it leaves is whole, and the
same command again writes every page's file once (no ``-2`` copies, no temporaries left), byte
for byte what an uninterrupted run writes."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path


def command(pages: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "grist", "extract", "--method", "justext", "--format", "json",
            "--out", str(out), "--quiet", str(pages)]


def files(out: Path) -> dict[str, bytes]:
    """Every file under ``out`` by its path, hidden ones included."""
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def test_kill_at_random_points_then_rerun(tmp_path: Path) -> None:
    pages = tmp_path / "pages"
    for n in range(240):
        folder = pages / f"part{n % 3}"
        folder.mkdir(parents=True, exist_ok=True)
        words = " ".join(f"word{n}-{k}" for k in range(40))
        body = "".join(f"<p>Paragraph {k} of page {n} says {words}.</p>" for k in range(60))
        (folder / f"{n:03d}.html").write_text(f"<html><body>{body}</body></html>")
    subprocess.run(command(pages, tmp_path / "clean"), check=True, timeout=600)
    clean = files(tmp_path / "clean")
    assert len(clean) == 240

    rng = random.Random(54)
    out = tmp_path / "killed"
    cut_short = 0
    for _ in range(3):
        process = subprocess.Popen(command(pages, out), start_new_session=True)
        deadline = time.monotonic() + 60
        while len(list(out.rglob("*.json"))) < rng.randint(5, 200) and process.poll() is None:
            assert time.monotonic() < deadline
            time.sleep(0.005)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        left = files(out)
        visible = {name: data for name, data in left.items() if not Path(name).name.startswith(".")}
        assert all(clean[name] == data for name, data in visible.items())  # each file whole
        cut_short += len(visible) < len(clean)
    assert cut_short >= 1  # the kills landed before the run was done
    subprocess.run(command(pages, out), check=True, timeout=600)
    assert files(out) == clean
