"""Benchmark reports: console tables, Markdown, JSON and two PNG plots under docs/benchmarks/."""

from __future__ import annotations

import difflib
import json
import platform
from pathlib import Path
from typing import Any

from grist.evaluate.bench import Gold, SystemResult
from grist.evaluate.systems import system_version
from grist.optional import require

REFERENCE = "trafilatura"


def _ci(summary: dict[str, Any], key: str) -> str:
    low, high = summary[key + "_ci"]
    return f"{summary[key]:.3f} ± {(high - low) / 2:.3f}"


def dataset_rows(dataset: str, results: dict[str, SystemResult]) -> list[list[str]]:
    """One table row per system on one dataset, best shingle F1 first."""
    reference = results.get(REFERENCE)
    ref_speed = reference.datasets[dataset]["pages_per_s"] if reference else 0.0
    rows = []
    ordered = sorted(results.values(), key=lambda r: -r.datasets[dataset].get("sh_f1", 0.0))
    for result in ordered:
        s = result.datasets[dataset]
        ratio = f"{s['pages_per_s'] / ref_speed:.2f}" if ref_speed else "-"
        row = [
            result.system,
            _ci(s, "sh_f1"),
            f"{s['sh_p']:.3f}",
            f"{s['sh_r']:.3f}",
            _ci(s, "lcs_f1"),
            f"{s['lcs_p']:.3f}",
            f"{s['lcs_r']:.3f}",
            f"{s['accuracy']:.3f}",
            f"{s['pages_per_s']:.1f}",
            ratio,
            f"{s['p50_ms']:.1f}",
            f"{s['p99_ms']:.1f}",
            str(s["errors"]),
        ]
        if "with_hit" in s:
            row += [f"{s['with_hit']:.3f}", f"{s['without_clean']:.3f}"]
        rows.append(row)
    return rows


HEADER = [
    "system", "shingle F1 ± CI", "sh P", "sh R", "LCS F1 ± CI", "LCS P", "LCS R", "exact",
    "pages/s (CPU)", "× trafilatura", "p50 ms", "p99 ms", "errors",
]
SNIPPET_HEADER = ["with found", "without absent"]


def _header(dataset: str, results: dict[str, SystemResult]) -> list[str]:
    first = next(iter(results.values()))
    return HEADER + (SNIPPET_HEADER if "with_hit" in first.datasets[dataset] else [])


def console_tables(golds: dict[str, list[Gold]], results: dict[str, SystemResult]) -> str:
    """Plain-text tables, one per dataset, columns aligned."""
    out = []
    for dataset, pages in golds.items():
        table = [_header(dataset, results)] + dataset_rows(dataset, results)
        widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
        out.append(f"\n{dataset} ({len(pages)} pages)")
        for row in table:
            out.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    return "\n".join(out) + "\n"


def _markdown_table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def versions(results: dict[str, SystemResult]) -> dict[str, str]:
    """Python, platform and the package version behind every system."""
    found = {"python": platform.python_version(), "platform": platform.platform()}
    for name in results:
        found[name] = system_version(name) or "?"
    return found


def markdown(
    meta: dict[str, Any],
    golds: dict[str, list[Gold]],
    results: dict[str, SystemResult],
    worst: list[dict[str, Any]],
    plots: list[str],
) -> str:
    """The Markdown report: run facts, one table per dataset, memory, worst pages, plots."""
    lines = [
        f"# Benchmark run {meta['date']}{' (quick sample)' if meta['quick'] else ''}",
        "",
        f"Command: `{meta['command']}`  ",
        f"Wall time: {meta['wall_s']:.0f} s with {meta['jobs']} worker processes; "
        f"CPU: {meta['cpus']} cores (shared with other jobs).  ",
        "Versions: " + ", ".join(f"{k} {v}" for k, v in meta["versions"].items()) + ".",
        "",
        "Metrics are defined in [README.md](README.md): shingle F1 is the article-extraction "
        "benchmark's (F1 of mean precision and mean recall), LCS F1 the mean per-page word-LCS F1; "
        "± is half the 95 % bootstrap interval (page resamples). pages/s is per process: pages "
        "over the worker's CPU seconds inside the extraction call (parse + extract, no file "
        "I/O); p50/p99 are per-page CPU ms; the JSON also has wall-clock pages/s.",
        "",
    ]
    for note in meta.get("notes", []):
        lines.append(f"- {note}")
    for dataset, pages in golds.items():
        lines += ["", f"## {dataset} ({len(pages)} pages)", ""]
        lines += _markdown_table(_header(dataset, results), dataset_rows(dataset, results))
    lines += ["", "## Peak resident memory per system (one process over all datasets)", ""]
    rows = [[r.system, f"{r.peak_rss_mib:.0f}", str(r.restarts)] for r in results.values()]
    lines += _markdown_table(["system", "peak RSS MiB", "worker restarts"], rows)
    if worst:
        lines += ["", "## Pages where grist loses most against the best peer (LCS F1)", ""]
        rows = [
            [w["method"], w["dataset"], w["id"], f"{w['f1']:.3f}", w["peer"], f"{w['peer_f1']:.3f}"]
            for w in worst
        ]
        lines += _markdown_table(["method", "dataset", "page", "F1", "best peer", "peer F1"], rows)
    lines += [""] + [f"![{Path(p).stem}]({Path(p).name})" for p in plots] + [""]
    return "\n".join(lines)


