"""How many blocks the inspector finds on the page, per method, and what the page view costs.

For the first ``--pages`` pages of each dataset, extracts with each method, builds the inspector's
page view (``grist.service.view.page_view``) and locates every block (``locate_blocks``): by its
recorded text-node range, by text match, or not at all. Pages grist refuses are skipped.

    python benchmarks/inspector_locate.py [--pages 40] [--datasets modern-dev l3s-gn1]
        [--datasets-dir ../shared/datasets]
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import time
from pathlib import Path

import grist
from grist.service.view import locate_blocks, page_view

METHODS = ("auto", "justext", "tree", "lineblock", "tagscore")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=40)
    parser.add_argument("--datasets", nargs="+", default=["modern-dev", "l3s-gn1"])
    parser.add_argument("--datasets-dir", type=Path, default=Path("../shared/datasets"))
    args = parser.parse_args()
    pages = []
    for name in args.datasets:
        with gzip.open(args.datasets_dir / f"{name}.jsonl.gz", "rt", encoding="utf-8") as f:
            pages += [json.loads(line)["html"] for line in itertools.islice(f, args.pages)]
    print(f"{time.strftime('%Y-%m-%d')}; grist {grist.__version__}; {len(pages)} pages "
          f"(the first {args.pages} of {', '.join(args.datasets)})\n")
    print("| method | blocks | by text nodes | by text match | not found | view + locate ms/page |")
    print("|---|---:|---:|---:|---:|---:|")
    limits = grist.Limits(time_budget=60)
    for method in METHODS:
        totals = {"by_nodes": 0, "by_text": 0, "unmapped": 0}
        seconds, done = 0.0, 0
        for html in pages:
            try:
                result = grist.extract(html, method=method, limits=limits)
            except grist.GristError:
                continue
            started = time.process_time()
            view = page_view(result.document.html)
            _, counts = locate_blocks(result.blocks, view.texts)
            seconds += time.process_time() - started
            done += 1
            for key in totals:
                totals[key] += counts[key]
        blocks = sum(totals.values())
        print(f"| {method} | {blocks} | {totals['by_nodes']} | {totals['by_text']} | "
              f"{totals['unmapped']} | {seconds / max(done, 1) * 1e3:.1f} |", flush=True)


if __name__ == "__main__":
    main()
