"""Tables and figures of the stream benchmark (benchmarks/stream_tree.py): the CMA curves of
Eq. 4, the paper's Figures 4 and 5, what the tree changed, and the report in Markdown."""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import platform
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from grist.evaluate.metrics import cumulative_moving_average


@dataclass
class Scores:
    """Per system, per site: the F1 of each page in stream order."""

    f1: dict[str, dict[str, list[float]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list)))
    changes: list[dict] = field(default_factory=list)


def curves(per_site: dict[str, list[float]], length: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean over sites of the CMA after j documents (sites with >= j documents), and counts."""
    means, counts = [], []
    for j in range(1, length + 1):
        values = [list(cumulative_moving_average(f))[j - 1] for f in per_site.values()
                  if len(f) >= j]
        means.append(float(np.mean(values)) if values else np.nan)
        counts.append(len(values))
    return np.array(means), np.array(counts)


def interleaved(per_site: dict[str, list[float]]) -> list[float]:
    """Per-page F1 in the round-robin order of a stream that mixes the sites (Figure 5)."""
    out, depth = [], max(len(v) for v in per_site.values())
    for j in range(depth):
        out.extend(v[j] for v in per_site.values() if len(v) > j)
    return out


def site_halves(sites: list[str]) -> tuple[set[str], set[str]]:
    """Two halves of the sites (alternating in sorted order) for choosing on one, checking on
    the other."""
    ordered = sorted(sites)
    return set(ordered[0::2]), set(ordered[1::2])


def mean_f1(per_site: dict[str, list[float]], sites: set[str] | None = None) -> float:
    values = [v for s, f in per_site.items() if sites is None or s in sites for v in f]
    return float(np.mean(values)) if values else float("nan")


def plot(scores: Scores, systems: list[str], out: Path, length: int) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    fig, ax = plt.subplots(figsize=(8, 5))
    for site, f in scores.f1["tree strict"].items():
        ax.plot(range(1, len(f) + 1), list(cumulative_moving_average(f)), color="0.7", lw=0.8)
    for system in ("tree strict", "auto", "auto+tree strict"):
        mean, _ = curves(scores.f1[system], length)
        ax.plot(range(1, length + 1), mean, lw=2.2, label=f"{system} (mean over sites)")
    ax.set(xlabel="documents of the site", ylabel="cumulative moving-average F1 (Eq. 4)",
           title="Per site: URL Tree (strict) alone, grey; means over sites", ylim=(0, 1))
    ax.legend(loc="lower right")
    written.append(f"{out.name}-fig4.png")
    fig.savefig(out.parent / written[-1], dpi=110, bbox_inches="tight")
    fig, ax = plt.subplots(figsize=(8, 5))
    for system in systems:
        cma = list(cumulative_moving_average(interleaved(scores.f1[system])))
        ax.plot(range(1, len(cma) + 1), cma, label=f"{system} ({cma[-1]:.3f})",
                lw=2.2 if system in ("auto", "auto+tree strict") else 1.2)
    ax.set(xlabel="documents in the stream (sites interleaved)", ylabel="cumulative F1 (Eq. 4)",
           title="All sites as one stream", ylim=(0.4, 1))
    ax.legend(loc="lower right", fontsize=8)
    written.append(f"{out.name}-fig5.png")
    fig.savefig(out.parent / written[-1], dpi=110, bbox_inches="tight")
    return written


def report(scores: Scores, systems: list[str], args: argparse.Namespace, streams: dict,
           scale: dict, timing: dict, figures: list[str], sweep_rows: list[str],
           hashes: dict[str, float]) -> str:
    auto = scores.f1["auto"]
    versions = {n: importlib.metadata.version(n) for n in ("grist", "numpy", "xxhash")}
    lines = [
        f"# URL Tree stream benchmark ({datetime.date.today().isoformat()})", "",
        f"Command: `{' '.join(sys.argv)}`  ",
        f"Python {platform.python_version()}, " + ", ".join(f"{k} {v}" for k, v in
                                                             versions.items()) + "; "
        "2-core machine shared with other jobs (speeds are CPU time).  ",
        f"`auto` model: {'leave-one-dataset-out models from ' + str(args.lodo) if args.lodo else 'the shipped one'}.  ",
        f"{len(streams)} sites, {sum(len(p) for p in streams.values())} pages "
        f"({', '.join(f'{d}: {n}' for d, n in sorted(_per_dataset(streams).items()))}).", "",
        "## Mean F1 by system", "",
        "| system | mean page F1 | stream CMA (Fig. 5, last) | pages 1-4 | pages 5-10 | "
        "pages 11-20 | pages 21+ |", "|---|---:|---:|---:|---:|---:|---:|"]
    for system in systems:
        per = scores.f1[system]
        cma = list(cumulative_moving_average(interleaved(per)))[-1]
        bands = [_band(per, lo, hi) for lo, hi in ((1, 4), (5, 10), (11, 20), (21, 10**9))]
        lines.append(f"| {system} | {mean_f1(per):.4f} | {cma:.4f} | "
                     + " | ".join(f"{b:.4f}" for b in bands) + " |")
    groups = {"all sites": set(auto)}
    generated = {s for s in auto if s.startswith("generated:")}
    if generated and generated != set(auto):
        groups |= {"dev-set sites only": set(auto) - generated, "generated sites only": generated}
    for title, sites in groups.items():
        lines += _after_j(scores, args.heuristics, sites, title)
    lines += ["", "## Per dataset (mean page F1)", "",
              "| dataset | sites | pages | auto | auto+tree strict | tree strict |",
              "|---|---:|---:|---:|---:|---:|"]
    for dataset in sorted({s.split(":")[0] for s in auto}):
        sites = {s for s in auto if s.startswith(dataset + ":")}
        lines.append(f"| {dataset} | {len(sites)} | {sum(len(auto[s]) for s in sites)} | "
                     + " | ".join(f"{mean_f1(scores.f1[x], sites):.4f}"
                                  for x in ("auto", "auto+tree strict", "tree strict")) + " |")
    lines += _changes(scores.changes)
    lines += ["", "## Speed and memory of the tree", "",
              f"On the replayed pages (CPU time per document, excluding fetch, parse and auto): "
              f"block hashing {timing['hash'] / timing['docs'] * 1e3:.3f} ms, insertion "
              f"{timing['insert'] / timing['docs'] * 1e3:.3f} ms, one heuristic's relabel "
              f"{timing['relabel'] / timing['relabels'] * 1e3:.3f} ms.", "",
              f"Synthetic stream ({scale['docs']} documents over {scale['domains']} domains, "
              f"{scale['blocks_per_doc']} blocks each, retention at its defaults; insertion and "
              f"node selection): **{scale['docs_per_s']:.0f} documents/s** on one core, "
              f"**{scale['mb_per_1000']:.2f} MB per 1,000 documents held** (tracemalloc; "
              f"{scale['held']} held), against the paper's 6.5 MB. Rebuilding the tree from "
              f"a state file's documents (start-up): {scale['restore_docs_per_s']:.0f} "
              "documents/s.", "",
              "Block hashing, normalisation included, on the replayed pages' blocks: "
              + ", ".join(f"{name} {speed:,.0f} blocks/s" for name, speed in hashes.items())
              + ".", ""]
    lines += sweep_rows
    lines += ["", "## Figures", ""] + [f"![{f}]({f})" for f in figures]
    return "\n".join(lines) + "\n"


def _after_j(scores: Scores, heuristics: list[str], sites: set[str], title: str) -> list[str]:
    """The table of auto + tree against auto after j documents, over ``sites``."""
    auto = {s: f for s, f in scores.f1["auto"].items() if s in sites}
    length = max(len(v) for v in auto.values())
    lines = ["", f"## auto + tree against auto alone, after j documents of a site ({title})", "",
             "Mean over the sites that have at least j documents of the cumulative moving "
             "average F1 (Eq. 4) after j documents.", "",
             "| j | sites | auto | " + " | ".join(f"{h} - auto" for h in heuristics) + " |",
             "|---:|---:|---:|" + "---:|" * len(heuristics)]
    auto_curve, counts = curves(auto, length)
    tree_curves = {h: curves({s: f for s, f in scores.f1[f"auto+tree {h}"].items() if s in sites},
                             length)[0] for h in heuristics}
    for j in range(length):
        lines.append(f"| {j + 1} | {counts[j]} | {auto_curve[j]:.4f} | " + " | ".join(
            f"{tree_curves[h][j] - auto_curve[j]:+.4f}" for h in heuristics) + " |")
    return lines


def _per_dataset(streams: dict) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for site, pages in streams.items():
        out[site.split(":")[0]] += len(pages)
    return out


def _band(per_site: dict[str, list[float]], lo: int, hi: int) -> float:
    values = [v for f in per_site.values() for v in f[lo - 1: hi]]
    return float(np.mean(values)) if values else float("nan")


def _changes(changes: list[dict]) -> list[str]:
    """What the tree (strict, combined with auto) changed of auto's labels, and how often it was
    right (a block is "in gold" when its words appear in the gold text)."""
    lines = ["", "## What the tree changed (auto+tree strict)", ""]
    for target in ("boilerplate", "content"):
        group = [c for c in changes if c["to"] == target]
        if not group:
            lines.append(f"No block was turned into {target}.")
            continue
        wrong = [c for c in group if c["in_gold"] == (target == "boilerplate")]
        lines.append(f"- turned into **{target}**: {len(group)} blocks, "
                     f"{sum(c['words'] for c in group)} words; against the gold: "
                     f"{len(wrong)} blocks / {sum(c['words'] for c in wrong)} words wrong.")
    for title, keep in (("Wrongly removed (in the gold), longest first", True),
                        ("Rightly removed (not in the gold), a sample", False)):
        group = [c for c in changes if c["to"] == "boilerplate" and c["in_gold"] == keep]
        group.sort(key=lambda c: -c["words"]) if keep else None
        lines += ["", f"### {title}", "", "| site | doc | words | text |", "|---|---:|---:|---|"]
        for c in group[:: max(1, len(group) // 15)][:15] if not keep else group[:15]:
            text = c["text"].replace("|", "\\|")
            lines.append(f"| {c['site']} | {c['position'] + 1} | {c['words']} | {text} |")
    return lines


def sweep_table(scores: Scores, sweep: list[tuple[float, float]]) -> list[str]:
    if not sweep:
        return []
    a, b = site_halves(list(scores.f1["auto"]))
    lines = ["## Choosing protect_above / share_min on half the sites", "",
             "Mean page F1 minus auto's on each half of the sites (alternating by name); the "
             "defaults were chosen on half A and are checked on half B.", "",
             "| protect_above | share_min | half A | half B |", "|---:|---:|---:|---:|"]
    base_a, base_b = mean_f1(scores.f1["auto"], a), mean_f1(scores.f1["auto"], b)
    for protect, share in sweep:
        per = scores.f1[f"auto+tree strict p{protect} s{share}"]
        lines.append(f"| {protect} | {share} | {mean_f1(per, a) - base_a:+.4f} | "
                     f"{mean_f1(per, b) - base_b:+.4f} |")
    return lines + [""]
