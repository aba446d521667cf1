"""Evaluate grist's ``lineblock`` method (seed 004) in its variants: mean LCS F1 and pages/s.

Usage:
  nice python benchmarks/lineblock_eval.py --datasets cleaneval-final l3s-gn1 [--limit N]
      [--variants default paper-literal ...] [--lambdas 0.5 1 1.5]

Each variant is a LineBlockConfig; ``--lambdas`` adds a τ = λσ variant per value and rule, built on
the ``--base`` variant.
Prints a Markdown table (one row per dataset and variant) with the mean word-level LCS precision,
recall and F1 over pages (seed 004 §E) and the extraction speed (metric time excluded). A page
that raises a grist error counts as an empty extraction.
"""

from __future__ import annotations

import argparse
import platform
import time
from dataclasses import replace
from datetime import date
from pathlib import Path

import numpy as np

from grist import __version__
from grist.api import Extractor
from grist.errors import GristError
from grist.evaluate.datasets import read_jsonl
from grist.evaluate.metrics import lcs_prf
from grist.methods.lineblock import LineBlockConfig
from grist.segment.lines import LineConfig

FIXED = LineBlockConfig(sigma_lambda=None)

VARIANTS: dict[str, LineBlockConfig] = {
    "default": LineBlockConfig(),
    # Everything as literal as the paper allows: source lines, 30 / 0.2 / 2 joined by AND.
    "paper-literal": LineBlockConfig.paper(),
    "fixed-all": replace(FIXED, rule="all"),
    "fixed-rescue": FIXED,
    "fixed-rescue-gap0": replace(FIXED, lines=LineConfig(max_gap=0)),
    "fixed-rescue-src": replace(FIXED, lines=replace(LineBlockConfig.paper().lines, max_gap=1)),
    "fixed-rescue-both": replace(FIXED, lines=LineConfig(max_gap=1, break_at_newlines=True)),
}


def evaluate(pages: list, config: LineBlockConfig) -> dict[str, float]:
    """Mean P/R/F1 over pages, pages/s of the extraction and the number of failing pages."""
    extractor = Extractor(method="lineblock", config=config)
    scores, errors, seconds = [], 0, 0.0
    for page in pages:
        started = time.perf_counter()
        try:
            text = extractor(page.html, page.url).text
        except GristError:
            text, errors = "", errors + 1
        seconds += time.perf_counter() - started
        scores.append(lcs_prf(text, page.gold))
    mean = np.mean(np.array(scores, dtype=np.float64), axis=0)
    return {
        "precision": float(mean[0]),
        "recall": float(mean[1]),
        "f1": float(mean[2]),
        "pages_per_s": len(pages) / seconds if seconds else float("inf"),
        "errors": errors,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets-dir", default="../shared/datasets")
    parser.add_argument("--datasets", nargs="+", default=["cleaneval-final", "l3s-gn1"])
    parser.add_argument("--limit", type=int, default=None, help="first N pages of each dataset")
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--lambdas", nargs="*", type=float, default=[])
    parser.add_argument("--base", default="default", choices=list(VARIANTS),
                        help="variant the --lambdas variants start from")
    args = parser.parse_args()

    variants = {name: VARIANTS[name] for name in args.variants}
    for lam in args.lambdas:
        for rule in ("all", "rescue"):
            variants[f"{args.base}+sigma{lam:g}-{rule}"] = replace(
                VARIANTS[args.base], sigma_lambda=lam, rule=rule
            )
    print(f"# lineblock evaluation, {date.today()}, grist {__version__}, "
          f"Python {platform.python_version()}, {platform.machine()}")
    print(f"# command: python benchmarks/lineblock_eval.py {' '.join(_argv_tail())}\n")
    print("| dataset | pages | variant | precision | recall | F1 | pages/s | errors |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for name in args.datasets:
        path = Path(args.datasets_dir) / f"{name}.jsonl.gz"
        pages = list(read_jsonl(path, limit=args.limit))
        for variant, config in variants.items():
            r = evaluate(pages, config)
            print(
                f"| {name} | {len(pages)} | {variant} | {r['precision']:.4f} | {r['recall']:.4f} "
                f"| {r['f1']:.4f} | {r['pages_per_s']:.1f} | {r['errors']} |",
                flush=True,
            )


def _argv_tail() -> list[str]:
    import sys

    return sys.argv[1:]


if __name__ == "__main__":
    main()
