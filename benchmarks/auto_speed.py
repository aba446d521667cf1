"""Speed of ``auto`` (shipped model, end to end) beside trafilatura and jusText, on the same pages.

Every system gets the decoded page as a ``str`` and runs sequentially in this one process; the
systems take turns page by page, so load changes on the shared machine hit them alike. Both wall
time (``perf_counter``) and CPU time of the process (``process_time``, steadier when other jobs
run) are summed per system; with ``--rounds N`` the whole measurement runs N times and each
system keeps, per dataset, its least time (other jobs and the allocator's state only ever add
time: single runs of the same code differed by up to 13 % on a dataset). ``auto`` runs once,
as by default: a second ``auto`` (``explain=False``, as this script once ran) would meet the
page's id/class strings already looked up by the first one in most turns, and show a speed no
single extractor has (docs/benchmarks/auto-speed.md, stop 34; the features behind a reason are
computed only when asked, ``Result.explained``). ``--profile`` adds a cProfile of ``auto`` over
the same pages.

    nice .venv/bin/python benchmarks/auto_speed.py --pages 100 --rounds 3
"""

from __future__ import annotations

import argparse
import cProfile
import datetime
import importlib.metadata
import io
import platform
import pstats
import sys
import time
from collections.abc import Callable
from pathlib import Path

import grist
from grist.io.datasets import read_jsonl
from grist.evaluate.peers import make_peer
from devsets import DATASETS


def systems() -> dict[str, Callable[[str, str | None], str]]:
    """The extractors compared, set up (imports, models) before any timing."""
    auto = grist.Extractor(method="auto")
    justext_method = grist.Extractor(method="justext")
    return {
        "grist auto": lambda html, url: auto(html, url=url).text,
        "grist justext": lambda html, url: justext_method(html, url=url).text,
        "trafilatura": make_peer("trafilatura"),
        "jusText (library)": make_peer("justext"),
    }


def measure(pages: list, extractors: dict[str, Callable[[str, str | None], str]]
            ) -> dict[str, list[float]]:
    """Per system: [wall seconds, CPU seconds, failed pages], systems taking turns per page.

    The turn order rotates from page to page: whichever system goes first on a page runs about
    2 ms slower than the ones after it (measured with the same extractor in first and later
    turns), so a fixed order would charge that to one system.
    """
    totals = {name: [0.0, 0.0, 0.0] for name in extractors}
    names = list(extractors)
    for index, page in enumerate(pages):
        turn = index % len(names)
        for name in names[turn:] + names[:turn]:
            extract = extractors[name]
            wall, cpu = time.perf_counter(), time.process_time()
            try:
                extract(page.html, page.url)
            except Exception:  # noqa: BLE001 - a failure counts as a page done
                totals[name][2] += 1
            totals[name][0] += time.perf_counter() - wall
            totals[name][1] += time.process_time() - cpu
    return totals


def profile(pages: list, top: int) -> str:
    """cProfile of grist auto over the pages: the top functions by own time."""
    auto = grist.Extractor(method="auto")
    profiler = cProfile.Profile()
    profiler.enable()
    for page in pages:
        try:
            auto(page.html, url=page.url)
        except grist.GristError:
            pass
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).sort_stats("tottime")
    stats.print_stats(top)
    return out.getvalue()


def stage_times(pages: list) -> str:
    """CPU milliseconds per page of each step of ``auto`` (context features and block features
    are also inside "stage-1 features"; the last line is the whole method through ``Extractor``)."""
    from grist.features.context import context_features
    from grist.features.elementwords import ElementWords
    from grist.features.text import block_features
    from grist.html.load import load_document
    from grist.html.parse import parse_document
    from grist.segment.blocks import segment_elements
    from grist.classify.explain import top_contributions
    from grist.features.auto import stage1_features
    from grist.classify.boosted import SHIPPED, AutoModel
    from grist.modelfile import shipped

    model = AutoModel.load(shipped(SHIPPED))
    auto = grist.Extractor(method="auto")
    spent: dict[str, float] = {}

    def timed(name: str, step: Callable, *args: object) -> object:
        started = time.process_time()
        out = step(*args)
        spent[name] = spent.get(name, 0.0) + time.process_time() - started
        return out

    for page in pages:
        doc = timed("load + parse", lambda html: parse_document(load_document(html)), page.html)
        blocks, elements = timed("segment", segment_elements, doc)
        if not blocks:
            continue
        timed("block features (text)", block_features, blocks)
        timed("context features", context_features, blocks, doc, None, None,
              ElementWords(elements) if len(elements) else None)
        matrix = timed("stage-1 features (all)", stage1_features, blocks, doc, elements)
        p1, contrib = timed("stage-1 trees + contributions", model.stage1_scores, matrix, True)
        p2, _ = timed("stage-2 features + trees", model.stage2_scores, matrix,
                      [b.region for b in blocks], [b.path for b in blocks], p1)
        timed("explanation texts", top_contributions, contrib, matrix.values, matrix.names,
              p2 >= model.threshold_)
        timed("whole auto (Extractor)", auto, page.html, page.url)
    lines = ["| step | CPU ms/page |", "|---|---:|"]
    lines += [f"| {name} | {1000 * seconds / len(pages):.2f} |" for name, seconds in spent.items()]
    return "\n".join(lines)


