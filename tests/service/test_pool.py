"""The worker pool: hard deadlines, one slow page never blocks the others, crashed or killed
workers (busy or idle) are replaced, workers are recycled after their job quota."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest
from conftest import ARTICLE

from grist.service.jobs import JobFailed
from grist.service.pool import PoolTimeout, WorkerCrashed, WorkerPool

SLOW = "<html><body>" + "".join(f"<div class=c{i % 7}><p>word {i} and more words, with text."
                                f"</p><a href=/x{i}>link {i}</a></div>" for i in range(12000))


def job(html: str, method: str = "justext", seconds: float = 30.0) -> tuple:
    return ("extract", {"content": html, "method": method, "format": "text", "options": {},
                        "seconds": seconds})


async def _with_pool(size: int, body, max_jobs: int = 0):
    pool = WorkerPool(size, max_jobs)
    await pool.start()
    try:
        return await body(pool)
    finally:
        await pool.close()


def test_slow_page_is_stopped_at_the_deadline_and_does_not_block_others() -> None:
    async def body(pool: WorkerPool):
        started = time.monotonic()
        slow = asyncio.create_task(pool.run(job(SLOW, "auto"), time.monotonic() + 0.5))
        await asyncio.sleep(0.05)
        fast = [await pool.run(job(ARTICLE), time.monotonic() + 10) for _ in range(3)]
        fast_done = time.monotonic() - started
        with pytest.raises(PoolTimeout, match="still running at the deadline; its worker was stopped"):
            await slow
        stopped = time.monotonic() - started
        after = await pool.run(job(ARTICLE), time.monotonic() + 10)  # the pool is whole again
        return fast, fast_done, stopped, after, pool.restarts

    fast, fast_done, stopped, after, restarts = asyncio.run(_with_pool(2, body))
    assert all(media.startswith("text/plain") and b"the mill" in text for media, text, _ in fast)
    assert fast_done < 0.5 <= stopped < 3.0
    assert b"the mill" in after[1] and restarts == 1


def test_library_time_budget_is_a_job_failure_with_504() -> None:
    async def body(pool: WorkerPool):
        with pytest.raises(JobFailed) as caught:
            await pool.run(job(SLOW, "auto", seconds=0.001), time.monotonic() + 20)
        return caught.value, pool.restarts

    failure, restarts = asyncio.run(_with_pool(1, body))
    assert failure.status == 504 and failure.reason == "timeout"
    assert "exceeded the time budget" in failure.message and restarts == 0


def test_a_worker_that_dies_is_reported_and_replaced() -> None:
    async def body(pool: WorkerPool):
        running = asyncio.create_task(pool.run(job(SLOW, "auto"), time.monotonic() + 20))
        await asyncio.sleep(0.5)
        for worker in pool._all:
            os.kill(worker.process.pid, signal.SIGKILL)
        with pytest.raises(WorkerCrashed, match="stopped unexpectedly"):
            await running
        return await pool.run(job(ARTICLE), time.monotonic() + 20), pool.restarts

    answer, restarts = asyncio.run(_with_pool(1, body))
    assert b"the mill" in answer[1] and restarts == 1


def test_a_worker_killed_while_idle_is_replaced_and_the_job_runs() -> None:
    async def body(pool: WorkerPool):
        idle = pool._all[0].process
        os.kill(idle.pid, signal.SIGKILL)
        idle.join(5)
        answer = await pool.run(job(ARTICLE), time.monotonic() + 20)
        return answer, pool.restarts, pool.live

    answer, restarts, live = asyncio.run(_with_pool(1, body))
    assert b"the mill" in answer[1] and restarts == 1 and live == 1


def test_workers_are_recycled_after_their_job_quota() -> None:
    async def body(pool: WorkerPool):
        pids = set()
        for _ in range(5):
            await pool.run(job(ARTICLE), time.monotonic() + 20)
            pids |= {w.process.pid for w in pool._all}
        return pids, pool.restarts

    pids, restarts = asyncio.run(_with_pool(1, body, max_jobs=2))
    assert restarts == 2 and len(pids) == 3
