"""kill -9 of the whole process group at random moments, then the same command again: the job
finishes with every input record in the output exactly once, byte for byte what an uninterrupted
run writes."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from warc_files import page_html, response, write_warc

TESTS = Path(__file__).parent


def command(inputs: list[str], out: Path) -> list[str]:
    return [sys.executable, "-m", "grist", "batch", *inputs, "--out", str(out), "-j", "2",
            "--plugin", "batch_plugin", "--method", "fragile", "--files-per-shard", "40",
            "--output-format", "jsonl.gz", "--dedup", "--quiet"]


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(TESTS), os.environ.get("PYTHONPATH", "")])}


def group_alive(group: int) -> bool:
    """Whether any process of the group is still running (zombies waiting to be reaped by a
    parent that does not reap are not running)."""
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            return True
    return False


def final_outputs(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.glob("shard-*.jsonl.gz"))}


def test_kill_at_random_points_then_resume(tmp_path):
    inputs = []
    for number in range(4):
        path = tmp_path / f"crawl-{number}.warc.gz"
        write_warc(path, [response(n, page_html(n, f"SLOW file {number} " * (n % 7 + 1)))
                          for n in range(200)])
        inputs.append(str(path))
    folder = tmp_path / "pages"
    folder.mkdir()
    for n in range(80):
        (folder / f"{n:03d}.html").write_text(page_html(1000 + n, "SLOW"))
    inputs.append(str(folder))
    pages = 4 * 200 + 80

    clean = subprocess.run(command(inputs, tmp_path / "clean"), env=env(), capture_output=True,
                           text=True, timeout=300)
    assert f"grist batch: {pages} pages, {pages} results, 0 errors" in clean.stderr

    rng = random.Random(16)
    out = tmp_path / "killed"
    interrupted = 0
    for attempt in range(3):
        process = subprocess.Popen(command(inputs, out), env=env(), start_new_session=True,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(1.4, 3.4))
        if attempt == 0:  # the supervisor alone: its workers must not outlive it
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
            time.sleep(1.0)
            assert not group_alive(process.pid)
        else:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        interrupted += any(out.glob("*.part"))
    assert interrupted >= 2  # the kills landed while shards were half written
    resumed = subprocess.run(command(inputs, out), env=env(), capture_output=True, text=True,
                             timeout=300)
    assert f"grist batch: {pages} pages, {pages} results, 0 errors" in resumed.stderr
    assert final_outputs(out) == final_outputs(tmp_path / "clean")
    assert not list(out.glob("*.part")) and not list(out.glob("*.tmp"))
