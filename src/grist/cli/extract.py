"""``grist extract``: the main content of pages given as files, folders, URLs, JSON lines, a
list of inputs (``-i``) or stdin.

One input prints its result (or one ``grist: error:`` line and exit status 1). Several inputs, a
folder or a JSON-lines file form a batch: a progress bar on stderr, one error record per failing
page while the batch goes on, a one-line summary at the end, and exit status 1 if any page failed.
A reader that closes stdout (``| head``) stops a batch quietly, with that summary and status.
A folder's files that are not HTML pages are skipped, each named on stderr with the reason.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from itertools import repeat
from pathlib import Path
from typing import TYPE_CHECKING

from grist.api import Extractor
from grist.batch.cores import default_jobs
from grist.cli.options import (add_executor_options, add_input_list_option, add_output_options,
                               named_inputs, output_options)
from grist.cli.values import SECONDS, output_folder
from grist.crosspage import CrossPageModel
from grist.document import RawPage
from grist.errors import GristError
from grist.io.records import read_final
from grist.io.sinks import (PAGE_FIELDS, ResultSink, Summary, UnwritableOutput, json_line,
                            message_of, page_fields)
from grist.io.sources import Skipped, Source, Unreadable, expand, url_name
from grist.limits import Limits
from grist.methods import DEFAULT_METHOD, available_methods, method_config
from grist.progress import progress
from grist.render import FORMATS, csv_output

if TYPE_CHECKING:  # pragma: no cover
    from grist.batch.job import JobConfig, Shard


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``extract`` subcommand."""
    parser = subparsers.add_parser(
        "extract",
        help="extract the main content of pages (files, folders, URLs, JSON lines or - for stdin)",
        description="Extract the main content of web pages. A folder gives every file under it "
        "that is an HTML page (gzip-compressed too; the others are skipped and named); a "
        ".jsonl[.gz] file holds one page per line (fields html, url), and so does stdin (-) "
        "when it starts with {; a .warc[.gz] file holds a crawl's pages (its HTML responses); "
        "several inputs are processed as a batch.",
    )
    parser.add_argument("inputs", nargs="*", metavar="PATH|URL|-", help="pages to extract")
    add_input_list_option(parser)
    parser.add_argument(
        "--url", help="the URL of the one file or stdin page (for links, images, metadata)"
    )
    parser.add_argument(
        "--method",
        default=DEFAULT_METHOD,
        help=f"extraction method: {', '.join(available_methods())} (default: {DEFAULT_METHOD})",
    )
    parser.add_argument(
        "--format", default="text", choices=tuple(FORMATS), help="output format (default: text)"
    )
    parser.add_argument(
        "--out", type=output_folder, metavar="DIR", help="write one file per page into DIR instead"
    )
    parser.add_argument(
        "--model", metavar="FILE", help="a model trained with `grist train` (methods auto, tree)"
    )
    parser.add_argument(
        "--site", metavar="MODEL", help="a site model from `grist templates --save MODEL`: its "
        "templates' blocks are dropped (pages of sites it does not know: page level, with a "
        "note); read in one process"
    )
    parser.add_argument(
        "--time-budget",
        type=SECONDS,
        default=Limits.time_budget,
        metavar="SECONDS",
        help=f"time allowed per page (default: {Limits.time_budget:g})",
    )
    add_output_options(parser)
    parser.add_argument(
        "--quiet", "-q", action="store_true",
        help="no progress bar and no notes (errors and a batch's closing summary line are shown)"
    )
    add_executor_options(parser, "one process; for WARC files every core")
    parser.set_defaults(func=run)


def _name(source: Source, label: str) -> str:
    """The output file stem of a page: its source's, or for a JSON-lines record its label's."""
    return f"{source.name}/{url_name(label.rsplit(':', 1)[-1])}" if source.kind == "jsonl" \
        else source.name


# Pages per shard of ``extract -j``: results are written a shard at a time, in input order, so
# smaller shards than grist batch's show the first results sooner and keep more of an
# interrupted run; a shard's own cost (a task message, two markers) is a few milliseconds.
EXTRACT_FILES_PER_SHARD = 50


