"""kill -9 of the real ``grist stream`` process at arbitrary moments, then a rerun: nothing
lost, nothing processed twice, state counters and the URL Tree consistent with the output."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from stream_server import Site, site  # noqa: F401 - the fixture

from grist.stream import UrlTree
from grist.stream.store import SqliteStore

ARTICLES = 30


def command(site: Site, tmp_path: Path, out: str = "out.jsonl") -> list[str]:
    return [sys.executable, "-m", "grist", "stream", "--feeds", str(tmp_path / "feeds.txt"),
            "--state", str(tmp_path / "state.db"), "--out", str(tmp_path / out),
            "--once", "--quiet", "--host-delay", "0", "--host-concurrency", "3",
            "--timeout", "5"]


def lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def kill_after(cmd: list[str], written: Callable[[], int], at_least: int, extra: float) -> int:
    """Start the pipeline, SIGKILL it ``extra`` seconds after ``written()`` (records in the
    output) reaches ``at_least``; returns the exit code (-9 when it was killed, 0 when it
    finished first)."""
    process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while process.poll() is None and written() < at_least and time.monotonic() < deadline:
        time.sleep(0.005)
    time.sleep(extra)
    if process.poll() is None:
        os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    return process.returncode


def test_kill_9_at_any_moment_loses_nothing_and_duplicates_nothing(
        site: Site, tmp_path: Path) -> None:
    b = site.base
    site.items["a.xml"] = [(f"Story {n}", f"{b}/articles/{n}.html", f"d{n}")
                           for n in range(1, ARTICLES + 1)]
    site.items["b.xml"] = [(f"Again {n}", f"{b}/articles/{n}.html?utm_source=b", "x")
                           for n in range(1, ARTICLES + 1, 3)]
    (tmp_path / "feeds.txt").write_text(f"{b}/feeds/a.xml\n{b}/feeds/b.xml\n")
    cmd, out = command(site, tmp_path), tmp_path / "out.jsonl"
    rng = random.Random(11)
    kills = 0
    for target in (3, 9, 16, 22):
        if kill_after(cmd, lambda: lines(out), target, rng.uniform(0, 0.05)) == -signal.SIGKILL:
            kills += 1
    assert kills >= 3  # the pipeline really was killed mid-run
    finished = subprocess.run(cmd, capture_output=True, timeout=120)
    assert finished.returncode == 0, finished.stderr.decode()

    records = [json.loads(line) for line in out.read_text().splitlines()]
    keys = [r["url_key"] for r in records]
    assert all("error" not in r for r in records)
    assert len(keys) == len(set(keys)) == ARTICLES  # every article once, none twice
    with sqlite3.connect(tmp_path / "state.db") as db:
        counters = dict(db.execute("SELECT name, value FROM counters"))
        statuses = dict(db.execute("SELECT status, COUNT(*) FROM items GROUP BY status"))
        url_keys = {k for (k,) in db.execute("SELECT key FROM url_keys")}
        docs = db.execute("SELECT COUNT(*) FROM docs").fetchone()[0]
    assert statuses == {"done": ARTICLES, "duplicate": counters["duplicates"]}
    assert counters["extracted"] == ARTICLES == docs and url_keys == set(keys)
    assert counters["duplicates"] == len(site.items["b.xml"])

    # the tree rebuilt from the state equals one built from the output's blocks
    store = SqliteStore(tmp_path / "state.db", hash_name="xxh3")
    restored = UrlTree().restore(store.docs())
    store.close()
    rebuilt = UrlTree()
    for record in records:
        hashes = rebuilt.hashes([type("B", (), {"text": bl["text"]}) for bl in record["blocks"]])
        rebuilt.insert(rebuilt.record(record["url_key"], record["url"], hashes, None))
    for mine, theirs in zip(restored.forest_.domains.values(),
                            rebuilt.forest_.domains.values(), strict=True):
        assert mine.root.docs == theirs.root.docs == ARTICLES
        probe = np.concatenate([r.hashes for r in theirs.docs.values()])
        assert (mine.root.counts.get(probe) == theirs.root.counts.get(probe)).all()


def test_kill_9_around_a_polls_error_records_writes_each_once(site: Site, tmp_path: Path) -> None:
    """Items that give no page get their error records while the feed's poll is recorded: a kill
    at any moment there, then reruns, leaves each record once and every article once."""
    b = site.base
    lost = [(f"Lost {n}", "", f"no link {n}") for n in range(1, 4)]
    site.items["a.xml"] = lost + [(f"Story {n}", f"{b}/articles/{n}.html", f"d{n}")
                                  for n in range(1, 11)]
    (tmp_path / "feeds.txt").write_text(f"{b}/feeds/a.xml\n")
    cmd, out = command(site, tmp_path), tmp_path / "out.jsonl"
    rng = random.Random(5)
    kills = sum(kill_after(cmd, lambda: lines(out), target, rng.uniform(0, 0.02))
                == -signal.SIGKILL for target in (1, 2, 3, 5))
    assert kills >= 2
    subprocess.run(cmd, capture_output=True, timeout=120)  # (exit 1 if its run wrote errors)
    finished = subprocess.run(cmd, capture_output=True, timeout=120)
    assert finished.returncode == 0, finished.stderr.decode()  # nothing left to fail
    records = [json.loads(line) for line in out.read_text().splitlines()]
    errors = sorted(r["item"] for r in records if "error" in r)
    pages = sorted(r["url"] for r in records if "error" not in r)
    assert errors == [1, 2, 3]  # each linkless item told once
    assert pages == sorted(f"{b}/articles/{n}.html" for n in range(1, 11))


def test_kill_9_with_a_folder_output_leaves_each_page_once_and_no_half_file(
        site: Site, tmp_path: Path) -> None:
    """``--out DIR`` writes a file per page through a temporary renamed into place: after kills
    at any moment and a rerun, every article is one whole file, and the temporaries a kill left
    in a domain's folder are gone once a later run writes there."""
    b = site.base
    site.items["a.xml"] = [(f"Story {n}", f"{b}/articles/{n}.html", f"d{n}")
                           for n in range(1, ARTICLES + 1)]
    (tmp_path / "feeds.txt").write_text(f"{b}/feeds/a.xml\n")
    cmd, out = command(site, tmp_path, "pages"), tmp_path / "pages"

    def pages() -> int:
        return sum(1 for _ in out.glob("*/*.json")) if out.exists() else 0

    rng = random.Random(5)
    kills = sum(kill_after(cmd, pages, target, rng.uniform(0, 0.05)) == -signal.SIGKILL
                for target in (4, 11, 19))
    assert kills >= 2
    finished = subprocess.run(cmd, capture_output=True, timeout=120)
    assert finished.returncode == 0, finished.stderr.decode()
    records = [json.loads(path.read_text()) for path in out.glob("*/*.json")]
    keys = [r["url_key"] for r in records]
    assert len(keys) == len(set(keys)) == ARTICLES and all("error" not in r for r in records)
    assert not [p for p in out.rglob("*") if p.name.endswith(".tmp")]


def test_the_continuous_stream_polls_again_and_stops_cleanly_on_sigterm(
        site: Site, tmp_path: Path) -> None:
    b = site.base
    site.items["a.xml"] = [(f"Story {n}", f"{b}/articles/{n}.html", "x") for n in (1, 2)]
    (tmp_path / "feeds.txt").write_text(f"{b}/feeds/a.xml every=1s\n")
    cmd = [c for c in command(site, tmp_path) if c not in ("--once", "--quiet")]
    out = tmp_path / "out.jsonl"
    process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while lines(out) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        site.items["a.xml"].append(("Story 3", f"{b}/articles/3.html", "x"))  # a new item
        while lines(out) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert lines(out) == 3
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0
    finally:
        if process.poll() is None:
            process.kill()
    assert "this run: feeds polled" in process.stderr.read().decode()
    polls = [path for _, path, _ in site.requests if path == "/feeds/a.xml"]
    assert len(polls) >= 2
