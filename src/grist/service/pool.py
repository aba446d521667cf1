"""A pool of extraction processes with hard deadlines, driven from the event loop.

Each worker is a process started with ``spawn`` (no state inherited from the server's threads)
that runs jobs one at a time (``grist.service.jobs.run_job``) and answers on its pipe. A request
takes an idle worker, or waits for one until its deadline; a worker still busy at the deadline is
killed and replaced, so a page that hangs costs its own request a 504 and never a slot for good.
Workers are also replaced after ``max_jobs`` jobs and when they die (one found dead while idle
before it is given a job), which keeps a long-running service's memory flat.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from grist.service.jobs import JobFailed, worker_main

_CONTEXT = multiprocessing.get_context("spawn")


class PoolTimeout(Exception):
    """The job did not finish before its deadline (the message says where the time went)."""


class WorkerCrashed(Exception):
    """The worker process died while running the job (out of memory, a crash in C code)."""


@dataclass
class _Worker:
    process: Any
    conn: Connection
    jobs: int = 0


class WorkerPool:
    """``await pool.run(job, deadline)`` runs ``job`` in a worker process before ``deadline``
    (a ``time.monotonic()`` value) and returns its result, or raises JobFailed (the job's own
    error), PoolTimeout or WorkerCrashed."""

    def __init__(self, size: int, max_jobs: int = 0, warm: tuple[str, ...] = ()) -> None:
        self.size = size
        self.max_jobs = max_jobs
        self.warm = warm
        self.restarts = 0
        self._idle: asyncio.Queue[_Worker] = asyncio.Queue()
        self._all: list[_Worker] = []
        self._io = ThreadPoolExecutor(max_workers=size, thread_name_prefix="grist-pool")

    def _spawn(self) -> _Worker:
        parent, child = _CONTEXT.Pipe()
        process = _CONTEXT.Process(target=worker_main, args=(child, self.warm), daemon=True,
                                   name="grist-worker")
        process.start()
        child.close()
        worker = _Worker(process, parent)
        self._all.append(worker)
        return worker

    async def start(self) -> None:
        """Start every worker and wait until each has loaded its default resources."""
        loop = asyncio.get_running_loop()
        workers = [self._spawn() for _ in range(self.size)]
        for worker in workers:
            await loop.run_in_executor(self._io, worker.conn.recv)  # the "ready" message
            self._idle.put_nowait(worker)

    @property
    def busy(self) -> int:
        """Workers running a job now."""
        return self.size - self._idle.qsize()

    @property
    def live(self) -> int:
        """Worker processes alive now (one killed while idle is replaced when next taken)."""
        return sum(worker.process.is_alive() for worker in self._all)

    def _retire(self, worker: _Worker) -> None:
        """Kill ``worker`` (if alive) and start its replacement, which becomes idle at once."""
        self._all.remove(worker)
        worker.process.kill()
        worker.conn.close()
        worker.process.join(timeout=5)
        self.restarts += 1
        self._idle.put_nowait(self._spawn())

    @staticmethod
    def _roundtrip(worker: _Worker, job: tuple) -> tuple:
        worker.conn.send(job)
        while True:
            answer = worker.conn.recv()
            if answer != ("ready",):  # a replacement's first message precedes its answers
                return answer

    def _release(self, worker: _Worker) -> None:
        """Return a worker that finished a job to the idle queue, or replace it when it is due."""
        worker.jobs += 1
        if self.max_jobs and worker.jobs >= self.max_jobs:
            self._retire(worker)
        else:
            self._idle.put_nowait(worker)

    def _abandoned(self, worker: _Worker, future: asyncio.Future) -> None:
        """The request went away (client disconnected) while ``worker`` ran its job: release the
        worker when the job ends, or replace it if the job broke it."""
        if future.cancelled() or future.exception() is not None:
            self._retire(worker)
        else:
            self._release(worker)

    async def _take(self, deadline: float) -> _Worker:
        """An idle worker, waited for until ``deadline``. One that died while idle (killed, out
        of memory) is replaced and the next taken: the job never reached it, so trying another
        cannot repeat a page that kills workers."""
        while True:
            try:
                worker = await asyncio.wait_for(self._idle.get(),
                                                max(deadline - time.monotonic(), 0))
            except TimeoutError:
                raise PoolTimeout("no extraction worker became free in time (the service is "
                                  "busy)") from None
            if worker.process.is_alive():
                return worker
            self._retire(worker)

    async def run(self, job: tuple, deadline: float) -> Any:
        loop = asyncio.get_running_loop()
        worker = await self._take(deadline)
        future = loop.run_in_executor(self._io, self._roundtrip, worker, job)
        try:
            answer = await asyncio.wait_for(asyncio.shield(future),
                                            max(deadline - time.monotonic(), 0))
        except TimeoutError:
            future.add_done_callback(lambda f: f.exception())  # the killed pipe's EOFError
            self._retire(worker)
            raise PoolTimeout("the extraction was still running at the deadline; its worker "
                              "was stopped") from None
        except asyncio.CancelledError:
            future.add_done_callback(lambda f: self._abandoned(worker, f))
            raise
        except (EOFError, OSError):
            self._retire(worker)
            raise WorkerCrashed("the worker extracting this page stopped unexpectedly") from None
        self._release(worker)
        status, payload = answer
        if status == "error":
            raise JobFailed(*payload)
        return payload

    async def close(self) -> None:
        for worker in list(self._all):
            worker.process.kill()
            worker.conn.close()
        for worker in self._all:
            worker.process.join(timeout=5)
        self._all.clear()
        self._io.shutdown(wait=False, cancel_futures=True)
