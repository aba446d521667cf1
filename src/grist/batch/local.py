"""The local executor: one worker process per core, each building its Extractor once, fed one
shard task at a time, watched from outside.

A worker says which page it starts and when it is done with it; a page that runs past the hard
``page_timeout`` gets its worker killed, and a worker that dies (a crash in C code, the OOM
killer) is noticed through its process sentinel. Either way the page it was on gets an error
record, written by the supervisor once the worker is dead, and a fresh worker resumes the shard
from its output file (``grist.batch.worker.resume_point``), so the page is not retried and no
other page is lost or repeated. Workers talk over one pipe each (a killed process can corrupt a
shared queue, never another worker's pipe).
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import resource
import signal
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from grist.batch.job import JobConfig, Shard
from grist.batch.sites import SiteModels, fit_group, scan_shard
from grist.batch.worker import (
    Item, ShardCounts, ShardFiles, build_extractor, error_record, finish_shard, resume_point,
    run_shard,
)
from grist.errors import GristError
from grist.limits import Limits
from grist.render.json_output import dumps

_POLL = 0.2  # seconds between watchdog checks
_MAX_CRASHES = 3  # deaths of a worker outside any page, at the same place, before giving up
_PR_SET_PDEATHSIG = 1  # prctl option: a signal for this process when its parent dies


class WorkerLost(GristError):
    """The worker extracting a page died or was killed past the hard time limit."""

    reason = "worker-lost"


@dataclass(frozen=True)
class Task:
    """``extract`` a shard (and finish it unless the job deduplicates); ``finish`` it with the
    run's duplicates as payload (line number -> the input it duplicates); ``scan`` a shard's
    hosts or ``fit`` a group of site models (payload: number, hosts, shards; ``--site-aware``)."""

    kind: str
    shard: Shard
    payload: Any = None


class _Pipe:
    """The worker's side of its pipe, also its reporter of page starts and ends."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def start(self, number: int, item: Item) -> None:
        self.conn.send(("start", number, item.head()))

    def done(self, number: int, error: str | None) -> None:
        self.conn.send(("done", number, error))


def prepare(state: dict[str, Any], config: JobConfig, out: Path) -> None:
    """Build what extraction needs once per worker: the Extractor and the site models."""
    if "extractor" not in state:
        state["extractor"] = build_extractor(config)
        state["sites"] = SiteModels(out, config) if config.site_aware else None


def run_task(task: Task, config: JobConfig, out: Path, state: dict[str, Any],
             reporter: Any = None) -> ShardCounts:
    """Run one task in this worker; ``state`` keeps what a worker builds once (the Extractor,
    the site models)."""
    limits = Limits(time_budget=config.time_budget)
    if task.kind == "extract":
        prepare(state, config, out)
        return run_shard(task.shard, config, out, state["extractor"], reporter, state["sites"])
    if task.kind == "finish":
        return finish_shard(task.shard, config, out, task.payload)
    if task.kind == "scan":
        scan_shard(task.shard, out, limits)
    else:
        fit_group(config, out, *task.payload, limits)
    return ShardCounts()


def peak_rss_mib() -> float:
    """This worker's peak resident memory in MiB (a forked worker's own high-water mark)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _tie_to_parent() -> None:
    """Die with the fork server (which exits with the supervisor): an orphaned worker must not
    go on appending to a shard that a rerun resumes. Ctrl-C is the supervisor's to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() == 1:  # the parent died before the request was made
        os._exit(1)


def worker_main(config: JobConfig, out: Path, conn: Connection) -> None:
    """A worker process: build the Extractor once, run tasks until told to stop."""
    _tie_to_parent()
    state: dict[str, Any] = {}
    pipe = _Pipe(conn)
    try:
        while (task := conn.recv()) is not None:
            try:
                if task.kind == "extract":  # built outside the task's CPU time
                    prepare(state, config, out)
                started = time.process_time()
                counts = run_task(task, config, out, state, pipe)
                conn.send(("shard", counts.to_json(), peak_rss_mib(),
                           time.process_time() - started))
            except (BrokenPipeError, EOFError):
                raise
            except GristError as exc:  # a model that cannot load, an unwritable folder
                conn.send(("failed", str(exc), peak_rss_mib()))
            except OSError as exc:  # the output's disk is full (reading errors are pages')
                conn.send(("failed", f"cannot write into {out}: {exc.strerror or exc}; make "
                           "room and rerun the same command to resume", peak_rss_mib()))
            except Exception as exc:  # noqa: BLE001 - a bug: stop the job with its description
                conn.send(("failed", f"internal error: {type(exc).__name__}: {exc}",
                           peak_rss_mib()))
    except (BrokenPipeError, EOFError):  # the supervisor is gone: stop before the next page
        os._exit(1)


