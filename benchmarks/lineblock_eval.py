"""Evaluate grist's ``lineblock`` method (seed 004) in its variants: mean LCS F1 and pages/s.

Usage:
  nice python benchmarks/lineblock_eval.py --datasets cleaneval-final l3s-gn1 [--limit N]
      [--variants default paper-literal ...] [--lambdas 0.5 1 1.5]

Each variant is a LineBlockConfig; ``--lambdas`` adds a τ = λσ variant per value and rule, built on
the ``--base`` variant.
Prints a Markdown table (one row per dataset and variant) with the mean word-level LCS precision,
recall and F1 over pages (seed 004 §E), the extraction speed (wall clock and process CPU time; metric time excluded) and the size of
the extracted text relative to the HTML (seed 004 Table 1). A page that raises a grist error counts
as an empty extraction.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from dataclasses import replace
from datetime import date
from pathlib import Path

import numpy as np

from grist import __version__
from grist.api import Extractor
from grist.errors import GristError
from grist.io.datasets import read_jsonl
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
    """Mean P/R/F1 over pages, pages/s, failing pages and extracted/HTML size (UTF-8 bytes)."""
    extractor = Extractor(method="lineblock", config=config)
    scores, errors, seconds, cpu, html_bytes, text_bytes = [], 0, 0.0, 0.0, 0, 0
    for page in pages:
        started, cpu_started = time.perf_counter(), time.process_time()
        try:
            text = extractor(page.html, page.url).text
        except GristError:
            text, errors = "", errors + 1
        seconds += time.perf_counter() - started
        cpu += time.process_time() - cpu_started
        html_bytes += len(page.html.encode("utf-8"))
        text_bytes += len(text.encode("utf-8"))
        scores.append(lcs_prf(text, page.gold))
    mean = np.mean(np.array(scores, dtype=np.float64), axis=0)
    return {
        "precision": float(mean[0]),
        "recall": float(mean[1]),
        "f1": float(mean[2]),
        "pages_per_s": len(pages) / seconds if seconds else float("inf"),
        "pages_per_cpu_s": len(pages) / cpu if cpu else float("inf"),
        "errors": errors,
        "size": text_bytes / html_bytes if html_bytes else 0.0,
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
    print(f"# command: python benchmarks/lineblock_eval.py {' '.join(sys.argv[1:])}\n")
    print("| dataset | pages | variant | precision | recall | F1 | pages/s | pages/CPU-s | errors "
          "| text/HTML |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.datasets:
        path = Path(args.datasets_dir) / f"{name}.jsonl.gz"
        pages = list(read_jsonl(path, limit=args.limit))
        for variant, config in variants.items():
            r = evaluate(pages, config)
            print(
                f"| {name} | {len(pages)} | {variant} | {r['precision']:.4f} | {r['recall']:.4f} "
                f"| {r['f1']:.4f} | {r['pages_per_s']:.1f} | {r['pages_per_cpu_s']:.1f} "
                f"| {r['errors']} "
                f"| {r['size']:.3f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
