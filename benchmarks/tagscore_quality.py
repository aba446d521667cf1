"""LCS F1 of the ``tagscore`` method (and its stage ablations) on shared datasets.

Usage: nice python benchmarks/tagscore_quality.py l3s-gn1 cleaneval-final [--limit N]
       [--variant NAME=stage,stage,...[:unit]] ...
Prints one markdown row per dataset and variant: pages, mean precision, recall, F1, errors, s/page.
"""

from __future__ import annotations

import argparse
import statistics
import time

import grist
from grist.errors import GristError
from grist.io.datasets import read_dataset, resolve_dataset
from grist.evaluate.metrics import lcs_prf
from grist.methods.tagscore import STAGES, TagscoreConfig

VARIANTS = {
    "tagscore": TagscoreConfig(),
    "rules only": TagscoreConfig(stages=("rules",)),
    "rules+subtree+punct": TagscoreConfig(stages=("rules", "subtree", "punctuation")),
    "no rules": TagscoreConfig(stages=("subtree", "punctuation", "dedup", "score")),
    "tagscore region unit": TagscoreConfig(unit="region"),
}


def _variant(spec: str) -> tuple[str, TagscoreConfig]:
    name, _, rest = spec.partition("=")
    stages, _, unit = rest.partition(":")
    chosen = tuple(s for s in stages.split(",") if s) or STAGES
    return name, TagscoreConfig(stages=chosen, unit=unit or "block")


def evaluate(dataset: str, config: TagscoreConfig, limit: int | None) -> dict[str, float]:
    """Mean LCS precision/recall/F1 of tagscore with ``config`` over a dataset (errors score 0)."""
    p, r, f, errors, pages = [], [], [], 0, 0
    start = time.perf_counter()
    for page in read_dataset(resolve_dataset(dataset), limit):
        pages += 1
        try:
            text = grist.extract(page.html, url=page.url, method="tagscore", config=config).text
        except GristError:
            errors += 1
            text = ""
        score = lcs_prf(text, page.gold)
        p.append(score.precision)
        r.append(score.recall)
        f.append(score.f1)
    seconds = time.perf_counter() - start
    return {"pages": pages, "precision": statistics.fmean(p), "recall": statistics.fmean(r),
            "f1": statistics.fmean(f), "errors": errors, "s_per_page": seconds / max(pages, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="+")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--variant", action="append", default=[], help="NAME=stage,stage[:unit]")
    parser.add_argument("--all-variants", action="store_true", help="run the built-in ablations")
    args = parser.parse_args()
    variants = dict(_variant(v) for v in args.variant)
    if args.all_variants:
        variants = {**VARIANTS, **variants}
    variants = variants or {"tagscore": VARIANTS["tagscore"]}
    print("| dataset | variant | pages | precision | recall | F1 | errors | s/page |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for dataset in args.datasets:
        for name, config in variants.items():
            m = evaluate(dataset, config, args.limit)
            print(f"| {dataset} | {name} | {m['pages']} | {m['precision']:.4f} | {m['recall']:.4f} | "
                  f"{m['f1']:.4f} | {m['errors']} | {m['s_per_page']:.3f} |", flush=True)


if __name__ == "__main__":
    main()