def worst_pages(
    results: dict[str, SystemResult], methods: list[str], count: int
) -> list[dict[str, Any]]:
    """For each grist method, the ``count`` pages with the largest LCS F1 gap to the best peer."""
    peers = [r for name, r in results.items() if name not in methods]
    found: list[dict[str, Any]] = []
    for method in methods:
        if method not in results or not peers:
            continue
        gaps = []
        for dataset, scores in results[method].pages.items():
            for index, score in enumerate(scores):
                best = max(peers, key=lambda r: r.pages[dataset][index].lcs_f1)
                peer_f1 = best.pages[dataset][index].lcs_f1
                gaps.append({
                    "method": method, "dataset": dataset, "id": score.id, "f1": score.lcs_f1,
                    "peer": best.system, "peer_f1": peer_f1, "gap": peer_f1 - score.lcs_f1,
                })
        gaps.sort(key=lambda g: -g["gap"])
        found += gaps[:count]
    return found


def diff_text(extracted: str, gold: str, max_lines: int = 40) -> str:
    """A unified diff of extracted vs gold, one paragraph per line, cut at ``max_lines``."""
    lines = list(difflib.unified_diff(
        [" ".join(p.split()) for p in extracted.split("\n") if p.strip()],
        [" ".join(p.split()) for p in gold.split("\n") if p.strip()],
        "extracted", "gold", lineterm="", n=1,
    ))
    if len(lines) > max_lines:
        lines = lines[:max_lines] + [f"... ({len(lines) - max_lines} more diff lines)"]
    return "\n".join(line[:200] for line in lines)


def to_json(meta: dict[str, Any], results: dict[str, SystemResult], worst: list) -> str:
    """Machine-readable report: run facts and every aggregate (per-page scores go elsewhere)."""
    payload = {
        "meta": meta,
        "systems": {
            name: {"peak_rss_mib": r.peak_rss_mib, "restarts": r.restarts, "datasets": r.datasets}
            for name, r in results.items()
        },
        "worst": worst,
    }
    return json.dumps(payload, indent=1, ensure_ascii=False)


def page_scores_json(results: dict[str, SystemResult]) -> str:
    """Every per-page score of every system, for error analysis."""
    payload = {
        name: {d: [s.as_dict() for s in scores] for d, scores in r.pages.items()}
        for name, r in results.items()
    }
    return json.dumps(payload, ensure_ascii=False)


def plots(results: dict[str, SystemResult], datasets: list[str], stem: Path) -> list[str]:
    """Two PNGs: shingle F1 per dataset per system, and mean F1 against pages/s.

    MissingExtraError when matplotlib (the ``bench`` extra) is not installed.
    """
    matplotlib = require("matplotlib", "bench", "plotting the results")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(results)
    # 40 distinct colours (a full run has two dozen systems; the default cycle repeats after 10)
    colours = plt.get_cmap("tab20").colors + plt.get_cmap("tab20b").colors
    fig, ax = plt.subplots(figsize=(max(8, 1.4 * len(datasets)) + 3, 5))
    width = 0.8 / max(1, len(names))
    for i, name in enumerate(names):
        values = [results[name].datasets[d]["sh_f1"] for d in datasets]
        ax.bar([x + i * width for x in range(len(datasets))], values, width, label=name,
               color=colours[i % len(colours)])
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(datasets))], datasets, rotation=20)
    ax.set_ylabel("shingle F1")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))  # beside the bars
    fig.tight_layout()
    f1_path = stem.with_name(stem.name + "-f1.png")
    fig.savefig(f1_path, dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(8, 5.5))
    points: dict[tuple[float, float], str] = {}
    for name in names:
        per = results[name].datasets
        f1 = sum(per[d]["sh_f1"] for d in datasets) / len(datasets)
        total_pages = sum(per[d]["pages"] for d in datasets)
        total_time = sum(per[d]["pages"] / per[d]["pages_per_s"] for d in datasets
                         if per[d]["pages_per_s"])
        rate = total_pages / total_time if total_time else 0.0
        points.setdefault((round(rate, 1), round(f1, 4)), name)  # a body-only twin on its method
    for i, ((rate, f1), name) in enumerate(sorted(points.items(), key=lambda p: p[0][1])):
        ax.scatter(rate, f1, color=colours[i % len(colours)])
        ax.annotate(name, (rate, f1), fontsize=7, textcoords="offset points",
                    xytext=(4, 2) if i % 2 else (4, -8))  # neighbours' labels alternate sides
    if all(rate > 0 for rate, _ in points):  # (a system whose every page failed has none)
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(matplotlib.ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())  # 20, 50, 100
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel("pages per second per process" + (" (log)" if ax.get_xscale() == "log" else ""))
    ax.set_ylabel("shingle F1, mean over datasets")
    fig.tight_layout()
    speed_path = stem.with_name(stem.name + "-speed.png")
    fig.savefig(speed_path, dpi=110)
    plt.close(fig)
    return [str(f1_path), str(speed_path)]