def table(pages: int, totals: dict[str, list[float]]) -> str:
    """Markdown table: pages/s by wall and CPU time, and each system's speed relative to trafilatura."""
    base = totals["trafilatura"]
    lines = ["| system | pages | failed | wall s | pages/s (wall) | CPU s | pages/s (CPU) "
             "| x trafilatura (CPU) |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, (wall, cpu, failed) in totals.items():
        lines.append(f"| {name} | {pages} | {failed:.0f} | {wall:.2f} | {pages / wall:.2f} | "
                     f"{cpu:.2f} | {pages / cpu:.2f} | {base[1] / cpu:.3f} |")
    return "\n".join(lines)


def by_dataset(rows: dict[str, dict[str, list[float]]], pages: dict[str, int]) -> str:
    """Markdown table: per dataset, CPU pages/s of every system and grist auto's over
    trafilatura's."""
    names = list(next(iter(rows.values())))
    lines = ["| dataset | pages | " + " | ".join(f"{n} pages/s (CPU)" for n in names)
             + " | auto x trafilatura (CPU) |", "|---|---:|" + "---:|" * (len(names) + 1)]
    for dataset, totals in rows.items():
        n = pages[dataset]
        cells = [f"{n / totals[name][1]:.1f}" for name in names]
        ratio = totals["trafilatura"][1] / totals["grist auto"][1]
        # (three decimals: a ratio printed 2.00 may be 1.995, below the 2x target)
        lines.append(f"| {dataset} | {n} | " + " | ".join(cells) + f" | {ratio:.3f} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets-dir", default="../shared/datasets")
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS))
    parser.add_argument("--pages", type=int, default=40, help="first N pages of each dataset")
    parser.add_argument("--rounds", type=int, default=1,
                        help="measure N times; each system keeps its least time per dataset")
    parser.add_argument("--profile", type=int, default=0, metavar="N",
                        help="also print the top N functions of a cProfile of auto")
    parser.add_argument("--stages", action="store_true",
                        help="also time each step of auto (CPU ms per page)")
    parser.add_argument("--out", help="write the markdown result here")
    args = parser.parse_args()
    per_dataset = {name: list(read_jsonl(Path(args.datasets_dir) / f"{name}.jsonl.gz",
                                         args.pages)) for name in args.datasets}
    pages = [p for found in per_dataset.values() for p in found]
    extractors = systems()
    for extract in extractors.values():  # warm-up: lazy imports, model loading, caches
        extract(pages[0].html, pages[0].url)
    versions = ", ".join(f"{p} {importlib.metadata.version(p)}"
                         for p in ("grist", "trafilatura", "justext", "numpy", "selectolax"))
    report = (
        f"Run {datetime.datetime.now().isoformat(timespec='minutes')} on Python "
        f"{platform.python_version()}; {versions}.\n"
        f"Command: `{' '.join(sys.argv)}` ({len(pages)} pages: first {args.pages} of "
        f"{', '.join(args.datasets)}; best of {max(args.rounds, 1)} round(s) per system and "
        "dataset)\n\n"
    )
    rounds = [{name: measure(found, extractors) for name, found in per_dataset.items()}
              for _ in range(max(args.rounds, 1))]
    rows = {name: {system: [min(r[name][system][0] for r in rounds),
                            min(r[name][system][1] for r in rounds),
                            max(r[name][system][2] for r in rounds)] for system in extractors}
            for name in per_dataset}
    totals = {system: [sum(r[system][i] for r in rows.values()) for i in range(3)]
              for system in extractors}
    report += table(len(pages), totals) + "\n\n" + by_dataset(
        rows, {name: len(found) for name, found in per_dataset.items()}) + "\n"
    if args.stages:
        report += "\n" + stage_times(pages) + "\n"
    print(report)
    if args.profile:
        print(profile(pages, args.profile))
    if args.out:
        Path(args.out).write_text(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
