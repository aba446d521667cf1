"""Tallies of a fuzz run: outcomes per method and family, time and memory percentiles, failures.

A *failure* is a crash, a hang, a dead worker, an extraction that ran past twice the time budget
(``overrun``) or a run whose peak memory passed the memory target; everything else (a result or
a GristError) keeps the contract.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np

from grist.fuzz.pool import OUTCOMES

QUANTILES = (50.0, 99.0, 99.9)


def _quantiles(values: list[float]) -> list[float]:
    data = np.array([v for v in values if not math.isnan(v)], dtype=float)
    if not data.size:
        return [float("nan")] * (len(QUANTILES) + 1)
    return [float(np.percentile(data, q)) for q in QUANTILES] + [float(data.max())]


@dataclass
class Summary:
    """Everything a run's report needs, filled record by record (``add``)."""

    budget: float
    memory_target_kib: int = 1 << 20
    outcomes: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    families: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    errors: Counter = field(default_factory=Counter)
    times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    cpu: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    peaks: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    failures: list[dict] = field(default_factory=list)
    pages: set = field(default_factory=set)

    def failure_kind(self, record: dict) -> str | None:
        """Why a record breaks the contract (crash, hang, died, overrun, memory), or None."""
        if record["outcome"] in ("crash", "hang", "died"):
            return record["outcome"]
        if record["extract_s"] > 2 * self.budget:
            return "overrun"
        if record["peak_kib"] > self.memory_target_kib:
            return "memory"
        return None

    def add(self, record: dict) -> str | None:
        """Count one run; return its failure kind (None when it kept the contract)."""
        method = record["method"]
        self.pages.add((record.get("seed"), record.get("index"), record.get("family")))
        self.outcomes[method][record["outcome"]] += 1
        if record["outcome"] == "error":
            self.errors[record["kind"]] += 1
        self.times[method].append(record["extract_s"])
        self.cpu[method].append(record["cpu_s"])
        self.peaks[method].append(record["peak_kib"] / 1024)
        kind = self.failure_kind(record)
        self.families[record.get("family", "?")][kind or record["outcome"]] += 1
        if kind is not None:
            self.outcomes[method][kind] += kind in ("overrun", "memory")
            self.failures.append({**record, "failure": kind})
        return kind

    @property
    def runs(self) -> int:
        return sum(sum(c[o] for o in OUTCOMES) for c in self.outcomes.values())

    def count(self, kind: str) -> int:
        return sum(c[kind] for c in self.outcomes.values())

    def markdown(self) -> str:
        """The tables of docs/benchmarks/fuzz.md."""
        methods = sorted(self.outcomes)
        kinds = [*OUTCOMES, "overrun", "memory"]
        lines = ["| outcome | " + " | ".join(methods) + " | all |",
                 "|---|" + "---:|" * (len(methods) + 1)]
        for kind in kinds:
            row = [self.outcomes[m][kind] for m in methods]
            lines.append(f"| {kind} | " + " | ".join(map(str, row)) + f" | {sum(row)} |")
        for label, pick, fmt in (("time", self.times, "{:.3f}"), ("CPU", self.cpu, "{:.3f}"),
                                 ("peak MiB", self.peaks, "{:.0f}")):
            every = [v for m in methods for v in pick[m]]
            unit = "" if pick is self.peaks else " (s)"
            for i, q in enumerate([*(f"p{q:g}" for q in QUANTILES), "max"]):
                row = [_quantiles(pick[m])[i] for m in methods]
                lines.append(f"| {label} {q}{unit} | " + " | ".join(fmt.format(v) for v in row)
                             + f" | {fmt.format(_quantiles(every)[i])} |")
        lines += ["", "| family | " + " | ".join(kinds) + " |", "|---|" + "---:|" * len(kinds)]
        for name in sorted(self.families):
            lines.append(f"| {name} | " + " | ".join(str(self.families[name][k]) for k in kinds)
                         + " |")
        lines += ["", "| grist error | runs |", "|---|---:|"]
        lines += [f"| {kind} | {n} |" for kind, n in self.errors.most_common()]
        return "\n".join(lines)

    def failure_lines(self, limit: int = 30) -> list[str]:
        """One line per failure (the first ``limit``), with what reproduces it."""
        out = []
        for f in self.failures[:limit]:
            out.append(f"{f['failure']} {f['method']} {f['family']}#{f['seed']}:{f['index']} "
                       f"({f['size']} bytes, {f['extract_s']:.2f} s, {f['peak_kib'] // 1024} MiB) "
                       f"{f.get('kind', '')} {f.get('where', '')} {f.get('message', '')[:120]}")
        return out
