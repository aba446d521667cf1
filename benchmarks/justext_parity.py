"""grist's ``justext`` method against the jusText package (PyPI), side by side in one harness.

Usage:
  nice python benchmarks/justext_parity.py [--data ../shared/datasets]
      [--datasets l3s-gn1 cleaneval-final] [--variants default no-headings ...] [--limit N]
      [--write docs/benchmarks/justext-parity.md]

For each page both extractors get the same decoded ``str`` (parse + extract are timed, reading the
dataset and scoring are not). The package runs with its English stop list and defaults; its
paragraphs that are not boilerplate are joined by blank lines. Scores are the mean over pages of
the word-level LCS precision / recall / F1 (``grist.evaluate.metrics.lcs_prf``). A page on which an
extractor raises counts as an empty extraction.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from dataclasses import replace
from datetime import date
from importlib.metadata import version
from pathlib import Path

import numpy as np

from grist.api import Extractor
from grist.classify.rules import RuleConfig
from grist.errors import GristError
from grist.evaluate.datasets import Page, read_jsonl
from grist.evaluate.metrics import lcs_prf
from grist.methods.justext import JustextConfig
from grist.segment.blocks import PAPER_BLOCK_TAGS, SegmentConfig

DEFAULT = JustextConfig()
VARIANTS: dict[str, JustextConfig] = {
    "default": DEFAULT,
    "no-headings": replace(DEFAULT, rules=RuleConfig(headings="off")),
    "full-headings": replace(DEFAULT, rules=RuleConfig(headings="full")),
    # Seed 000 read literally: lengths and link density in tokens, the paper's block-tag list.
    "paper-literal": JustextConfig(
        rules=RuleConfig(length_unit="tokens", link_density_unit="tokens"),
        segment=SegmentConfig(block_tags=PAPER_BLOCK_TAGS | {"body"}),
    ),
    "token-links": replace(DEFAULT, rules=RuleConfig(link_density_unit="tokens")),
    "paper-tags": replace(DEFAULT, segment=SegmentConfig(block_tags=PAPER_BLOCK_TAGS | {"body"})),
    "auto-language": replace(DEFAULT, stopwords="auto"),
}


def package_extractor():
    """The jusText package as a function str -> text (English stop list, package defaults)."""
    import justext

    stoplist = justext.get_stoplist("English")

    def extract(html: str) -> str:
        paragraphs = justext.justext(html, stoplist)
        return "\n\n".join(p.text for p in paragraphs if not p.is_boilerplate)

    return extract


def grist_extractor(config: JustextConfig):
    """grist's ``justext`` method as a function str -> text."""
    extractor = Extractor(method="justext", config=config)

    def extract(html: str) -> str:
        return extractor(html).text

    return extract


def measure(extract, pages: list[Page], catch: type[Exception]) -> dict[str, float]:
    """Mean P/R/F1 over pages, extraction pages/s, and the number of pages that raised ``catch``."""
    scores, seconds, errors = [], 0.0, 0
    for page in pages:
        started = time.perf_counter()
        try:
            text = extract(page.html)
        except catch:  # a failing page is an empty extraction
            text, errors = "", errors + 1
        seconds += time.perf_counter() - started
        scores.append(lcs_prf(text, page.gold))
    p, r, f = (float(np.mean([getattr(s, k) for s in scores])) for k in ("precision", "recall", "f1"))
    return {"p": p, "r": r, "f1": f, "pps": len(pages) / seconds, "errors": errors}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/datasets"))
    parser.add_argument("--datasets", nargs="+", default=["l3s-gn1", "cleaneval-final"])
    parser.add_argument("--variants", nargs="+", default=["default"], choices=list(VARIANTS))
    parser.add_argument("--limit", type=int, default=None, help="first N pages of each dataset")
    parser.add_argument("--write", type=Path, default=None, help="write the report here")
    args = parser.parse_args(argv)

    rows = []
    for name in args.datasets:
        pages = list(read_jsonl(args.data / f"{name}.jsonl.gz", limit=args.limit))
        package = measure(package_extractor(), pages, Exception)  # lxml errors and the like
        rows.append((name, len(pages), "jusText package", package, None))
        print(_row(*rows[-1]), flush=True)
        for variant in args.variants:
            ours = measure(grist_extractor(VARIANTS[variant]), pages, GristError)
            rows.append((name, len(pages), f"grist justext ({variant})", ours, package))
            print(_row(*rows[-1]), flush=True)
    if args.write:
        args.write.write_text(_report(rows, argv if argv is not None else sys.argv[1:]))
    return 0


_HEADER = (
    "| dataset | pages | extractor | P | R | F1 | ΔF1 vs package | pages/s | speed-up | errors |\n"
    "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"
)


def _row(dataset: str, n: int, label: str, m: dict, package: dict | None) -> str:
    delta = f"{m['f1'] - package['f1']:+.4f}" if package else ""
    speedup = f"{m['pps'] / package['pps']:.2f}x" if package else ""
    return (
        f"| {dataset} | {n} | {label} | {m['p']:.4f} | {m['r']:.4f} | {m['f1']:.4f} | {delta} "
        f"| {m['pps']:.1f} | {speedup} | {m['errors']} |"
    )


def _report(rows: list, argv: list[str]) -> str:
    command = "nice .venv/bin/python benchmarks/justext_parity.py " + " ".join(argv)
    versions = (
        f"grist {version('grist')}, jusText {version('justext')}, lxml {version('lxml')}, "
        f"selectolax {version('selectolax')}, Python {platform.python_version()}, "
        f"{platform.machine()} ({platform.system()})"
    )
    table = "\n".join([_HEADER, *(_row(*r) for r in rows)])
    return (
        "# grist `justext` vs the jusText package\n\n"
        f"Date: {date.today().isoformat()}  \nVersions: {versions}  \nCommand: `{command}`\n\n"
        "Mean word-level LCS precision / recall / F1 over pages; pages/s counts parse + "
        "extraction of the decoded page (no I/O, no scoring). Target: |ΔF1| ≤ 0.02 and "
        "≥ 2x speed.\n\n" + table + "\n"
    )


if __name__ == "__main__":
    raise SystemExit(main())
