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


def test_site_aware_job_killed_in_either_pass_resumes_to_the_same_output(tmp_path):
    from warc_files import http_response, warc_record

    nav = "Home page of the Daily Example with Sport and Weather"

    def record(host: str, n: int) -> bytes:
        html = (f"<html><body><div>{nav}</div><h1>Story {n}</h1><p>SLOW story {n} from {host} "
                "tells something new in many words.</p></body></html>")
        return warc_record("response", n, http_response(html.encode()),
                           url=f"https://{host}/story/{n}")

    inputs = []
    for number, host in enumerate(("a.example", "b.example", "c.example")):
        path = tmp_path / f"site-{number}.warc.gz"
        write_warc(path, [record(host, n) for n in range(300)])
        inputs.append(str(path))

    def site_command(out: Path) -> list[str]:
        return [sys.executable, "-m", "grist", "batch", *inputs, "--out", str(out), "-j", "2",
                "--plugin", "batch_plugin", "--method", "fragile", "--site-aware",
                "--site-model", "standin_model:RepeatModel", "--site-min-pages", "5",
                "--output-format", "jsonl.gz", "--quiet"]

    clean = subprocess.run(site_command(tmp_path / "clean"), env=env(), capture_output=True,
                           text=True, timeout=300)
    assert "grist batch: 900 pages, 900 results, 0 errors" in clean.stderr, clean.stderr
    rng = random.Random(21)
    out = tmp_path / "killed"
    landed = []
    for _ in range(3):  # kills land in the fitting pass or the extraction pass
        process = subprocess.Popen(site_command(out), env=env(), start_new_session=True,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.8, 2.5))
        if process.poll() is None:
            landed.append("extracting" if (out / "sites" / "index.json").exists() else "fitting")
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    assert len(landed) >= 2, landed  # the job was still running when killed
    resumed = subprocess.run(site_command(out), env=env(), capture_output=True, text=True,
                             timeout=300)
    assert "grist batch: 900 pages, 900 results, 0 errors" in resumed.stderr, resumed.stderr
    assert final_outputs(out) == final_outputs(tmp_path / "clean")
    assert (out / "sites" / "index.json").read_text() == \
        (tmp_path / "clean" / "sites" / "index.json").read_text()
    assert not list(out.glob("*.part")) and not list(out.rglob("*.tmp"))
