"""``grist train DATA... --out model.file``: learn ``auto`` (or ``tree``) from pages with gold text.

DATA is a JSON-lines dataset (``.jsonl``/``.jsonl.gz`` with ``html`` and ``gold``) or a folder of
``NAME.html`` + ``NAME.txt`` pairs. Use the result with ``grist extract --method auto --model FILE``
or ``AutoConfig(model_path=FILE)`` / ``TreeConfig(model_path=FILE)``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from grist.classify.boosted import AutoModel, TrainConfig
from grist.classify.tree import DecisionTree
from grist.cli.values import COUNT, output_file
from grist.errors import ModelError
from grist.features.auto import stage1_features
from grist.features.text import FEATURE_NAMES
from grist.io.datasets import read_dataset
from grist.progress import note, progress
from grist.train.build import BuildReport, label_pages


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "train", help="train auto or tree on labelled pages",
        description="Learn auto (or tree) from pages with gold text. DATA is a JSON-lines dataset "
        "(.jsonl or .jsonl.gz with html and gold fields) or a folder of NAME.html + NAME.txt "
        "pairs. Use the model with grist extract --model FILE (or "
        "AutoConfig(model_path=FILE) / TreeConfig(model_path=FILE) in Python).")
    parser.add_argument(
        "data", nargs="+",
        help="dataset files (.jsonl[.gz]), folders of NAME.html + NAME.txt, or CleanEval folders",
    )
    parser.add_argument("--method", choices=("auto", "tree"), default="auto",
                        help="the method to train (default: auto)")
    parser.add_argument("--out", type=output_file, required=True, help="model file to write")
    parser.add_argument("--limit", type=COUNT, default=None, help="pages per source at most")
    parser.add_argument("--rounds", type=COUNT, default=None,
                        help="boosting rounds of stage 1 (auto only; default: "
                        f"{TrainConfig.rounds})")
    parser.add_argument("--min-leaf", type=COUNT, default=None,
                        help="smallest leaf in blocks (default: auto 40, tree 1000)")
    parser.add_argument("--threads", type=COUNT, default=None,
                        help="threads LightGBM trains with (auto only; default: "
                        f"{TrainConfig.threads})")
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="no progress bar and no line per training stage")
    parser.set_defaults(func=handler)


def _stage(message: str) -> None:
    """Say which stage of the auto model's training starts (``AutoModel.fit``'s hook)."""
    note(f"grist: {message} ...")


# The options only auto's boosting takes, by their ``args`` name (None when not given).
_AUTO_ONLY = {"rounds": "--rounds", "threads": "--threads"}


def _refuse_options_of_other_methods(args: argparse.Namespace) -> None:
    """A usage error (exit 2) naming the options given that the chosen method does not take,
    before any page is read, rather than a model trained as if they had not been given."""
    given = [option for name, option in _AUTO_ONLY.items() if getattr(args, name) is not None]
    if args.method != "auto" and given:
        args.command_parser.error(f"{', '.join(given)}: only --method auto takes "
                                  f"{'them' if len(given) > 1 else 'it'}, not {args.method}")


def handler(args: argparse.Namespace) -> int:
    """Label the pages of every source, train the method on them and write the model."""
    _refuse_options_of_other_methods(args)
    started = time.perf_counter()
    report = BuildReport()
    pages = [
        p
        for source in args.data
        for p in label_pages(
            progress(read_dataset(source, args.limit), quiet=args.quiet, desc=f"labelling {source}",
                     unit="page"),
            report,
        )
    ]
    if not args.quiet:
        print(f"grist: training {args.method} on {len(pages)} pages ...", file=sys.stderr)
    for error in report.errors:
        print(f"grist: skipped {error}", file=sys.stderr)
    if not pages:
        raise ModelError("no usable labelled page in the training data")
    if args.method == "tree":
        width = len(FEATURE_NAMES)
        values = np.vstack([p.values[:, :width] for p in pages])
        labels = np.concatenate([p.labels for p in pages])
        tree = DecisionTree(min_leaf=args.min_leaf or 1000)
        tree.fit(values, labels, FEATURE_NAMES, values[:, FEATURE_NAMES.index("num_words")] + 1)
        tree.save(args.out)
    else:
        config = TrainConfig(rounds=args.rounds or TrainConfig.rounds,
                             min_leaf=args.min_leaf or TrainConfig.min_leaf,
                             threads=args.threads or TrainConfig.threads)
        names = stage1_features([], None).names
        AutoModel(config).fit(pages, names, None if args.quiet else _stage).save(args.out)
    blocks = sum(len(p.labels) for p in pages)
    print(f"trained {args.method} on {report.pages} pages ({blocks} blocks, {report.skipped} "
          f"skipped, gold coverage {report.mean_coverage:.3f}) in "
          f"{time.perf_counter() - started:.1f}s -> {args.out}", file=sys.stderr)
    return 0
