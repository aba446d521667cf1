"""``grist batch``: extract a crawl (WARC files, JSON lines, folders of pages) on every core or a
Ray cluster, into one output per shard, resumable after a kill, with a one-line summary."""

from __future__ import annotations

import argparse
import sys

from grist.batch.job import OUTPUT_FORMATS, JobConfig
from grist.batch.run import BatchOptions, default_jobs, run_job
from grist.cli.options import (add_executor_options, add_input_list_option, add_output_options,
                               named_inputs, output_options)
from grist.cli.values import COUNT, SECONDS, SIMILARITY, output_folder
from grist.io.sinks import Summary
from grist.limits import Limits
from grist.methods import DEFAULT_METHOD, available_methods
from grist.progress import progress


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``batch`` subcommand."""
    parser = subparsers.add_parser(
        "batch", help="extract a crawl (WARC, JSON lines, folders) on every core or a Ray cluster",
        description="Extract every page of WARC(.gz) files, JSON-lines files and folders of pages "
        "into one output file per shard under --out. Rerun the same command after an "
        "interruption to resume: every page ends up in the output exactly once.")
    parser.add_argument("inputs", nargs="*", metavar="PATH|URL",
                        help="WARC(.gz) files, .jsonl[.gz] files, folders, page files or URLs")
    add_input_list_option(parser)
    parser.add_argument("--out", type=output_folder, required=True, metavar="DIR",
                        help="output folder (the job's state lives here too)")
    add_executor_options(parser)
    parser.add_argument("--executor", choices=("local", "ray"), default="local",
                        help="local worker processes, or one Ray task per shard")
    parser.add_argument("--ray-address", metavar="ADDRESS",
                        help="the Ray cluster to join (default: RAY_ADDRESS, else a local Ray)")
    parser.add_argument("--method", default=DEFAULT_METHOD,
                        help=f"extraction method: {', '.join(available_methods())}")
    parser.add_argument("--model", metavar="FILE", help="a model trained with `grist train`")
    parser.add_argument("--plugin", action="append", default=[], metavar="MODULE",
                        help="a module every worker imports first (to register own methods)")
    parser.add_argument("--output-format", choices=OUTPUT_FORMATS, default="jsonl",
                        help="format of each shard's output (default: jsonl)")
    parser.add_argument("--text-format", choices=("text", "markdown", "html"), default="text",
                        help="how the text field is written (default: text)")
    parser.add_argument("--time-budget", type=SECONDS, default=Limits.time_budget,
                        metavar="SECONDS", help="time a page may take inside the extraction")
    parser.add_argument("--page-timeout", type=SECONDS, metavar="SECONDS",
                        help="hard limit after which a page's worker is killed and replaced "
                        "(default: 3 x the time budget)")
    parser.add_argument("--files-per-shard", type=COUNT, default=500, metavar="N",
                        help="page files per shard (each WARC or JSON-lines file is one shard)")
    parser.add_argument("--dedup", nargs="?", const="mark", choices=("mark", "drop"),
                        help="find near-duplicate documents across the whole run and mark them "
                        "(duplicate_of) or drop them (default when given: mark)")
    parser.add_argument("--dedup-threshold", type=SIMILARITY, default=JobConfig.dedup_threshold,
                        metavar="J", help="Jaccard similarity of word shingles for --dedup")
    parser.add_argument("--site-aware", action="store_true",
                        help="fit a site model per host with enough pages, then extract with it")
    parser.add_argument("--site-min-pages", type=COUNT, default=JobConfig.site_min_pages,
                        metavar="N", help="pages a host needs for its own site model")
    parser.add_argument("--site-model", metavar="MODULE:CLASS",
                        help="the site model class, with --site-aware "
                        "(default: grist.sites:SiteModel)")
    add_output_options(parser)
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run or resume the job; exit status 1 if any page failed."""
    if args.site_model and not args.site_aware:
        args.command_parser.error("--site-model needs --site-aware (it is the class of the "
                                  "site models that --site-aware fits)")
    config = JobConfig(
        method=args.method, model=args.model, time_budget=args.time_budget,
        page_timeout=args.page_timeout or 3 * args.time_budget,
        text_format=args.text_format, output_format=args.output_format, dedup=args.dedup,
        dedup_threshold=args.dedup_threshold, site_aware=args.site_aware,
        site_min_pages=args.site_min_pages, site_model=args.site_model,
        plugins=tuple(args.plugin), options=output_options(args))
    options = BatchOptions(jobs=args.jobs or default_jobs(), executor=args.executor,
                           files_per_shard=args.files_per_shard, ray_address=args.ray_address)
    summary = Summary("batch")
    with progress(unit="page", quiet=args.quiet, desc="batch") as bar:
        run_job(named_inputs(args, "WARC files, JSON-lines files, folders, pages or URLs"),
                config, args.out, options, summary, lambda reason: bar.update())
    print(summary.line(), file=sys.stderr)
    return 1 if summary.errors else 0