class _ShardsInOrder:
    """Writes the finished shards of a batch folder through the sink in input order, each as
    soon as it and every shard before it are done (``.done`` markers; no deduplication, so a
    shard's final output is in place when its marker is), the files that are not pages (which
    the marker holds) named where they stood among its pages.

    A record's source is found by its place in the shard planned in job.json, not by the name
    the record gives (which JSON has made UTF-8: names that differ only in bytes that are not
    UTF-8 would be one)."""

    def __init__(self, folder: Path, config: JobConfig, sink: ResultSink,
                 by_path: dict[str, Source], fmt: str) -> None:
        self.folder, self.config, self.sink, self.by_path, self.fmt = (folder, config, sink,
                                                                        by_path, fmt)
        self.next = 0
        self.shards: list[Shard] | None = None  # the job's, read once the first one is done

    def write_ready(self) -> None:
        """Write every shard from the next one on that is done."""
        from grist.batch.job import JOB_FILE, Plan, shard_id
        from grist.batch.worker import ShardCounts, ShardFiles

        while (files := ShardFiles(self.folder, shard_id(self.next), self.config)).done.exists():
            if self.shards is None:
                self.shards = Plan.from_json((self.folder / JOB_FILE).read_text("utf-8")).shards
            shard = self.shards[self.next]
            skipped = ShardCounts.read(files.done).skipped_files
            # (a run of files gives one record per file, a JSON-lines or WARC file all of its own)
            files_run = shard.kind == "files"
            names = shard.inputs if files_run else repeat(shard.inputs[0])
            for record, name in zip(_in_input_order(read_final(files.final), skipped), names,
                                    strict=files_run):
                _write_record(self.sink, record, self.by_path.get(name), self.fmt)
            self.next += 1


def _in_input_order(records: Iterable[dict], skipped: list[dict]) -> Iterator[dict]:
    """A shard's page records with its skipped files' records put back among them, each before
    the page line its ``line`` numbers (``grist.batch.worker.skipped_record``)."""
    pending = deque(skipped)
    for line, record in enumerate(records):
        while pending and pending[0]["line"] <= line:
            yield pending.popleft()
        yield record
    yield from pending


def _ended(summary: Summary, batch: Callable[[], None]) -> int:
    """Run ``batch`` and end it with its summary line on stderr however it stops: a reader that
    closed stdout (``| head``) stops it quietly, an error that stops it (an --out folder that
    cannot be written) is said first. Returns 1 if a page failed or an error stopped it."""
    failed = False
    try:
        batch()
    except BrokenPipeError:
        summary.notes.append("stopped: stdout was closed")
    except UnwritableOutput as exc:
        print(f"grist: error: {exc}", file=sys.stderr)
        summary.notes.append("stopped by the error above")
        failed = True
    print(summary.line(), file=sys.stderr)
    return 1 if failed or summary.errors else 0


def _run_parallel(args: argparse.Namespace, sources: list[Source], summary: Summary) -> None:
    """A batch on ``-j`` worker processes (grist batch's executor, into a temporary folder),
    written in input order as the one-process path writes it, shard by shard as they finish
    (the executor is imported here: one page in one process does not need it)."""
    from grist.batch.job import JobConfig, absolute
    from grist.batch.run import BatchOptions, run_job, skipped_note
    from grist.batch.worker import NOT_A_PAGE

    config = JobConfig(method=args.method, model=args.model, time_budget=args.time_budget,
                       page_timeout=3 * args.time_budget, text_format=args.format,
                       options=output_options(args))
    # (as the plan names them; a WARC record is named by its own)
    by_path = {absolute(s.location): s for s in sources if s.kind not in ("url", "warc")}
    counted = Summary("extract")
    with tempfile.TemporaryDirectory(prefix="grist-extract-") as folder, \
            progress(unit="page", quiet=args.quiet) as bar:
        sink = ResultSink(args.format, args.out, True, bar, args.quiet, summary)
        shards = _ShardsInOrder(Path(folder), config, sink, by_path, args.format)

        def page_done(reason: str | None) -> None:
            bar.update()
            shards.write_ready()

        run_job(sources, config, Path(folder),
                BatchOptions(jobs=args.jobs or default_jobs(),
                             files_per_shard=EXTRACT_FILES_PER_SHARD), counted, page_done)
        del counted.skipped[NOT_A_PAGE]  # (named one by one through the sink instead)
        if counted.skipped:  # WARC records that are not pages
            summary.notes.append(skipped_note(counted.skipped))
        shards.write_ready()


