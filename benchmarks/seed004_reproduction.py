"""Seed 004 reproduction: lineblock on CleanEval (LCS word P/R/F1) and the size-reduction table.

The paper (Pan Ei San & Nilar Aye, "Main Content Extraction from Dynamic Web Pages") evaluates on
CleanEval with the word-LCS metric of its §E and reports, in Table 1, the total size of 736 HTML
files (9,231 KB) against the size of the text extracted from them (2,288 KB). This script measures
the same on the shared CleanEval files and prints a Markdown table for
docs/reproductions/seed-004.md.

    .venv/bin/python benchmarks/seed004_reproduction.py [--datasets-dir ../shared/datasets]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import grist
from grist.errors import GristError
from grist.io.datasets import DEFAULT_DATASETS_DIR, read_dataset, resolve_dataset
from grist.evaluate.metrics import lcs_prf

PAPER_HTML_KB, PAPER_TEXT_KB, PAPER_FILES = 9231, 2288, 736


def measure(datasets: list[str], datasets_dir: str, method: str) -> dict[str, dict]:
    """Per dataset: pages, failures, mean LCS P/R/F1, total HTML / extracted / gold KB, CPU s."""
    out = {}
    for name in datasets:
        scores, failures = [], 0
        html_bytes = text_bytes = gold_bytes = 0
        cpu = 0.0
        for page in read_dataset(resolve_dataset(name, datasets_dir)):
            started = time.process_time()
            try:
                text = grist.extract(page.html, page.url, method=method).text
            except GristError:
                text, failures = "", failures + 1
            cpu += time.process_time() - started
            scores.append(lcs_prf(text, page.gold))
            html_bytes += len(page.html.encode("utf-8"))
            text_bytes += len(text.encode("utf-8"))
            gold_bytes += len(page.gold.encode("utf-8"))
        p, r, f = (statistics.fmean(column) for column in zip(*scores))
        out[name] = {
            "pages": len(scores), "failures": failures, "p": p, "r": r, "f1": f,
            "html_kb": html_bytes / 1024, "text_kb": text_bytes / 1024,
            "gold_kb": gold_bytes / 1024, "cpu_s": cpu,
        }
    return out


def markdown(results: dict[str, dict], method: str) -> str:
    """The two reproduction tables in Markdown."""
    lines = [
        "| dataset | pages | failed | LCS precision | LCS recall | LCS F1 | CPU s |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, m in results.items():
        lines.append(f"| {name} | {m['pages']} | {m['failures']} | {m['p']:.4f} | {m['r']:.4f} "
                     f"| {m['f1']:.4f} | {m['cpu_s']:.1f} |")
    lines += ["", "| | files | HTML KB | extracted text KB | text / HTML | saving | gold text KB |",
              "|---|---:|---:|---:|---:|---:|---:|",
              f"| paper (Table 1) | {PAPER_FILES} | {PAPER_HTML_KB:,} | {PAPER_TEXT_KB:,} | "
              f"{PAPER_TEXT_KB / PAPER_HTML_KB:.1%} | {1 - PAPER_TEXT_KB / PAPER_HTML_KB:.1%} | - |"]
    html = sum(m["html_kb"] for m in results.values())
    text = sum(m["text_kb"] for m in results.values())
    gold = sum(m["gold_kb"] for m in results.values())
    pages = sum(m["pages"] for m in results.values())
    lines.append(f"| grist `{method}` ({' + '.join(results)}) | {pages} | {html:,.0f} | "
                 f"{text:,.0f} | {text / html:.1%} | {1 - text / html:.1%} | {gold:,.0f} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets-dir", default=str(DEFAULT_DATASETS_DIR))
    parser.add_argument("--datasets", nargs="+", default=["cleaneval-final", "cleaneval-dev"])
    parser.add_argument("--method", default="lineblock")
    args = parser.parse_args()
    try:
        results = measure(args.datasets, args.datasets_dir, args.method)
    except GristError as exc:
        print(f"seed004_reproduction: {exc}", file=sys.stderr)
        return 1
    print(markdown(results, args.method))
    return 0


if __name__ == "__main__":
    sys.exit(main())
