"""``grist stream``: the stream level (seed 003) from feeds, or replayed from stored pages.

    grist stream --feeds feeds.txt --state state.db --out pages.jsonl     # until stopped
    grist stream --feeds feeds.txt --state state.db --out pages/ --once   # for cron
    grist stream --replay pages.jsonl --out extracted.jsonl               # no network
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
import time
from pathlib import Path

from grist.cli.values import COUNT, SECONDS, existing_path, number, whole
from grist.errors import ConfigError
from grist.io.fetch import AsyncFetcher, FetchConfig
from grist.limits import Limits
from grist.stream.feeds import parse_duration
from grist.stream.hashing import DEFAULT_HASH, HASHES
from grist.stream.heuristics import heuristic
from grist.stream.pipeline import Processor, StreamConfig
from grist.io.sources import Unreadable
from grist.stream.replay import ORDERS, replay_pages
from grist.stream.runner import Runner
from grist.stream.sink import open_sink
from grist.stream.store import COUNTERS, NewItem, SqliteStore
from grist.stream.tree import Retention

DONE_BEFORE = "done_before"  # this run's count of stored pages already finished (not kept)
LABELS = {"feeds_polled": "feeds polled", "pages_fetched": "pages fetched",
          "duplicates": "duplicates dropped", "extracted": "extracted", "errors": "errors"}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "stream", help="extract pages arriving from RSS/Atom feeds with a URL Tree (seed 003)",
        description="Poll feeds, fetch new items, drop duplicates by URL key and extract each "
        "page with the URL Tree learning each site's repeated blocks; or replay stored pages "
        "through the same pipeline. State (queue, history, tree) lives in an SQLite file: "
        "stop or kill the process at any moment and rerun it to resume. Exit status 1 when a "
        "feed or an item got an error record in this run, else 0.")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--feeds", type=Path, metavar="FILE",
                        help="feed list: one feed (or home page) URL a line, optional every=15m "
                        "and reader=NAME")
    source.add_argument("--replay", type=existing_path, nargs="+", metavar="PAGES",
                        help="stored pages: JSON lines (html, url, optional date), WARC files "
                        "(the warc extra) or folders of them")
    parser.add_argument("--out", required=True, metavar="DIR|FILE.jsonl",
                        help="a .jsonl file (one object per page) or a folder (a file per page)")
    parser.add_argument("--state", metavar="DB",
                        help="SQLite state file (required with --feeds; with --replay, a rerun "
                        "resumes)")
    parser.add_argument("--once", action="store_true",
                        help="poll every feed once, process what was found, and exit")
    parser.add_argument("--order", choices=ORDERS, default="time",
                        help="replay order: by date (pages without one last) or as stored")
    parser.add_argument("--interval", type=_duration, default="15m",
                        help="default time between two polls of a feed (default 15m)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no status line")
    _tree_options(parser.add_argument_group("extraction and URL Tree"))
    _fetch_options(parser.add_argument_group("fetching"))
    parser.set_defaults(func=run)


def _tree_options(parser: argparse._ArgumentGroup) -> None:
    parser.add_argument("--method", default="auto", help="page-level method (default auto)")
    parser.add_argument("--heuristic", type=_heuristic, default="strict",
                        help="URL Tree heuristic: strict, strict-support-N, strict-at-domain, "
                        "relaxed-at-domain-N")
    parser.add_argument("--tree-alone", action="store_true",
                        help="the paper's algorithm: the tree judges every block itself")
    parser.add_argument("--hash", choices=HASHES, default=DEFAULT_HASH,
                        help="block hash (md5 is the paper's; fixed for a state file)")
    parser.add_argument("--url-rules", metavar="FILE",
                        help="URL-key query rules (default: the bundled seed 003 Table 1 file)")
    parser.add_argument("--max-docs", type=COUNT, default=Retention.max_docs,
                        help="documents the tree keeps per domain")
    parser.add_argument("--max-age", type=_duration, default="14d",
                        help="documents older than this leave the tree (default 14d)")
    parser.add_argument("--keep-recent", type=whole(0), default=Retention.keep_recent,
                        help="the most recent documents a domain always keeps")


def _fetch_options(parser: argparse._ArgumentGroup) -> None:
    parser.add_argument("--timeout", type=SECONDS, default=FetchConfig.timeout,
                        help="seconds a download may take")
    parser.add_argument("--host-delay", type=number(0), default=FetchConfig.host_delay,
                        help="seconds between two requests to one host")
    parser.add_argument("--host-concurrency", type=COUNT, metavar="N",
                        default=FetchConfig.host_concurrency,
                        help="requests to one host at once (default: %(default)s)")
    parser.add_argument("--retries", type=whole(0), default=FetchConfig.retries,
                        help="immediate retries of a request that failed in a way that may pass")
    parser.add_argument("--attempts", type=COUNT, default=StreamConfig.max_attempts,
                        help="tries of a page (spread over --retry-delay, doubling) before its "
                        "error record")
    parser.add_argument("--retry-delay", type=_duration, default="5m",
                        help="wait before trying a failed page again (default 5m)")
    parser.add_argument("--max-bytes", type=COUNT, default=FetchConfig.max_bytes,
                        help="largest page downloaded")
    parser.add_argument("--ignore-robots", action="store_true",
                        help="do not read robots.txt (only for sites you run)")


def _duration(text: str) -> float:
    """A duration option (``90s``, ``15m``, ``2h``, ``1d``) in seconds; a usage error if not one."""
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _heuristic(text: str) -> str:
    """A URL Tree heuristic's name, checked (``grist.stream.heuristics.heuristic``)."""
    try:
        heuristic(text)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _config(args: argparse.Namespace) -> StreamConfig:
    fetch = FetchConfig(timeout=args.timeout, max_bytes=args.max_bytes,
                        host_delay=args.host_delay, host_concurrency=args.host_concurrency,
                        retries=args.retries,
                        robots=not args.ignore_robots)
    return StreamConfig(method=args.method, heuristic=args.heuristic,
                        combine=not args.tree_alone, hash=args.hash, rules=args.url_rules,
                        retention=Retention(args.max_docs, args.max_age / 86_400,
                                            args.keep_recent),
                        fetch=fetch, limits=Limits(), interval=args.interval,
                        max_attempts=args.attempts, retry_delay=args.retry_delay)


