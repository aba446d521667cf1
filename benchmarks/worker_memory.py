"""Does a batch worker's memory grow with the pages it has seen? The same WARC pages extracted
over and over by one worker's Extractor, resident memory read after every round.

Usage: python benchmarks/worker_memory.py WARC.gz... [--pages 120] [--rounds 8] [--method auto]
(for example the files ``benchmarks/batch_scale.py`` generates).
"""

from __future__ import annotations

import argparse
import contextlib
import sys

from grist.batch.job import JobConfig, Shard
from grist.batch.worker import build_extractor, shard_items
from grist.limits import Limits


def resident_mib() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("warcs", nargs="+")
    parser.add_argument("--pages", type=int, default=120)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--method", default="auto")
    args = parser.parse_args(argv)
    items = [item for path in args.warcs
             for item in shard_items(Shard("s", "warc", (path,)), Limits()) if item.page]
    pages = [item.page for item in items[: args.pages]]
    extractor = build_extractor(JobConfig(method=args.method))
    after = []
    for _ in range(args.rounds):
        for page in pages:
            with contextlib.suppress(Exception):
                extractor(page).text  # noqa: B018 - the text is part of the work
        after.append(resident_mib())
    print(f"{len(pages)} pages x {args.rounds} rounds, method {args.method}: resident MiB after "
          f"each round {[round(v, 1) for v in after]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
