"""``grist extract``: the main content of pages given as files, folders, URLs, JSON lines or stdin.

One input prints its result (or one ``grist: error:`` line and exit status 1). Several inputs, a
folder or a JSON-lines file form a batch: a progress bar on stderr, one error record per failing
page while the batch goes on, a one-line summary at the end, and exit status 1 if any page failed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from grist.api import Extractor
from grist.errors import GristError
from grist.io.sources import Source, Unreadable, expand, url_name
from grist.io.sinks import ResultSink, Summary, message_of
from grist.limits import Limits
from grist.methods import DEFAULT_METHOD, available_methods, method_config
from grist.progress import progress
from grist.render import FORMATS


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``extract`` subcommand."""
    parser = subparsers.add_parser(
        "extract",
        help="extract the main content of pages (files, folders, URLs, JSON lines or - for stdin)",
        description="Extract the main content of web pages. A folder is searched recursively "
        "for *.htm* files; a .jsonl[.gz] file holds one page per line (fields html, url); "
        "several inputs are processed as a batch.",
    )
    parser.add_argument("inputs", nargs="+", metavar="PATH|URL|-", help="pages to extract")
    parser.add_argument(
        "--method",
        default=DEFAULT_METHOD,
        help=f"extraction method: {', '.join(available_methods())} (default: {DEFAULT_METHOD})",
    )
    parser.add_argument(
        "--format", default="text", choices=tuple(FORMATS), help="output format (default: text)"
    )
    parser.add_argument(
        "--out", type=Path, metavar="DIR", help="write one file per page into DIR instead"
    )
    parser.add_argument(
        "--model", metavar="FILE", help="a model trained with `grist train` (methods auto, tree)"
    )
    parser.add_argument(
        "--time-budget",
        type=float,
        default=Limits.time_budget,
        metavar="SECONDS",
        help=f"time allowed per page (default: {Limits.time_budget:g})",
    )
    parser.add_argument(
        "--quiet", action="store_true", help="no progress bar and no notes (errors are shown)"
    )
    _add_role_options(parser)
    parser.set_defaults(func=run)


# The text is the article's body; these put the blocks of other roles into it (methods that
# name roles, such as auto; the others are unaffected).
ROLE_OPTIONS = {
    "with_title": "also the article's title and subtitle (dek)",
    "with_byline": "also the bylines (author, date lines)",
    "with_captions": "also the captions and photo credits",
    "with_comments": "also the readers' comments",
}


def _add_role_options(parser: argparse.ArgumentParser) -> None:
    """``--with-title``, ``--with-byline``, ``--with-captions``, ``--with-comments``."""
    for option, help_text in ROLE_OPTIONS.items():
        parser.add_argument("--" + option.replace("_", "-"), action="store_true", help=help_text)


def _name(source: Source, label: str) -> str:
    """The output file stem of a page: its source's, or for a JSON-lines record its label's."""
    return f"{source.name}/{url_name(label.rsplit(':', 1)[-1])}" if source.kind == "jsonl" \
        else source.name


def run(args: argparse.Namespace) -> int:
    """Extract every input; returns 1 if a page failed, else 0."""
    extractor = Extractor(
        method=args.method,
        config=method_config(args.method, args.model),
        limits=Limits(time_budget=args.time_budget),
        **{option: getattr(args, option) for option in ROLE_OPTIONS},
    )
    sources, batch = expand(args.inputs)
    if args.out is not None:
        try:
            args.out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise GristError(f"cannot create {args.out}: {exc.strerror or exc}") from None
    summary = Summary("extract")
    total = None if any(s.kind == "jsonl" for s in sources) else len(sources)
    with progress(total=total, unit="page", quiet=args.quiet or not batch) as bar:
        sink = ResultSink(args.format, args.out, batch, bar, args.quiet, summary)
        for source in sources:
            for page in source.pages(extractor.limits):
                try:
                    if isinstance(page, Unreadable):
                        raise page.error
                    result = extractor(page)
                except Exception as exc:  # noqa: BLE001 - one bad page never stops a batch
                    if not batch:
                        print(f"grist: error: {source.input}: {message_of(exc)}", file=sys.stderr)
                        return 1
                    sink.error(page.input, exc)
                else:
                    sink.result(page.input, _name(source, page.input), result)
                bar.update()
    if batch:
        print(summary.line(), file=sys.stderr)
    return 1 if summary.errors else 0