class StatusLine:
    """This run's counts on one line of stderr, rewritten in place (a terminal only)."""

    def __init__(self, processor: Processor, store: SqliteStore, quiet: bool) -> None:
        self.processor, self.store = processor, store
        self.live = not quiet and sys.stderr.isatty()
        self.quiet = quiet
        self.shown = 0.0

    def text(self) -> str:
        counts = self.processor.session
        parts = [f"{LABELS[name]} {counts[name]}" for name in COUNTERS]
        if counts[DONE_BEFORE]:  # a replay's pages an earlier run finished, or one page twice
            parts.append(f"done before {counts[DONE_BEFORE]}")
        return " · ".join(parts)

    def __call__(self) -> None:
        if self.live and time.monotonic() - self.shown > 0.2:
            self.shown = time.monotonic()
            sys.stderr.write(f"\r\x1b[K{self.text()} · waiting {self.store.waiting()}")
            sys.stderr.flush()

    def warn(self, message: str) -> None:
        """A warning on its own line (the status line, when shown, is written again after it)."""
        sys.stderr.write(("\r\x1b[K" if self.live else "") + f"grist: warning: {message}\n")
        self.shown = 0.0

    def close(self) -> None:
        if self.quiet:
            return
        totals = self.store.counters()
        sys.stderr.write(("\r\x1b[K" if self.live else "") + f"this run: {self.text()}\n"
                         f"state: {totals['extracted']} extracted, {totals['duplicates']} "
                         f"duplicates, {totals['errors']} errors, {self.store.waiting()} "
                         "waiting\n")


def run(args: argparse.Namespace) -> int:
    if args.feeds and not args.state:
        raise ConfigError("--feeds needs --state DB (where the queue, history and tree live)")
    config = _config(args)
    store = SqliteStore(args.state or ":memory:", hash_name=config.hash)
    sink = open_sink(args.out, store.sink_offset)
    try:
        processor = Processor(store, sink, config)
        status = StatusLine(processor, store, args.quiet)
        try:
            if args.replay:
                replay(args.replay, args.order, store, processor, status)
            else:
                asyncio.run(live(args.feeds, args.once, store, processor, status))
        finally:
            status.close()
    finally:
        sink.close()
        store.close()
    return processor.exit_status()


def replay(paths: list[Path], order: str, store: SqliteStore, processor: Processor,
           status: StatusLine) -> None:
    """Stored pages through the pipeline; pages a previous run finished are skipped."""
    for page in replay_pages(paths, order):
        url = getattr(page, "url", None) or ""
        item = store.claim(NewItem("replay", page.input, url, None, getattr(page, "date", None)))
        if item is None:
            processor.session[DONE_BEFORE] += 1
            status()
            continue
        if isinstance(page, Unreadable):
            processor.failure(item, page.error, "input", source=page.input)
        else:
            processor.page(item, page, fetched=False)
        status()


async def live(feeds: Path, once: bool, store: SqliteStore, processor: Processor,
               status: StatusLine) -> None:
    if not feeds.exists():
        raise ConfigError(f"feed list not found: {feeds}")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(signum, stop.set)
    async with AsyncFetcher(processor.config.fetch) as fetcher:
        await Runner(store, processor, feeds, fetcher, status, status.warn).run(once, stop)

