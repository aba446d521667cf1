"""``grist templates``: cluster pages by template (seed 002) and print, and save, what was learnt.

Pages come from files, folders, URLs, JSON-lines or WARC files (``grist.io.sources``); pages
with a URL are clustered per site (host). Text output lists each cluster, its pages and template
paths; ``--format json`` writes one object per input page (``input``, ``site``, ``cluster``, or
its ``error``) and then one per cluster (``cluster``, ``site``, ``pages``, ``members``,
``template``). ``--save MODEL`` writes the site model for ``grist extract --site MODEL``, unless
no page could be read (the file there is kept).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

from grist.cli.values import output_file, whole
from grist.document import RawPage
from grist.io.sinks import Summary, counted, message_of, name_skipped, reason_of
from grist.io.sources import Skipped, Unreadable, expand
from grist.progress import progress
from grist.render.json_output import dumps
from grist.sites.model import DECISIONS, SiteConfig, SiteModel
from grist.sites.pages import GROUPINGS
from grist.sites.search import METHODS


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``templates`` subcommand."""
    parser = subparsers.add_parser(
        "templates",
        help="learn the templates of a site's pages (clusters and template paths)",
        description="Cluster pages by the DOM paths their templates share (seed 002: TEXT-MDL, "
        "TEXT-HASH or LSH) and print each cluster's template paths. A folder gives every file "
        "under it that is an HTML page, whatever its name (gzip-compressed too; the others are "
        "skipped and named); a .jsonl[.gz] file holds one page per line (html, url), a "
        ".warc[.gz] file a crawl's pages.",
    )
    parser.add_argument("inputs", nargs="+", metavar="PATH|URL|-", help="pages to learn from")
    parser.add_argument("--method", choices=METHODS, default=SiteConfig.method,
                        help=f"clustering (default: {SiteConfig.method})")
    parser.add_argument("--save", type=output_file, metavar="MODEL",
                        help="write the site model here (for grist extract --site MODEL); "
                        "when no page can be read, nothing is written and a model there is kept")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="output format (default: text)")
    parser.add_argument("--group-by", choices=GROUPINGS, default=SiteConfig.group_by,
                        help="cluster per host, per registrable domain, or all pages together "
                        f"(default: {SiteConfig.group_by})")
    parser.add_argument("--decide", choices=DECISIONS, default=SiteConfig.decide,
                        help="what extraction with the model changes: template+slots drops the "
                        "site's repeated text and keeps what the page method missed where it "
                        "keeps text on the site's other pages (fitting extracts every page with "
                        "auto, about 2-3x slower); template only drops; none changes nothing "
                        f"(default: {SiteConfig.decide})")
    parser.add_argument("--show", type=whole(0), default=15, metavar="N",
                        help="template paths shown per cluster in text output (default: 15)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    parser.set_defaults(func=run)


Failures = dict[str, tuple[str, str]]  # input -> (message, reason)


def _pages(inputs: list[str], order: list[str], failed: Failures, others: list[Skipped],
           quiet: bool) -> Iterator[RawPage]:
    """The readable pages of the inputs, in input order; every page's name goes to ``order``, an
    unreadable one's error to ``failed``, a folder's files that are not pages to ``others``."""
    sources, _ = expand(inputs)
    total = None if any(s.holds_many for s in sources) else len(sources)
    with progress(total=total, unit="page", quiet=quiet) as bar:
        for source in sources:
            for page in source.pages():
                bar.update()
                if isinstance(page, Skipped):
                    others.append(page)
                    continue
                order.append(page.input)
                if isinstance(page, Unreadable):
                    failed[page.input] = (message_of(page.error), reason_of(page.error))
                else:
                    yield page


def _text(model: SiteModel, show: int) -> str:
    lines = []
    for record in model.describe():
        where = record["site"] or "(no URL)"
        lines.append(f"cluster {record['cluster']}  {where}  {record['pages']} pages")
        members = record["members"]
        lines.append("  pages: " + ", ".join(members[:5])
                     + (f" and {len(members) - 5} more" if len(members) > 5 else ""))
        template = record["template"]
        lines.append(f"  template: {len(template)} paths on more than half of its pages")
        lines += [f"    {row['pages']:>4}  {row['path']}" for row in template[:show]]
        if len(template) > show:
            lines.append(f"    ... {len(template) - show} more (--show, or --format json)")
    return "\n".join(lines)


def _save(model: SiteModel, path: Path) -> bool:
    """Write the model to ``path``, unless no page could be read (a typo in the inputs): an
    empty model would replace a good one, and ``extract --site`` fall back without a word."""
    if model.n_pages_ == 0:
        kept = " (the file already there is kept)" if path.exists() else ""
        print(f"grist: error: no page could be read, so {path} is not written{kept}",
              file=sys.stderr)
        return False
    model.save(path)
    return True


def run(args: argparse.Namespace) -> int:
    """Fit a site model on the inputs and report it; 1 if a page could not be read, or if
    ``--save`` had no page to learn from (then nothing is written)."""
    summary = Summary("templates")
    order: list[str] = []
    failed: Failures = {}
    others: list[Skipped] = []
    model = SiteModel(method=args.method, group_by=args.group_by, decide=args.decide)
    model.fit(_pages(args.inputs, order, failed, others, args.quiet))
    summary.skipped_files = len(others)
    name_skipped(others, args.quiet)
    failed.update({e["input"]: (e["error"], e["reason"]) for e in model.errors_})
    cluster_of = {page: c.id for c in model.clusters_ for page in c.pages}
    site_of = {c.id: c.group for c in model.clusters_}
    for name in order:
        if name in failed:
            summary.errors[failed[name][1]] += 1
            print(f"grist: error: {name}: {failed[name][0]}", file=sys.stderr)
        else:
            summary.results += 1
    saved = args.save is None or _save(model, args.save)
    if args.format == "json":
        for name in order:
            if name in failed:
                row = {"input": name, "cluster": None, "error": failed[name][0],
                       "reason": failed[name][1]}
            else:
                row = {"input": name, "site": site_of[cluster_of[name]],
                       "cluster": cluster_of[name]}
            print(dumps(row))
        for record in model.describe():
            print(dumps(record))
    elif model.clusters_:
        print(_text(model, args.show))
    print(f"{summary.line()}; {counted(len(model.clusters_), 'cluster')}", file=sys.stderr)
    return 1 if failed or not saved else 0
