"""Run systems over datasets, each in its own worker process, and collect their outputs.

Up to ``jobs`` workers run at once (one per system), so wall time shrinks with cores while the
speed and memory of each system stay those of a single process. A worker that prints nothing for
``stall`` seconds (a page stuck in C code the per-page alarm cannot interrupt) is killed and
restarted after that page, which then counts as an error.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from grist.progress import note, progress

T = TypeVar("T")


@dataclass
class Output:
    """One system's extraction of one page."""

    text: str
    seconds: float
    error: str | None = None
    cpu: float | None = None
    default: str | None = None  # a grist method's default text (``text`` has the convention)


@dataclass
class SystemRun:
    """Everything one system produced: outputs keyed by (dataset, page id), and its peak RSS."""

    system: str
    outputs: dict[tuple[str, str], Output] = field(default_factory=dict)
    peak_rss_mib: float = 0.0
    restarts: int = 0


def _reader(stream, lines: queue.Queue) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


def _worker_command(system: str, paths: list[str], limit: int | None, skip: int, timeout: float):
    command = [sys.executable, "-m", "grist.evaluate.worker", system, *paths]
    command += ["--skip", str(skip), "--timeout", str(timeout)]
    if limit is not None:
        command += ["--limit", str(limit)]
    return command


def run_system(
    system: str,
    paths: list[str],
    total: int,
    limit: int | None = None,
    timeout: float = 20.0,
    stall: float = 120.0,
    position: int = 0,
) -> SystemRun:
    """Run one system over the datasets in a worker process (restarted past stuck pages)."""
    run = SystemRun(system)
    received = 0
    started = time.monotonic()
    bar = progress(total=total, desc=f"{system:<22}", position=position, leave=False)
    while received < total:
        process = subprocess.Popen(
            _worker_command(system, paths, limit, received, timeout),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
        )
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=_reader, args=(process.stdout, lines), daemon=True).start()
        stalled = False
        while True:
            try:
                line = lines.get(timeout=stall)
            except queue.Empty:
                stalled = True
                break
            if line is None:
                break
            record = json.loads(line)
            if "peak_rss_mib" in record:
                run.peak_rss_mib = max(run.peak_rss_mib, record["peak_rss_mib"])
                continue
            key = (record["dataset"], record["id"])
            run.outputs[key] = Output(
                record["text"], record["seconds"], record.get("error"), record.get("cpu"),
                record.get("default"),
            )
            received += 1
            bar.update(1)
        process.kill()
        process.wait()
        if received >= total:
            break
        # The worker stalled or died on page number ``received``: skip that page and go on.
        run.restarts += 1
        received += 1
        bar.update(1)
        if not stalled and run.restarts > 3 and not run.outputs:
            break  # the system cannot start at all; its pages count as errors
    bar.close()
    errors = total - sum(1 for output in run.outputs.values() if output.error is None)
    note(f"grist bench: {system} done in {time.monotonic() - started:.0f} s: {total} pages, "
         f"{errors} failed, worker restarts: {run.restarts}")
    return run


def run_systems(
    systems: list[str],
    paths: list[str],
    total: int,
    finish: Callable[[SystemRun], T],
    limit: int | None = None,
    jobs: int = 2,
    timeout: float = 20.0,
) -> dict[str, T]:
    """Run every system (``jobs`` at a time) and apply ``finish`` to each run as it completes.

    ``finish`` (e.g. scoring) runs while other workers go on, so the raw outputs of a system
    can be dropped as soon as it is scored.
    """

    # Scoring runs on its own thread so a worker slot is free again as soon as a system ends.
    with ThreadPoolExecutor(max_workers=1) as scorer:

        def task(position: int, name: str) -> Future:
            run = run_system(name, paths, total, limit, timeout, position=position)
            return scorer.submit(finish, run)

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = {
                name: pool.submit(task, i % max(1, jobs), name) for i, name in enumerate(systems)
            }
            scored = {name: future.result() for name, future in futures.items()}
        return {name: future.result() for name, future in scored.items()}
