"""Time and memory of TEXT-MDL, TEXT-HASH and LSH at 10 to 10,000 pages (seed 002 Table 2, at
scale), and the growth exponent of each.

The pages are a generated_sites.py file (many templates mixed), shuffled, and clustered all
together (no grouping by host: the hardest case, one clustering over every page). Reading a page
(parse, segment, paths) is timed apart from the clustering; clustering time is CPU time of one
process, its memory the peak of what it allocates (``tracemalloc``, NumPy arrays included, in a
second run: tracing slows Python code several times). Then
``SiteModel.fit`` is timed end to end with its defaults, with content slots (each page extracted
by ``auto``) and with the template rule alone (``decide="template"``: each page only parsed); its
memory is traced up to ``--trace-max`` pages. Sizes above ``--mdl-max`` are skipped for ``mdl``,
whose all-pairs pool grows as n^2.

    flock /tmp/grist-bench.lock nice -n 10 .venv/bin/python benchmarks/sites_cost.py \\
        --generated build/generated-10k.jsonl.gz --out docs/benchmarks/sites-cost.md
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np

from grist.document import RawPage
from grist.sites.model import SiteModel
from grist.sites.pages import PagePaths, read_page
from grist.sites.pathsets import PathSets
from grist.sites.search import ClusterConfig, cluster

sys.path.insert(0, str(Path(__file__).parent))
from sites_common import provenance, read_generated, report  # noqa: E402

T = TypeVar("T")


def exponent(sizes: list[int], values: list[float]) -> float:
    """Least-squares slope of log(value) over log(size)."""
    return float(np.polyfit(np.log(sizes), np.log(values), 1)[0])


def timed_and_traced(run: Callable[[], T], trace: bool = True) -> tuple[T, float, float]:
    """``run()``'s result, its CPU seconds, and (from a second call, under tracemalloc, which
    slows Python code several times) the peak MiB it allocates (NaN when not ``trace``)."""
    started = time.process_time()
    result = run()
    seconds = time.process_time() - started
    if not trace:
        return result, seconds, float("nan")
    tracemalloc.start()
    run()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return result, seconds, peak


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--generated", type=Path, required=True)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000, 10000])
    parser.add_argument("--methods", nargs="+", default=["mdl", "hash", "lsh"])
    parser.add_argument("--mdl-max", type=int, default=1000)
    parser.add_argument("--hash-max", type=int, default=10000)
    parser.add_argument("--threshold", default="mode-shared")
    parser.add_argument("--trace-max", type=int, default=1000,
                        help="trace SiteModel.fit's memory up to this many pages")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    records = read_generated(args.generated)
    random.Random(args.seed).shuffle(records)
    records = records[: max(args.sizes)]
    raws = [RawPage(r["html"], url=r["url"], input=r["id"]) for r in records]
    started = time.process_time()
    read = [read_page(p, "blocks", False, "none") for p in raws]
    reading = (time.process_time() - started) / len(raws)
    assert all(isinstance(r, PagePaths) for r in read)
    lines = ["# Site clustering cost (seed 002 Table 2 at scale)", "",
             provenance(" ".join(["python", *sys.argv])), "",
             f"{len(records)} generated pages of {len({r['template'] for r in records})} "
             f"templates; reading a page (parse, segment, paths, hashes) takes "
             f"{reading * 1000:.1f} ms of CPU on average.", "",
             "## Clustering only (all pages together, non-content threshold "
             f"`{args.threshold}`)", "",
             "| method | pages | clusters | priced pairs | CPU s | peak MiB |",
             "|---|---:|---:|---:|---:|---:|"]
    measured: dict[str, tuple[list[int], list[float], list[float]]] = {}
    for method in args.methods:
        limit = args.mdl_max if method == "mdl" else args.hash_max if method == "hash" else None
        for n in args.sizes:
            if limit is not None and n > limit:
                lines.append(f"| {method} | {n} | | | skipped (over --{method}-max) | |")
                continue
            sets = PathSets.build([r.hashes for r in read[:n]])
            non_content = sets.non_content(args.threshold)
            found, seconds, peak = timed_and_traced(
                lambda: cluster(non_content, sets.hashes, ClusterConfig(method=method)))
            sizes, times, peaks = measured.setdefault(method, ([], [], []))
            sizes.append(n)
            times.append(max(seconds, 1e-3))
            peaks.append(peak)
            lines.append(f"| {method} | {n} | {len(found.templates)} | {found.priced} | "
                         f"{seconds:.2f} | {peak:.1f} |")
            print(lines[-1], file=sys.stderr)
    lines += ["", "Growth exponents (least-squares slope of log cost over log pages, sizes from "
              "100 up):", "", "| method | time exponent | memory exponent |", "|---|---:|---:|"]
    for method, (sizes, times, peaks) in measured.items():
        keep = [i for i, n in enumerate(sizes) if n >= 100]
        if len(keep) >= 2:
            at = [sizes[i] for i in keep]
            lines.append(f"| {method} | {exponent(at, [times[i] for i in keep]):.2f} | "
                         f"{exponent(at, [peaks[i] for i in keep]):.2f} |")
    lines += ["", "## SiteModel.fit end to end (defaults: grouped by host, lsh)", "",
              "| decide | pages | sites | clusters | CPU s | ms per page | peak MiB |",
              "|---|---:|---:|---:|---:|---:|---:|"]
    for decide in ("template+slots", "template"):
        for n in args.sizes:
            model, seconds, peak = timed_and_traced(
                lambda: SiteModel(decide=decide).fit(raws[:n]), trace=n <= args.trace_max)
            lines.append(f"| {decide} | {n} | {len({c.group for c in model.clusters_})} | "
                         f"{len(model.clusters_)} | {seconds:.1f} | {1000 * seconds / n:.1f} | "
                         + (f"{peak:.1f} |" if peak == peak else "not traced |"))
            print(lines[-1], file=sys.stderr)
    return report(lines, args.out)


if __name__ == "__main__":
    sys.exit(main())
