"""The benchmark suite: every system on every dataset, scored, timed and measured in one run."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grist.evaluate.aggregate import PageScore, score_page, summarize
from grist.io.datasets import dataset_name, read_dataset
from grist.evaluate.runner import Output, SystemRun, run_systems


@dataclass
class Gold:
    """What scoring needs of a page (the HTML itself stays in the workers)."""

    id: str
    gold: str
    html_chars: int
    with_: list[str] | None = None
    without: list[str] | None = None


@dataclass
class SystemResult:
    """One system's scores, speed and memory on every dataset."""

    system: str
    peak_rss_mib: float
    restarts: int
    datasets: dict[str, dict[str, Any]] = field(default_factory=dict)
    pages: dict[str, list[PageScore]] = field(default_factory=dict)
    texts: dict[tuple[str, str], str] = field(default_factory=dict)


def load_golds(paths: list[Path], limit: int | None) -> dict[str, list[Gold]]:
    """Gold texts (and snippets) of the first ``limit`` pages of every dataset, by dataset name."""
    golds: dict[str, list[Gold]] = {}
    for path in paths:
        name = dataset_name(path)
        golds[name] = [
            Gold(p.id, p.gold, len(p.html), p.extra.get("with"), p.extra.get("without"))
            for p in read_dataset(path, limit)
        ]
    return golds


def speed(seconds: list[float]) -> dict[str, float]:
    """Pages per second of one process and latency p50 / p99 in ms, from per-page seconds.

    The bench feeds CPU seconds of the worker process (stable when other jobs share the
    cores); wall-clock pages/s is reported beside it.
    """
    if not seconds:
        return {"pages_per_s": 0.0, "p50_ms": 0.0, "p99_ms": 0.0}
    ordered = sorted(seconds)
    p99 = ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]
    return {
        "pages_per_s": len(seconds) / sum(seconds) if sum(seconds) else 0.0,
        "p50_ms": statistics.median(ordered) * 1000,
        "p99_ms": p99 * 1000,
    }


DEFAULT_SUFFIX = " (body only)"


def score_run(
    run: SystemRun, golds: dict[str, list[Gold]], rounds: int, keep_texts: bool
) -> list[SystemResult]:
    """Score one system's outputs on every dataset; a missing output is an empty, failed page.

    A grist method that reports its default text beside the one with each dataset's convention
    gives a second result, its name ending in `` (body only)``, with the same speed and memory.
    """
    results = [_score(run, golds, rounds, keep_texts, default=False)]
    if any(o.default is not None for o in run.outputs.values()):
        results.append(_score(run, golds, rounds, keep_texts, default=True))
    return results


def _score(run: SystemRun, golds: dict[str, list[Gold]], rounds: int, keep_texts: bool,
           default: bool) -> SystemResult:
    name_of = run.system + (DEFAULT_SUFFIX if default else "")
    result = SystemResult(name_of, run.peak_rss_mib, run.restarts)
    for name, pages in golds.items():
        scores, seconds, wall = [], [], []
        for gold in pages:
            output = run.outputs.get((name, gold.id)) or Output("", 0.0, "no output (worker lost)")
            text = output.default if default and output.default is not None else output.text
            scores.append(
                score_page(gold.id, text, gold.gold, gold.with_, gold.without, output.error)
            )
            seconds.append(output.cpu if output.cpu is not None else output.seconds)
            wall.append(output.seconds)
            if keep_texts:
                result.texts[(name, gold.id)] = text
        summary = summarize(scores, rounds)
        summary.update(speed(seconds))
        summary["wall_pages_per_s"] = speed(wall)["pages_per_s"]
        summary["output_chars"] = sum(len(run.outputs[(name, g.id)].text)
                                      for g in pages if (name, g.id) in run.outputs)
        result.datasets[name] = summary
        result.pages[name] = scores
    return result


def run_bench(
    systems: list[str],
    paths: list[Path],
    limit: int | None = None,
    jobs: int = 2,
    timeout: float = 20.0,
    rounds: int = 1000,
    keep_texts_of: frozenset[str] = frozenset(),
) -> tuple[dict[str, list[Gold]], dict[str, SystemResult]]:
    """Run and score every system; returns the golds and the results by system name."""
    golds = load_golds(paths, limit)
    total = sum(len(pages) for pages in golds.values())
    scored = run_systems(
        systems,
        [str(p) for p in paths],
        total,
        lambda run: score_run(run, golds, rounds, run.system in keep_texts_of),
        limit=limit,
        jobs=jobs,
        timeout=timeout,
    )
    results = {r.system: r for found in scored.values() for r in found}
    return golds, results
