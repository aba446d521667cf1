"""Data tables kept or dropped whole: LCS F1 before and after, and gold table-cell words kept.

Usage: python benchmarks/table_units.py [--datasets-dir ../shared/datasets]
       [--lodo DIR] [--methods auto justext tree tagscore] [--report docs/benchmarks/tables.md]

Every page is extracted once without the table stage (``Extractor(table_units=False)``); the
stage is then applied to the same labelled blocks, so "before" and "after" differ only by it.
Mean LCS F1 over all pages of each dataset, before and after (pages without a data table are
unchanged). ``auto`` uses ``DIR/<dataset>.json.gz`` when ``--lodo`` has one (a model that never saw
the dataset), else the shipped model (which has seen every dataset but wcxb-dev). On modern-dev and
wcxb-dev: of the words of data-table cells that the gold contains (blocks aligned to the gold as in
training, ``grist.train.labels``), the share ``auto`` keeps, before and after.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import statistics
import sys
from collections import Counter
from importlib.metadata import version
from pathlib import Path

import grist
from grist.classify.table_units import tables_as_units
from grist.evaluate.metrics import lcs_prf
from grist.io.datasets import read_dataset
from grist.methods import method_config
from grist.segment.tables import is_data_table, table_cells
from grist.train.labels import align
from reporting import publish  # benchmarks/reporting.py (the script's folder is on sys.path)
from devsets import DATASETS


def extractor(method: str, dataset: str, lodo: Path | None) -> tuple[grist.Extractor, str]:
    model = lodo / f"{dataset}.json.gz" if lodo else None
    if method == "auto" and model is not None and model.is_file():
        return grist.Extractor(method, config=method_config(method, model),
                               table_units=False), "leave-one-dataset-out"
    return grist.Extractor(method, table_units=False), "shipped" if method == "auto" else "-"


def data_table_cells(blocks: list) -> list:
    return [b for cells in table_cells(blocks).values() if is_data_table(cells) for b in cells]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets-dir", type=Path, default=Path("../shared/datasets"))
    parser.add_argument("--lodo", type=Path, default=None)
    parser.add_argument("--methods", nargs="+", default=["auto", "justext", "tree", "tagscore"])
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--report", type=Path)
    args = parser.parse_args()
    rows, word_rows = [], []
    for dataset in args.datasets:
        pages = [p for p in read_dataset(args.datasets_dir / f"{dataset}.jsonl.gz", args.limit)
                 if p.html]
        for method in args.methods:
            extract, model = extractor(method, dataset, args.lodo)
            before, after = [], []
            counts: Counter = Counter()
            for page in pages:
                try:
                    result = extract(page.html, page.url)
                except grist.GristError:
                    before.append(0.0)
                    after.append(0.0)
                    continue
                old = lcs_prf(result.text, page.gold).f1
                cells = data_table_cells(result.blocks)
                gold_cells = []
                if cells and method == "auto" and dataset in ("modern-dev", "wcxb-dev"):
                    labels = align(result.blocks, page.gold).labels
                    in_cells = {id(b) for b in cells}
                    gold_cells = [b for b, g in zip(result.blocks, labels, strict=True)
                                  if g and id(b) in in_cells]
                    counts["gold_words"] += sum(len(b.text.split()) for b in gold_cells)
                    counts["kept_before"] += sum(len(b.text.split()) for b in gold_cells
                                                 if b.is_content)
                changed = tables_as_units(result.blocks) if cells else 0
                counts["pages_with_tables"] += bool(cells)
                counts["pages_changed"] += bool(changed)
                counts["blocks_changed"] += changed
                counts["kept_after"] += sum(len(b.text.split()) for b in gold_cells
                                            if b.is_content)
                before.append(old)
                after.append(lcs_prf(result.text, page.gold).f1 if changed else old)
            mean_before, mean_after = statistics.fmean(before), statistics.fmean(after)
            rows.append(f"| {dataset} | {method} | {model} | {len(pages)} | "
                        f"{counts['pages_with_tables']} | {counts['pages_changed']} | "
                        f"{counts['blocks_changed']} | {mean_before:.4f} | {mean_after:.4f} | "
                        f"{mean_after - mean_before:+.4f} |")
            print(rows[-1], file=sys.stderr)
            if counts["gold_words"]:
                word_rows.append(
                    f"| {dataset} | {method} | {counts['gold_words']} | "
                    f"{counts['kept_before'] / counts['gold_words']:.3f} | "
                    f"{counts['kept_after'] / counts['gold_words']:.3f} |")
    command = " ".join(["python", "benchmarks/table_units.py", *sys.argv[1:]])
    report = "\n".join([
        "# Data tables as units",
        "",
        f"Date: {datetime.date.today()}; Python {platform.python_version()}; grist "
        f"{version('grist')}; shared 2-core machine. Command: `{command}`.",
        "",
        "| dataset | method | model | pages | pages with a data table | pages changed | blocks "
        "changed | LCS F1 before | LCS F1 after | change |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|",
        *rows,
        "",
        "Gold words in data-table cells that `auto` keeps:",
        "",
        "| dataset | method | gold table-cell words | kept before | kept after |",
        "|---|---|---:|---:|---:|",
        *word_rows,
        "",
    ])
    return publish(report, args.report)


if __name__ == "__main__":
    sys.exit(main())
