"""Which tokenisation makes our metrics match the independent harness? Score variants side by side.

    .venv/bin/python -m grist.evaluate.worker trafilatura DIR/l3s-gn1.jsonl.gz > build/traf.jsonl
    .venv/bin/python benchmarks/metric_calibration.py build/traf.jsonl DIR/l3s-gn1.jsonl.gz

Prints, per dataset, the LCS F1 (mean over pages) and shingle F1 (F1 of mean P and mean R, and
mean per-page F1) under each tokenisation variant; docs/benchmarks/README.md records the choice.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
from collections.abc import Callable

from grist.io.datasets import dataset_name, read_dataset
from grist.evaluate.metrics import lcs_length, prf_from_counts, shingle_counts, shingle_prf

Tokenizer = Callable[[str], list[str]]
_WORD = re.compile(r"\w+")
_WORD_OR_PUNCT = re.compile(r"[^\W_]+|[^\w\s]")

VARIANTS: dict[str, Tokenizer] = {
    "whitespace": str.split,
    "whitespace, lower-cased": lambda t: t.lower().split(),
    r"\w+": _WORD.findall,
    r"\w+, lower-cased": lambda t: _WORD.findall(t.lower()),
    "words and punctuation": _WORD_OR_PUNCT.findall,
}


def main(outputs_path: str, dataset_paths: list[str]) -> int:
    outputs = {}
    for line in open(outputs_path, encoding="utf-8"):
        record = json.loads(line)
        if "id" in record:
            outputs[(record["dataset"], record["id"])] = record["text"]
    print("| dataset | tokens | LCS F1 | shingle F1 (of means) | shingle F1 (mean of pages) |")
    print("|---|---|---:|---:|---:|")
    for path in dataset_paths:
        pairs = [(outputs[(p.dataset, p.id)], p.gold) for p in read_dataset(path)
                 if (p.dataset, p.id) in outputs]
        for name, tokenize in VARIANTS.items():
            lcs, sh = [], []
            for pred, gold in pairs:
                a, b = tokenize(pred), tokenize(gold)
                lcs.append(prf_from_counts(lcs_length(a, b), len(a), len(b)).f1)
                sh.append(shingle_prf(shingle_counts(pred, gold, tokenize=tokenize)))
            p = statistics.fmean(s.precision for s in sh)
            r = statistics.fmean(s.recall for s in sh)
            print(f"| {dataset_name(path)} ({len(pairs)}) | {name} | "
                  f"{statistics.fmean(lcs):.4f} | {2 * p * r / (p + r):.4f} | "
                  f"{statistics.fmean(s.f1 for s in sh):.4f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