def _write_record(sink: ResultSink, record: dict, source: Source | None, fmt: str) -> None:
    """One batch record (a page's, or a skipped file's) through the sink, as the one-process
    path would have written it."""
    label = record["input"]
    if source is not None and label.startswith(record["source"]):  # named as the user did
        label = source.input + label[len(record["source"]):]
    if "skipped" in record:
        sink.skipped(label, record["skipped"])
        return
    fields = {key: record[key] for key in PAGE_FIELDS if key in record}
    if "error" in record:
        error = GristError(record["error"])
        error.reason = record["reason"]
        sink.error(label, error, fields)
        return
    text = record["text"]
    if fmt == "json" and sink.out is None:
        text = json_line(label, fields, json.loads(text))
    elif fmt == "csv":  # the input named; on stdout one table, the header once
        text = csv_output.with_input(text, label, header=sink.out is not None or not sink.printed)
    name = _name(source, label) if source else url_name(label)
    notes = [f"nothing extracted: {record['empty_reason']}"] if "empty_reason" in record else []
    sink.rendered(label, name, text, notes + record.get("warnings", []))


def _sources(args: argparse.Namespace, inputs: list[str]) -> tuple[list[Source], bool]:
    """The sources of the inputs, and whether they form a batch; ``--url`` checked."""
    sources, batch = expand(inputs)
    if args.input_list:
        batch = True
    if args.url and (len(sources) != 1 or sources[0].kind not in ("file", "stdin")):
        raise GristError("--url sets the URL of one page read from a file or stdin")
    return sources, batch


def _site_model(path: str | None) -> CrossPageModel | None:
    """The site model of ``--site`` (read before any page, so a bad file stops at once)."""
    if path is None:
        return None
    from grist.sites.model import SiteModel

    return SiteModel.load(path)


def run(args: argparse.Namespace) -> int:
    """Extract every input; returns 1 if a page failed, else 0."""
    inputs = named_inputs(args, "pages, folders, URLs, - for stdin")
    site = _site_model(args.site)
    sources, batch = _sources(args, inputs)  # (once: a folder is walked, stdin looked at)
    crawl = any(s.kind == "warc" for s in sources)
    if site is not None and crawl:
        raise GristError("--site reads pages in one process and WARC files go to the batch "
                         "executor: use grist batch --site-aware for a crawl")
    summary = Summary("extract")
    if crawl or (args.jobs and args.jobs > 1 and site is None and batch and all(
            s.location != "-" for s in sources)):  # (WARC goes to the batch executor; stdin is
        return _ended(summary, partial(_run_parallel, args, sources, summary))  # read here)
    extractor = Extractor(
        method=args.method,
        config=method_config(args.method, args.model),
        limits=Limits(time_budget=args.time_budget),
        **{option: True for option in output_options(args)},
    )
    if args.out is not None:
        try:
            args.out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise GristError(f"cannot create {args.out}: {exc.strerror or exc}") from None
    pages = partial(_extract_pages, args, sources, batch, extractor, site, summary)
    if not batch:
        pages()
        return 0
    return _ended(summary, pages)


def _extract_pages(args: argparse.Namespace, sources: list[Source], batch: bool,
                   extractor: Extractor, site: CrossPageModel | None, summary: Summary) -> None:
    """Extract and write every page in one process: a batch writes a page's failure as its
    record and goes on; one page's failure is raised as a GristError naming the input."""
    total = None if any(s.holds_many for s in sources) else len(sources)
    with progress(total=total, unit="page", quiet=args.quiet or not batch) as bar:
        sink = ResultSink(args.format, args.out, batch, bar, args.quiet, summary)
        for source in sources:
            for page in source.pages(extractor.limits):
                if isinstance(page, Skipped):
                    sink.skipped(page.input, page.reason)
                    bar.update()
                    continue
                fields = page_fields(page if isinstance(page, RawPage) else None, page.url,
                                     page.date)
                try:
                    if isinstance(page, Unreadable):
                        raise page.error
                    result = extractor(page, url=args.url, site=site)
                except Exception as exc:  # noqa: BLE001 - one bad page never stops a batch
                    if not batch:
                        raise GristError(f"{source.input}: {message_of(exc)}") from None
                    sink.error(page.input, exc, fields)
                else:
                    sink.result(page.input, _name(source, page.input), result, fields)
                bar.update()
