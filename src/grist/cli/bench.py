"""``grist bench``: grist's methods and the peer extractors on every dataset, side by side."""

from __future__ import annotations

import argparse
import datetime
import os
import shlex
import sys
import time
from pathlib import Path

from grist.cli.values import COUNT, SECONDS, output_folder, whole
from grist.errors import ConfigError, DatasetError
from grist.evaluate.bench import run_bench
from grist.io.datasets import DEFAULT_DATASETS_DIR, page_datasets, resolve_dataset
from grist.evaluate.peers import PEERS
from grist.evaluate.report import (
    console_tables,
    diff_text,
    markdown,
    page_scores_json,
    plots,
    to_json,
    versions,
    worst_pages,
)
from grist.evaluate.systems import GRIST_PREFIX, system_available
from grist.optional import MissingExtraError

DEFAULT_METHODS = ("justext", "lineblock", "tagscore", "auto")
QUICK_PAGES = 8  # per dataset in --quick


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``bench`` subcommand."""
    parser = subparsers.add_parser(
        "bench",
        help="benchmark grist's methods and the peer extractors on the datasets",
        description="Run every system on every dataset (each system in its own process), score "
        "with shingle and word-LCS P/R/F1 (bootstrap CIs), time per page, measure peak RSS, "
        "and write Markdown + JSON + PNG plots.",
    )
    parser.add_argument("--datasets-dir", default=str(DEFAULT_DATASETS_DIR),
                        help="where dataset names are looked up (default: %(default)s)")
    parser.add_argument(
        "--datasets", nargs="+",
        help="names, files or folders (default: every *.jsonl.gz of pages in DIR; files whose "
        "records have no html, such as metadata gold, are skipped with a note)"
    )
    parser.add_argument("--methods", nargs="*", help=f"grist methods (default: {', '.join(DEFAULT_METHODS)}, those "
                        "this build has)")
    parser.add_argument("--peers", nargs="*", help=f"peers (default: all of {', '.join(PEERS)})")
    parser.add_argument("--quick", action="store_true", help=f"first {QUICK_PAGES} pages each")
    parser.add_argument("--limit", type=COUNT, help="first N pages of each dataset")
    parser.add_argument("--jobs", type=COUNT, default=min(2, os.cpu_count() or 1),
                        help="worker processes (default: %(default)s)")
    parser.add_argument("--timeout", type=SECONDS, default=20.0, help="seconds per page")
    parser.add_argument("--rounds", type=COUNT, default=1000, help="bootstrap resamples")
    parser.add_argument("--worst", type=whole(0), default=0, metavar="N",
                        help="list the N pages where each method loses most to the best peer")
    parser.add_argument("--out", type=output_folder, default="docs/benchmarks",
                        help="report folder")
    parser.add_argument(
        "--name", help="report file name without suffix (default: bench-DATE, bench-DATE-quick)"
    )
    parser.add_argument("--scores-dir", default="build/bench", help="per-page scores folder")
    parser.set_defaults(func=handle)


def _systems(args: argparse.Namespace) -> tuple[list[str], list[str], list[str]]:
    """Systems to run, grist methods among them, and notes on the ones skipped."""
    explicit_methods = args.methods is not None
    methods = args.methods if explicit_methods else list(DEFAULT_METHODS)
    peers = args.peers if args.peers is not None else list(PEERS)
    unknown = [peer for peer in peers if peer not in PEERS]
    if unknown:  # (a typo must not drop a peer from the comparison unseen)
        raise ConfigError(f"unknown peer {', '.join(map(repr, unknown))}; the peers are: "
                          f"{', '.join(PEERS)}")
    systems, grist_systems, notes = [], [], []
    for name in [GRIST_PREFIX + m for m in methods] + peers:
        reason = system_available(name)
        if reason is None:
            systems.append(name)
            if name.startswith(GRIST_PREFIX):
                grist_systems.append(name)
        elif explicit_methods or not name.startswith(GRIST_PREFIX) or args.peers is not None:
            notes.append(f"skipped {name}: {reason}")
        else:
            notes.append(f"skipped {name}: not available in this build")
    return systems, grist_systems, notes


def _dataset_paths(args: argparse.Namespace) -> list[Path]:
    if args.datasets:
        return [resolve_dataset(d, args.datasets_dir) for d in args.datasets]
    found, others = page_datasets(args.datasets_dir)
    for path in others:
        print(f"grist bench: skipped {path.name}: its records have no html (not a page dataset)",
              file=sys.stderr)
    if not found:
        raise DatasetError(f"no *.jsonl.gz datasets of pages in {args.datasets_dir}")
    return found


def handle(args: argparse.Namespace) -> int:
    """Run the suite, print the tables and write the reports."""
    paths = _dataset_paths(args)
    systems, grist_systems, notes = _systems(args)
    for note in notes:
        print(f"grist bench: {note}", file=sys.stderr)
    if not systems:
        raise DatasetError("no system to benchmark")
    limit = QUICK_PAGES if args.quick and args.limit is None else args.limit
    started = time.perf_counter()
    golds, results = run_bench(
        systems, paths, limit, args.jobs, args.timeout, args.rounds,
        keep_texts_of=frozenset(grist_systems) if args.worst else frozenset(),
    )
    wall = time.perf_counter() - started
    print(console_tables(golds, results))
    worst = worst_pages(results, grist_systems, args.worst) if args.worst else []
    for w in worst:
        gold = next(g.gold for g in golds[w["dataset"]] if g.id == w["id"])
        print(f"\n== {w['method']} on {w['dataset']}/{w['id']}: F1 {w['f1']:.3f}, "
              f"{w['peer']} {w['peer_f1']:.3f}")
        print(diff_text(results[w["method"]].texts[(w["dataset"], w["id"])], gold))
    now = datetime.datetime.now().astimezone()
    meta = {
        "date": now.isoformat(timespec="seconds"),
        "command": "grist " + shlex.join(sys.argv[1:]),
        "quick": bool(limit),
        "limit": limit,
        "jobs": args.jobs,
        "cpus": os.cpu_count(),
        "wall_s": wall,
        "datasets": [str(p) for p in paths],
        "versions": versions(results),
        "notes": notes,
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / (args.name or f"bench-{now:%Y-%m-%d}{'-quick' if limit else ''}")
    try:
        images = plots(results, list(golds), stem)
    except MissingExtraError as exc:
        images = []
        print(f"note: no plots written: {exc}", file=sys.stderr)
    stem.with_suffix(".md").write_text(markdown(meta, golds, results, worst, images))
    stem.with_suffix(".json").write_text(to_json(meta, results, worst))
    scores = Path(args.scores_dir)
    scores.mkdir(parents=True, exist_ok=True)
    (scores / (stem.name + "-pages.json")).write_text(page_scores_json(results))
    print(f"wrote {stem.with_suffix('.md')}, {stem.with_suffix('.json')} and "
          f"{len(images)} plots in {wall:.0f} s", file=sys.stderr)
    return 0
