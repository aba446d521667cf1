"""Documentation pages from sites no dev set holds, as datasets for the benchmark suite.

Debian ships many projects' manuals as HTML built by Sphinx or MkDocs (``python3.11-doc``,
``sphinx-doc``, ``python-flask-doc`` ...). Their themes mark the page's text with a main
container (``role="main"``, ``article``, ``div.body``, ``main``, ``div.document``, the first
found), which makes a gold without hand labels: the container's text, without what the themes
put inside it that is not the page's own (heading permalinks, scripts, styles, ``nav`` bars,
footers), a line per block element. The pages are long, cut into ``section``s and code blocks:
the kind of documentation page the dev sets hold few of.

This script only builds the datasets, one ``PACKAGE.jsonl.gz`` per installed manual in the
project's dataset format; ``grist bench`` runs and scores every system on them as on any other
dataset (worker processes, timeouts, bootstrap intervals, per-page scores). Install the manuals
first (they are not project dependencies), for example::

    apt-get install python3.11-doc sphinx-doc python-flask-doc python-pytest-doc \\
        python-sqlalchemy-doc python-django-doc python-lxml-doc python-babel-doc

then::

    .venv/bin/python benchmarks/doc_pages.py --pages 40 --out build/doc-pages
    .venv/bin/grist bench --datasets build/doc-pages/*.jsonl.gz --methods auto \\
        --peers trafilatura readability-lxml --out build/doc-pages --name by-package

(``--together`` writes every package's pages into one ``doc-pages.jsonl.gz`` instead, for the
figure over all of them; ``--within /library/`` keeps only pages whose path holds it, and
``--methods 'auto@MODEL'`` scores a model of your own, a cross-validation fold's for one.)

Each package gives up to ``--pages`` pages (a fixed shuffle of its HTML files, leaving out
indexes, search pages and highlighted sources). No dataset name of the shared sets is used, so
the suite scores ``auto``'s default output, the body (the gold holds the page's heading too).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import subprocess
import sys
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser

from grist.io.datasets import Page

PACKAGES = ("python3.11-doc", "sphinx-doc", "python-flask-doc", "python-pytest-doc",
            "python-sqlalchemy-doc", "python-django-doc", "python-lxml-doc", "python-babel-doc",
            "python-werkzeug-doc", "python-click-doc", "mkdocs-doc")
MAIN = ('[role="main"]', "article", "div.body", "main", "div.document")
NOT_TEXT = "a.headerlink, script, style, nav, footer, .sphinxsidebar, .rst-footer-buttons"
SKIPPED = re.compile(r"/(_modules|_sources|_static)/|/(genindex|search|404|py-modindex|modindex"
                     r"|index)\.html$")
BLOCK_END = re.compile(r"(</(?:p|div|li|dt|dd|pre|h[1-6]|tr|td|th|section|table|ul|ol|dl"
                       r"|blockquote|caption)>)", re.I)
MIN_GOLD_WORDS = 50
# The fields a dataset record holds (``grist.io.datasets.read_jsonl``); the dataset is the
# file's name
RECORD_FIELDS = ("id", "site", "url", "html", "gold")


def gold_text(html: str) -> str | None:
    """The page's main container text, a line per block element; None without a container."""
    tree = LexborHTMLParser(BLOCK_END.sub(r"\n\1", html))
    main = next((found for found in map(tree.css_first, MAIN) if found is not None), None)
    if main is None:
        return None
    for node in main.css(NOT_TEXT):
        node.decompose()
    lines = (" ".join(line.split()) for line in main.text(separator="").splitlines())
    return "\n".join(line for line in lines if line)


def package_pages(package: str, limit: int, within: str = "") -> list[Page]:
    """Up to ``limit`` pages of an installed package (whose path holds ``within``) with a gold
    of ``MIN_GOLD_WORDS`` or more; none when the package is not installed."""
    listed = subprocess.run(["dpkg", "-L", package], capture_output=True, text=True)
    files = [f for f in listed.stdout.split() if f.endswith(".html") and "/html/" in f
             and within in f and not SKIPPED.search(f)]
    random.Random(0).shuffle(files)
    pages = []
    for name in files:
        if len(pages) >= limit:
            break
        html = Path(name).read_text(encoding="utf-8", errors="replace")
        gold = gold_text(html)
        if gold and len(gold.split()) >= MIN_GOLD_WORDS:
            pages.append(Page(id=f"{package}:{name.split('/html/', 1)[1]}", html=html,
                              gold=gold, url=Path(name).as_uri(), site=package))
    return pages


def write_dataset(pages: list[Page], target: Path) -> None:
    """The pages as a dataset file of the project's format (a JSON record a line, gzipped)."""
    with gzip.open(target, "wt", encoding="utf-8") as out:
        for page in pages:
            record = {name: getattr(page, name) for name in RECORD_FIELDS}
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", nargs="*", default=list(PACKAGES))
    parser.add_argument("--pages", type=int, default=40, help="pages per package at most")
    parser.add_argument("--within", default="",
                        help="only pages whose path holds this (e.g. /library/)")
    parser.add_argument("--out", type=Path, default=Path("build/doc-pages"),
                        help="folder of the datasets (default: %(default)s)")
    parser.add_argument("--together", action="store_true",
                        help="one dataset of every package's pages (doc-pages.jsonl.gz), for "
                        "the figure over all of them, instead of one per package")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    every: list[Page] = []
    for package in args.packages:
        pages = package_pages(package, args.pages, args.within)
        if not pages:
            print(f"{package}: not installed, or no page with a main container", file=sys.stderr)
            continue
        if not args.together:
            # (a dataset's name ends at the file name's first dot: python3.11-doc -> python3-11-doc)
            write_dataset(pages, args.out / f"{package.replace('.', '-')}.jsonl.gz")
        every += pages
        print(f"{package}: {len(pages)} pages", file=sys.stderr)
    if not every:
        print("none of the packages is installed (see the module doc)", file=sys.stderr)
        return 1
    if args.together:
        write_dataset(every, args.out / "doc-pages.jsonl.gz")
    print(f"wrote {len(every)} pages in {args.out}; score them with grist bench --datasets "
          f"{args.out}/*.jsonl.gz", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