def _context() -> multiprocessing.context.BaseContext:
    """Fork server where there is one (workers start in milliseconds from a process that has
    grist imported, and never inherit the supervisor's threads), else spawn."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["grist.batch.worker"])
        return context
    return multiprocessing.get_context("spawn")


@dataclass
class _Worker:
    process: Any
    conn: Connection
    task: Task | None = None
    page: tuple[int, dict[str, Any], float] | None = None  # number, head, started
    peak_rss_mib: float = 0.0
    timed_out: bool = False  # killed by the watchdog (not by the OOM killer or a crash)


@dataclass
class RunReport:
    """What the executor did: each shard's counts, peak RSS per worker, restarts, and the CPU
    seconds workers spent on tasks (model loading and start-up left out)."""

    counts: dict[str, ShardCounts] = field(default_factory=dict)
    peak_rss_mib: list[float] = field(default_factory=list)
    restarts: int = 0
    task_cpu_seconds: float = 0.0
    shard_rss_mib: dict[str, float] = field(default_factory=dict)


class LocalExecutor:
    """Runs tasks on ``jobs`` worker processes; ``on_page(error_reason)`` is called per page."""

    def __init__(self, config: JobConfig, out: Path, jobs: int,
                 on_page: Callable[[str | None], None] | None = None) -> None:
        self.config, self.out, self.jobs = config, out, max(1, jobs)
        self.on_page = on_page or (lambda reason: None)
        self.context = _context()
        self.crashes: dict[tuple[str, str, int], int] = {}

    def _spawn(self) -> _Worker:
        ours, theirs = self.context.Pipe()
        process = self.context.Process(target=worker_main, args=(self.config, self.out, theirs),
                                       daemon=True)
        process.start()
        theirs.close()
        return _Worker(process, ours)

    def run(self, tasks: Iterable[Task]) -> RunReport:
        """Run every task; returns when all are done (or raises the first task failure)."""
        queue = deque(tasks)
        report = RunReport()
        workers = [self._spawn() for _ in range(min(self.jobs, len(queue)))]
        try:
            while queue or any(w.task for w in workers):
                for worker in workers:
                    if worker.task is None and queue:
                        worker.task = queue.popleft()
                        worker.conn.send(worker.task)
                busy = [w for w in workers if w.task]
                ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy], _POLL)
                for worker in busy:
                    if worker.conn in ready:
                        self._receive(worker, report)
                for index, worker in enumerate(workers):
                    if worker.task and self._lost(worker):
                        unfinished = self._bury(worker, report)
                        if unfinished is not None:
                            queue.appendleft(unfinished)
                        workers[index] = self._spawn()
        finally:
            for worker in workers:
                self._stop(worker, report)
        return report

    def _receive(self, worker: _Worker, report: RunReport) -> None:
        while worker.conn.poll():
            try:
                message = worker.conn.recv()
            except (EOFError, OSError):
                return
            kind = message[0]
            if kind == "start":
                worker.page = (message[1], message[2], time.monotonic())
            elif kind == "done":
                worker.page = None
                self.on_page(message[2])
            else:
                assert worker.task is not None
                worker.peak_rss_mib = max(worker.peak_rss_mib, message[2])
                if kind == "failed":
                    raise GristError(f"{worker.task.shard.id}: {message[1]}")
                report.counts[worker.task.shard.id] = ShardCounts.from_json(message[1])
                report.task_cpu_seconds += message[3]
                report.shard_rss_mib[worker.task.shard.id] = message[2]
                worker.task, worker.page = None, None

    def _lost(self, worker: _Worker) -> bool:
        """Whether the worker died or hangs on a page past the hard limit (then it is killed)."""
        if not worker.process.is_alive():
            return True
        if worker.page and time.monotonic() - worker.page[2] > self.config.page_timeout:
            worker.process.kill()
            worker.timed_out = True
            return True
        return False

    def _bury(self, worker: _Worker, report: RunReport) -> Task | None:
        """Record the lost page, then hand the task back to be resumed by a new worker (None
        when the worker had finished its task before it died)."""
        worker.process.join()
        self._receive(worker, report)  # pages it finished before it died
        task = worker.task
        report.restarts += 1
        if task is None:
            worker.conn.close()
            return None
        files = ShardFiles(self.out, task.shard.id, self.config)
        written, _ = resume_point(files.part)
        if task.kind == "extract" and worker.page is not None and worker.page[0] == written:
            code = worker.process.exitcode
            why = (f"the page ran past the hard time limit of {self.config.page_timeout:g} s; "
                   "its worker was killed and replaced") if worker.timed_out else \
                f"the worker died on this page (exit code {code}) and was replaced"
            with open(files.part, "a", encoding="utf-8") as handle:
                handle.write(dumps(error_record(worker.page[1], WorkerLost(why))) + "\n")
            self.on_page(WorkerLost.reason)
        else:  # it died outside any page: give up on a task that keeps killing its worker
            place = (task.kind, task.shard.id, written)
            self.crashes[place] = self.crashes.get(place, 0) + 1
            if self.crashes[place] >= _MAX_CRASHES:
                raise GristError(f"{task.shard.id}: the worker died {_MAX_CRASHES} times during "
                                 f"its {task.kind} task (after page {written})")
        worker.conn.close()
        return task

    def _stop(self, worker: _Worker, report: RunReport) -> None:
        if worker.process.is_alive():
            with contextlib.suppress(OSError):  # it may be dying already
                worker.conn.send(None)
            worker.process.join(timeout=5)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
        report.peak_rss_mib.append(worker.peak_rss_mib)
