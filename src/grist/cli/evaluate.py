"""``grist eval``: word-level LCS precision, recall and F1 of one method on one dataset."""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Iterable

from grist.api import Extractor
from grist.cli.values import COUNT
from grist.progress import progress
from grist.errors import DatasetError, GristError
from grist.io.datasets import DEFAULT_DATASETS_DIR, Page, read_dataset, resolve_dataset
from grist.evaluate.metrics import PRF, lcs_prf
from grist.methods import DEFAULT_METHOD


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``eval`` subcommand."""
    parser = subparsers.add_parser(
        "eval",
        help="score a method on a dataset (word-level LCS precision/recall/F1)",
        description="Extract every page of DATASET with METHOD and print word-level LCS "
        "precision, recall and F1 per page (seed 004 §E, seed 003 Eq. 1-3), then the mean "
        "over pages. A page grist cannot extract counts as an empty output.",
    )
    parser.add_argument(
        "dataset",
        help="a .jsonl(.gz) file, a folder of NAME.html + NAME.txt, a CleanEval folder "
        "(input/, GoldStandard/), or a dataset name in --datasets-dir",
    )
    parser.add_argument("--method", "-m", default=DEFAULT_METHOD, help="extraction method")
    parser.add_argument("--limit", type=COUNT, help="only the first N pages")
    parser.add_argument("--datasets-dir", default=str(DEFAULT_DATASETS_DIR),
                        help="where dataset names are looked up (default: %(default)s)")
    parser.add_argument("--quiet", "-q", action="store_true", help="print only the mean")
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    """Run the evaluation and print the scores; 0 even when some pages failed (they are counted),
    a DatasetError naming the dataset when it holds no page."""
    extractor = Extractor(method=args.method)
    path = resolve_dataset(args.dataset, args.datasets_dir)
    failures: dict[str, int] = {}
    pages = progress(read_dataset(path, args.limit), quiet=args.quiet, desc="eval", unit="page")
    scores = _scores(extractor, pages, failures, args.quiet)
    if not scores:
        raise DatasetError(f"{path}: no pages")
    p, r, f = (statistics.fmean(column) for column in zip(*scores))
    out = sys.stdout
    out.write(
        f"mean over {len(scores)} pages ({args.method}): "
        f"precision {p:.4f}  recall {r:.4f}  F1 {f:.4f}\n"
    )
    failed = sum(failures.values())
    detail = ", ".join(f"{reason} {n}" for reason, n in sorted(failures.items()))
    out.write(f"pages grist could not extract (scored as empty): {failed}")
    out.write(f" ({detail})\n" if failed else "\n")
    return 0


def _scores(extractor: Extractor, pages: Iterable[Page], failures: dict[str, int],
            quiet: bool) -> list[PRF]:
    """Every page's scores, each printed unless ``quiet`` (under a header, once there is a
    page); a page grist cannot extract scores as an empty output, its reason counted in
    ``failures``."""
    scores: list[PRF] = []
    for page in pages:
        try:
            text = extractor(page.html, page.url).text
        except GristError as exc:
            text = ""
            failures[exc.reason] = failures.get(exc.reason, 0) + 1
        score = lcs_prf(text, page.gold)
        if not quiet:
            if not scores:
                sys.stdout.write("page\tprecision\trecall\tf1\n")
            sys.stdout.write(f"{page.id}\t{score.precision:.4f}\t{score.recall:.4f}\t"
                             f"{score.f1:.4f}\n")
        scores.append(score)
    return scores
