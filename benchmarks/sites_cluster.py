"""Clustering quality of TEXT-MDL, TEXT-HASH and LSH: adjusted Rand index against known sites.

Two mixed sets, clustered all together (no grouping by host, the seed's setting): the dev-set
sites with at least 5 pages (truth: the site), and a generated_sites.py file (truth: the
template). Every method runs under each reading of the paths, the non-content threshold and the
MDL cost, so the choices in docs/sites.md can be checked.

    flock /tmp/grist-bench.lock nice -n 10 .venv/bin/python benchmarks/sites_cluster.py \\
        --datasets-dir ../shared/datasets --generated build/generated-sites.jsonl.gz \\
        --out docs/benchmarks/sites-cluster.md
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from sklearn.metrics import adjusted_rand_score

from grist.document import RawPage
from grist.sites.pages import PagePaths, read_page
from grist.sites.pathsets import PathSets
from grist.sites.search import ClusterConfig, cluster

sys.path.insert(0, str(Path(__file__).parent))
from sites_common import dev_sites, provenance, read_generated, report  # noqa: E402

# (paths, fold digits, threshold, MDL reading): the default first, then one change at a time
READINGS = [
    ("blocks", False, "mode-shared", "delta"),
    ("blocks", False, "shared", "delta"),
    ("blocks", False, "mode", "delta"),
    ("blocks", True, "mode-shared", "delta"),
    ("nodes", False, "mode-shared", "delta"),
    ("nodes", False, "mode-equal", "delta"),
    ("nodes", False, "mode-equal", "literal"),
    ("blocks", False, "mode-shared", "literal"),
]


def read(pages: list[tuple[RawPage, str]], reading: str, fold: bool
         ) -> tuple[list[PagePaths], list[str]]:
    """Path sets of the readable pages and their true labels."""
    out, truth = [], []
    for page, label in pages:
        read_ = read_page(page, reading, fold, "none")
        if isinstance(read_, PagePaths):
            out.append(read_)
            truth.append(label)
    return out, truth


def evaluate(name: str, pages: list[tuple[RawPage, str]], methods: list[str],
             mdl_limit: int) -> list[str]:
    lines = [f"## {name}: {len(pages)} pages, {len(set(t for _, t in pages))} true groups", "",
             "| paths | fold digits | threshold | cost | method | clusters | ARI | priced "
             "pairs | CPU s |", "|---|---|---|---|---|---:|---:|---:|---:|"]
    for paths, fold, threshold, reading in READINGS:
        read_, truth = read(pages, paths, fold)
        sets = PathSets.build([p.hashes for p in read_])
        non_content = sets.non_content(threshold)
        for method in methods:
            if method == "mdl" and len(read_) > mdl_limit:
                continue
            started = time.process_time()
            found = cluster(non_content, sets.hashes, ClusterConfig(method=method,
                                                                    reading=reading))
            seconds = time.process_time() - started
            ari = adjusted_rand_score(truth, found.labels)
            lines.append(f"| {paths} | {fold} | {threshold} | {reading} | {method} | "
                         f"{len(found.templates)} | {ari:.3f} | {found.priced} | "
                         f"{seconds:.1f} |")
            print(lines[-1], file=sys.stderr)
    return lines + [""]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets-dir", type=Path, default=Path("../shared/datasets"))
    parser.add_argument("--generated", type=Path)
    parser.add_argument("--methods", nargs="+", default=["mdl", "hash", "lsh"])
    parser.add_argument("--mdl-limit", type=int, default=1500,
                        help="skip mdl on sets larger than this (its cost grows as n^2 or more)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    lines = ["# Site clustering quality (adjusted Rand index)", "",
             provenance(" ".join(["python", *sys.argv])), ""]
    real = [(RawPage(p.html, url=p.url, input=p.id), f"{dataset}/{site}")
            for (dataset, site), pages in dev_sites(args.datasets_dir).items() for p in pages]
    lines += evaluate("Dev-set sites with >= 5 pages, mixed", real, args.methods, args.mdl_limit)
    if args.generated:
        records = read_generated(args.generated)
        generated = [(RawPage(r["html"], url=r["url"], input=r["id"]), r["template"])
                     for r in records]
        lines += evaluate(f"Generated sites ({args.generated.name})", generated, args.methods,
                          args.mdl_limit)
    return report(lines, args.out)


if __name__ == "__main__":
    sys.exit(main())
