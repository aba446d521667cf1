"""The Ray executor: one Ray task per shard task, each running the local executor with a single
watched worker process, so a shard gets the same worker code, the same outside time limit and
the same files as on one machine (inputs and ``--out`` on storage every node sees).

Joins the cluster at ``address`` (or ``RAY_ADDRESS``), reuses a Ray already initialised by the
caller, or starts a local Ray with ``jobs`` CPUs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from grist.batch.job import JobConfig
from grist.batch.local import LocalExecutor, RunReport, Task
from grist.batch.worker import ShardCounts
from grist.optional import require


def _run_task(config: JobConfig, out: str, task: Task) -> tuple[str, float, int, float]:
    """One shard task on a Ray node: the local executor with one worker process."""
    report = LocalExecutor(config, Path(out), 1).run([task])
    counts = report.counts[task.shard.id]
    return (counts.to_json(), max(report.peak_rss_mib, default=0.0), report.restarts,
            report.task_cpu_seconds)


class RayExecutor:
    """Runs tasks as Ray tasks (one CPU each); ``on_page`` hears each finished shard's pages."""

    def __init__(self, config: JobConfig, out: Path, jobs: int,
                 on_page: Callable[[str | None], None] | None = None,
                 address: str | None = None) -> None:
        self.ray = require("ray", "ray", "the Ray executor")
        self.config, self.out, self.jobs = config, out.resolve(), jobs
        self.on_page = on_page or (lambda reason: None)
        if not self.ray.is_initialized():
            if address or os.environ.get("RAY_ADDRESS"):
                self.ray.init(address=address, log_to_driver=False)
            else:
                self.ray.init(num_cpus=jobs, include_dashboard=False, log_to_driver=False)
        self.remote: Any = self.ray.remote(num_cpus=1, max_retries=3)(_run_task)

    def run(self, tasks: Iterable[Task]) -> RunReport:
        """Submit every task and wait for them, reporting each shard's pages as it ends."""
        report = RunReport()
        pending = {self.remote.remote(self.config, str(self.out), task): task for task in tasks}
        while pending:
            ready, _ = self.ray.wait(list(pending), num_returns=1)
            task = pending.pop(ready[0])
            counts_json, peak, restarts, cpu = self.ray.get(ready[0])
            counts = ShardCounts.from_json(counts_json)
            report.counts[task.shard.id] = counts
            report.peak_rss_mib.append(peak)
            report.restarts += restarts
            report.task_cpu_seconds += cpu
            report.shard_rss_mib[task.shard.id] = peak
            if task.kind == "extract":
                for _ in range(counts.pages):
                    self.on_page(None)
        return report
