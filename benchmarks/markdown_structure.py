"""Markdown structure against wcxb-dev's gold_markdown, grist beside trafilatura, in one run.

Usage: python benchmarks/markdown_structure.py [--datasets-dir ../shared/datasets] [--limit N]
       [--report docs/benchmarks/markdown.md]

Both Markdowns are parsed with markdown-it-py (CommonMark + GFM tables); for each element kind
(headings, list items, table rows, code blocks) the elements are compared by their plain text
(markup removed, whitespace collapsed, case folded) as multisets: precision is the share of the
system's elements found in the gold, recall the share of the gold's found in the system's,
summed over pages (micro average). grist runs ``auto`` (shipped model: it never saw wcxb-dev);
trafilatura runs ``extract(output_format="markdown", include_tables=True,
include_formatting=True)``.
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import json
import platform
import sys
from collections import Counter
from importlib.metadata import version
from pathlib import Path

from markdown_it import MarkdownIt
from reporting import publish  # benchmarks/reporting.py (the script's folder is on sys.path)

KINDS = ("heading", "list item", "table row", "code block")
_PARSER = MarkdownIt("commonmark").enable("table").enable("strikethrough")


def _plain(token) -> str:
    parts = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append("")
    return " ".join("".join(parts).split()).casefold()


def elements(markdown: str) -> dict[str, Counter]:
    """Plain texts of the headings, list items, table rows and code blocks of a Markdown text."""
    found = {kind: Counter() for kind in KINDS}
    tokens = _PARSER.parse(markdown or "")
    row: list[str] | None = None
    item_depth = 0
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            found["heading"][_plain(tokens[i + 1])] += 1
        elif token.type == "list_item_open":
            item_depth += 1
            following = next((t for t in tokens[i + 1:] if t.type in ("inline", "list_item_close",
                                                                    "list_item_open")), None)
            if following is not None and following.type == "inline":
                found["list item"][_plain(following)] += 1
        elif token.type == "list_item_close":
            item_depth -= 1
        elif token.type == "tr_open":
            row = []
        elif token.type == "inline" and row is not None:
            row.append(_plain(token))
        elif token.type == "tr_close" and row is not None:
            found["table row"][" | ".join(row)] += 1
            row = None
        elif token.type in ("fence", "code_block"):
            found["code block"][" ".join(token.content.split()).casefold()] += 1
    for counter in found.values():
        counter.pop("", None)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets-dir", type=Path, default=Path("../shared/datasets"))
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--report", type=Path)
    args = parser.parse_args()
    import trafilatura

    import grist

    extract = grist.Extractor()
    systems = {
        "grist": lambda html, url: extract(html, url).to_markdown(),
        "trafilatura": lambda html, url: trafilatura.extract(
            html, url=url, output_format="markdown", include_tables=True,
            include_formatting=True) or "",
    }
    totals = {s: {k: Counter() for k in KINDS} for s in systems}
    pages = 0
    with gzip.open(args.datasets_dir / "wcxb-dev.jsonl.gz", "rt", encoding="utf-8") as handle:
        for number, line in enumerate(handle):
            if args.limit is not None and number >= args.limit:
                break
            record = json.loads(line)
            if not record.get("gold_markdown"):
                continue
            pages += 1
            gold = elements(record["gold_markdown"])
            for system, run in systems.items():
                try:
                    found = elements(run(record["html"], record.get("url")))
                except Exception:  # noqa: BLE001 - a failed page is an empty output
                    found = {k: Counter() for k in KINDS}
                for kind in KINDS:
                    t = totals[system][kind]
                    t["gold"] += sum(gold[kind].values())
                    t["found"] += sum(found[kind].values())
                    t["match"] += sum((gold[kind] & found[kind]).values())
    rows = []
    for kind in KINDS:
        for system in systems:
            t = totals[system][kind]
            precision = t["match"] / t["found"] if t["found"] else 0.0
            recall = t["match"] / t["gold"] if t["gold"] else 0.0
            rows.append(f"| {kind} | {system} | {t['gold']} | {t['found']} | {t['match']} | "
                        f"{precision:.3f} | {recall:.3f} |")
    command = " ".join(["python", "benchmarks/markdown_structure.py", *sys.argv[1:]])
    report = "\n".join([
        "# Markdown structure against wcxb-dev's gold Markdown",
        "",
        f"Date: {datetime.date.today()}; Python {platform.python_version()}; grist "
        f"{version('grist')}; trafilatura {version('trafilatura')}; markdown-it-py "
        f"{version('markdown-it-py')}; shared 2-core machine. Command: `{command}` "
        f"({pages} pages with a gold Markdown).",
        "",
        "| element | system | in gold | in output | matched | precision | recall |",
        "|---|---|---:|---:|---:|---:|---:|",
        *rows,
        "",
    ])
    return publish(report, args.report)


if __name__ == "__main__":
    sys.exit(main())
