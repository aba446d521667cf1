"""A whole batch job: plan, (fit site models,) extract every shard, (deduplicate across the
run,) finish the shards, and add up what happened — on the local executor or on Ray."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from grist.batch.cores import default_jobs
from grist.batch.job import JobConfig, Plan, a_few, open_job, plan, write_atomic
from grist.batch.local import LocalExecutor, RunReport, Task
from grist.batch.worker import NOT_A_PAGE, ShardCounts, ShardFiles, check_config
from grist.errors import GristError
from grist.io.sinks import Summary, counted
from grist.io.sources import Source

SUMMARY_FILE = "summary.json"


@dataclass
class BatchOptions:
    """Where and how to run: the executor, its parallelism, the shard size, Ray's address."""

    jobs: int = field(default_factory=default_jobs)
    executor: str = "local"
    files_per_shard: int = 500
    ray_address: str | None = None


def make_executor(job: Plan, out: Path, options: BatchOptions,
                  on_page: Callable[[str | None], None]) -> LocalExecutor:
    """The executor the options name (Ray's shares the local one's interface)."""
    if options.executor == "ray":
        from grist.batch.ray_executor import RayExecutor

        return RayExecutor(job.config, out, options.jobs, on_page, options.ray_address)
    if options.executor != "local":
        raise GristError(f"unknown executor {options.executor!r}; choose local or ray")
    return LocalExecutor(job.config, out, options.jobs, on_page)


def run_job(inputs: Sequence[str | Source], config: JobConfig, out: Path, options: BatchOptions,
            summary: Summary, on_page: Callable[[str | None], None] | None = None) -> RunReport:
    """Run (or resume) the job; fills ``summary`` with the counts of every shard. The options
    are checked before the job folder is written (a typo must not claim it)."""
    check_config(config)
    found = plan(inputs, config, options.files_per_shard)
    with open_job(out, found) as job:
        _note_left_out(found, job, summary)
        _redo_changed(job, out, summary)
        executor = make_executor(job, out, options, on_page or _ignore)
        if config.site_aware:
            from grist.batch.sites import fit_site_models

            fit_site_models(job, out, executor)
        report = executor.run(Task("extract", s) for s in job.shards
                              if not ShardFiles(out, s.id, config).done.exists())
        if config.dedup:
            from grist.batch.dedup import find_duplicates

            duplicates = find_duplicates(job, out)
            finished = executor.run(Task("finish", s, duplicates.get(s.id, {}))
                                    for s in job.shards)
            report.counts.update(finished.counts)
        add_up(job, out, summary)
        write_summary(out, summary, report)
    return report


def _note_left_out(found: Plan, job: Plan, summary: Summary) -> None:
    """Name the inputs found now that the resumed job was planned without (files added to its
    folders since): they are not extracted, so that every planned page is written once."""
    planned = set(job.inputs())
    left_out = [name for name in found.inputs() if name not in planned]
    if left_out:
        summary.notes.append(f"{counted(len(left_out), 'input')} left out, found since the "
                             f"job was planned ({a_few(left_out)}): extract with another --out")


def _redo_changed(job: Plan, out: Path, summary: Summary) -> None:
    """Finished shards whose output was cut or removed since are made unfinished again (their
    marker and output removed), so this run extracts them again; the summary says which."""
    redone = []
    for shard in job.shards:
        files = ShardFiles(out, shard.id, job.config)
        if files.changed_since_done():
            files.done.unlink()
            files.final.unlink(missing_ok=True)
            redone.append(shard.id)
    if redone:
        summary.notes.append(f"{counted(len(redone), 'shard')} extracted again: the output "
                             f"changed after it was finished ({', '.join(redone)})")


def _ignore(reason: str | None) -> None:
    """No page counter (``run_job`` without ``on_page``)."""


def shard_counts(job: Plan, out: Path) -> list[ShardCounts]:
    """The counts of every finished shard (from its marker)."""
    counts = []
    for shard in job.shards:
        files = ShardFiles(out, shard.id, job.config)
        marker = files.done if files.done.exists() else files.extracted
        if not marker.exists():
            raise GristError(f"{shard.id} did not finish; rerun the same command to resume")
        counts.append(ShardCounts.read(marker))
    return counts


def add_up(job: Plan, out: Path, summary: Summary) -> None:
    """Put every shard's counts into the summary."""
    skipped: Counter[str] = Counter()
    duplicates = 0
    for counts in shard_counts(job, out):
        summary.results += counts.results
        summary.errors.update(counts.errors)
        skipped.update(counts.skipped)
        duplicates += counts.duplicates
    if skipped:
        summary.notes.append(skipped_note(skipped))
    if duplicates:
        verb = "dropped" if job.config.dedup == "drop" else "marked"
        summary.notes.append(f"{counted(duplicates, 'near-duplicate')} {verb}")
    summary.skipped = skipped


def skipped_note(skipped: Counter[str]) -> str:
    """The summary's clause for records that are not pages (``skipped``: how many of each kind;
    not empty)."""
    kinds = ", ".join(_skipped_kind(n, kind) for kind, n in sorted(skipped.items()))
    count = sum(skipped.values())
    return f"{counted(count, 'record')} that {'is' if count == 1 else 'are'} not a page ({kinds})"


def _skipped_kind(n: int, kind: str) -> str:
    """``n`` skipped records of one kind, as the summary line says it (a WARC record type as it
    is, "2 request"; the files that are not pages in words, "2 files that are not pages")."""
    if kind == NOT_A_PAGE and n != 1:
        return f"{n} files that are not pages"
    return f"{n} {kind}"


def write_summary(out: Path, summary: Summary, report: RunReport) -> None:
    """``summary.json``: the counts, this run's time and the workers' peak memory."""
    data = {"line": summary.line(), "pages": summary.pages, "results": summary.results,
            "errors": dict(summary.errors), "skipped_records": dict(summary.skipped),
            "worker_peak_rss_mib": report.peak_rss_mib, "worker_restarts": report.restarts,
            "worker_task_cpu_seconds": round(report.task_cpu_seconds, 3),
            "shard_worker_rss_mib": report.shard_rss_mib}
    write_atomic(out / SUMMARY_FILE, json.dumps(data, indent=1, sort_keys=True))
