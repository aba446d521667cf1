"""Measure candidate HTML parsers: parse plus a full traversal, on pages of the shared datasets.

Usage: python benchmarks/parsers.py [--datasets-dir ../shared/datasets] [--pages 300]
Prints pages/s per parser and dataset; the figures and the choice are recorded in docs/decisions.md.
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

from grist.io.datasets import read_jsonl


def walk_lxml(html: str) -> int:
    import lxml.etree
    import lxml.html

    parser = lxml.html.HTMLParser(encoding="utf-8")
    root = lxml.html.document_fromstring(html.encode("utf-8"), parser=parser)
    count = 0
    for _event, element in lxml.etree.iterwalk(root, events=("start", "end")):
        count += 1
        element.text  # noqa: B018 - touch the text as a real traversal would
    return count


def walk_lexbor(html: str) -> int:
    from selectolax.lexbor import LexborHTMLParser

    stack = [LexborHTMLParser(html).root]
    count = 0
    while stack:
        node = stack.pop()
        if node is None:
            continue
        count += 1
        if node.tag == "-text":
            node.text_content  # noqa: B018
            continue
        child = node.last_child
        while child is not None:
            stack.append(child)
            child = child.prev
    return count


def walk_resiliparse(html: str) -> int:
    from resiliparse.parse.html import HTMLTree

    stack = [HTMLTree.parse(html).document]
    count = 0
    while stack:
        node = stack.pop()
        count += 1
        child = node.first_child
        while child is not None:
            stack.append(child)
            child = child.next
    return count


PARSERS: dict[str, tuple[str, Callable[[str], int]]] = {
    "lxml": ("lxml", walk_lxml),
    "selectolax-lexbor": ("selectolax", walk_lexbor),
    "resiliparse": ("resiliparse", walk_resiliparse),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets-dir", default="../shared/datasets")
    parser.add_argument("--datasets", nargs="+", default=["l3s-gn1", "cleaneval-final", "modern-dev"])
    parser.add_argument("--pages", type=int, default=300)
    args = parser.parse_args()
    print(f"python {platform.python_version()}, " + ", ".join(
        f"{name} {version(dist)}" for name, (dist, _) in PARSERS.items()))
    print(f"| dataset | pages | {' | '.join(PARSERS)} |")
    print("|---|---:|" + "---:|" * len(PARSERS))
    for dataset in args.datasets:
        path = Path(args.datasets_dir) / f"{dataset}.jsonl.gz"
        htmls = [page.html for page in read_jsonl(path, limit=args.pages)]
        cells = []
        for _name, (_dist, walk) in PARSERS.items():
            started = time.perf_counter()
            for html in htmls:
                walk(html)
            cells.append(f"{len(htmls) / (time.perf_counter() - started):.0f} pages/s")
        print(f"| {dataset} | {len(htmls)} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()
