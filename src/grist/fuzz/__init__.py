"""grist's fuzz suite: hostile pages from a seed, run with every method in guarded worker processes.

The contract (ARCHITECTURE.md) is that any bytes give a result or a grist error, never a crash
or a hang, within the caps and the time budget. ``fuzz(seed, pages)`` generates ``pages`` inputs
from the families in ``grist.fuzz.cases.FAMILIES`` (damaged pages, storms of one pattern, deep
and misnested markup, charset chaos, non-HTML, pages at the caps), extracts each with every
method in worker processes under a wall-clock and a memory limit, and tallies the outcomes
(``Summary``). Failures are shrunk to small reproducers when a folder is given. Every case is
made again from ``(seed, index)``: ``make_case(seed, index)``.

``benchmarks/fuzz.py`` is the command line (long runs, reproducer folders); ``tests/test_fuzz.py``
runs a short fixed-seed run as part of the test suite.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from grist.fuzz import charsets, mutations, storms  # noqa: F401 - they register the families
from grist.fuzz.cases import FAMILIES, Case, make_case
from grist.fuzz.pool import OUTCOMES, PoolConfig, Worker, run_jobs
from grist.fuzz.report import Summary
from grist.fuzz.shrink import load_reproducers, save_reproducer, shrink, signature


def run_cases(cases: Iterable[Case], methods: Sequence[str], config: PoolConfig, *,
              shrink_into: Path | None = None, max_reproducers: int = 20,
              on_record: Callable[[dict], None] | None = None) -> Summary:
    """Run every case with every method; with ``shrink_into``, shrink the first failure of each
    distinct signature (at most ``max_reproducers``) and save it there."""
    summary = Summary(budget=config.limits.time_budget)
    first: dict[str, tuple[Case, str, dict, str]] = {}

    def record(case: Case, result: dict) -> None:
        kind = summary.add(result)
        if kind is not None and len(first) < max_reproducers:
            first.setdefault(signature(result, kind), (case, result["method"], result, kind))
        if on_record is not None:
            on_record(result)

    run_jobs(cases, methods, config, record)
    if shrink_into is not None and first:
        worker = Worker(config)
        try:
            for number, (case, method, result, kind) in enumerate(first.values(), 1):
                small = shrink(case, method, result, kind, worker, summary.failure_kind)
                save_reproducer(shrink_into, number, small, method, result, kind)
        finally:
            worker.close()
    return summary


def fuzz(seed: int, pages: int, *, methods: Sequence[str] | None = None,
         config: PoolConfig | None = None, start: int = 0, scale: float = 1.0,
         corpus: Sequence[str] = (), families: Sequence[str] | None = None,
         shrink_into: Path | None = None,
         on_record: Callable[[dict], None] | None = None) -> Summary:
    """Generate ``pages`` cases from ``seed`` (indexes ``start`` ...) and run them (``run_cases``)."""
    from grist.methods import available_methods

    config = config or PoolConfig()
    cases = (make_case(seed, i, config.limits, scale=scale, corpus=corpus, families=families)
             for i in range(start, start + pages))
    return run_cases(cases, methods or available_methods(), config, shrink_into=shrink_into,
                     on_record=on_record)


__all__ = ["FAMILIES", "OUTCOMES", "Case", "PoolConfig", "Summary", "fuzz", "load_reproducers",
           "make_case", "run_cases"]
