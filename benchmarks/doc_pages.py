"""Documentation pages from sites no dev set holds: ``auto`` beside the peers on HTML manuals.

Debian ships many projects' manuals as HTML built by Sphinx or MkDocs (``python3.11-doc``,
``sphinx-doc``, ``python-flask-doc`` ...). Their themes mark the page's text with a main
container (``role="main"``, ``article``, ``div.body``, ``main``, ``div.document``, the first
found), which makes a gold without hand labels: the container's text, without what the themes
put inside it that is not the page's own (heading permalinks, scripts, styles, ``nav`` bars,
footers), a line per block element. The pages are long, cut into ``section``s and code blocks:
the kind of documentation page the dev sets hold few of.

Install the manuals first (they are not project dependencies), for example::

    apt-get install python3.11-doc sphinx-doc python-flask-doc python-pytest-doc \\
        python-sqlalchemy-doc python-django-doc python-lxml-doc python-babel-doc

then::

    .venv/bin/python benchmarks/doc_pages.py --pages 40 --out docs/benchmarks/doc-pages.md

Each package gives up to ``--pages`` pages (a fixed shuffle of its HTML files, leaving out
indexes, search pages and highlighted sources), and every system is scored with the benchmark
suite's shingle precision, recall and F1 (F1 of the mean precision and mean recall).
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import platform
import random
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser

import grist
from grist.evaluate.aggregate import PageScore, score_page, summarize
from grist.evaluate.peers import make_peer
from grist.methods.auto import AutoConfig

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


@dataclass
class Page:
    """One manual page: where it is, its HTML and the text of its main container."""

    id: str
    url: str
    html: str
    gold: str


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
            pages.append(Page(f"{package}:{Path(name).name}", Path(name).as_uri(), html, gold))
    return pages


def scores(pages: list[Page], extract: Callable[[str, str], str | None]) -> list[PageScore]:
    """Every page's scores (a failed extraction scores as empty)."""
    found = []
    for page in pages:
        try:
            text = extract(page.html, page.url) or ""
        except Exception:  # noqa: BLE001 - a failure is an empty output, as in the suite
            text = ""
        found.append(score_page(page.id, text, page.gold))
    return found


def cell(found: list[PageScore]) -> str:
    """"F1 (precision / recall)": the suite's shingle F1 of the mean precision and recall."""
    summary = summarize(found, rounds=1)
    return f"{summary['sh_f1']:.3f} ({summary['sh_p']:.3f} / {summary['sh_r']:.3f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", nargs="*", default=list(PACKAGES))
    parser.add_argument("--pages", type=int, default=40, help="pages per package at most")
    parser.add_argument("--within", default="",
                        help="only pages whose path holds this (e.g. /library/)")
    parser.add_argument("--model", help="an auto model file (default: the shipped one)")
    parser.add_argument("--peers", nargs="*", default=["trafilatura", "readability-lxml"])
    parser.add_argument("--out", help="write the markdown result here")
    args = parser.parse_args()
    by_package = {name: package_pages(name, args.pages, args.within)
                  for name in args.packages}
    missing = [name for name, pages in by_package.items() if not pages]
    by_package = {name: pages for name, pages in by_package.items() if pages}
    if not by_package:
        print("none of the packages is installed (see the module doc)", file=sys.stderr)
        return 1
    auto = grist.Extractor(method="auto", config=AutoConfig(model_path=args.model))
    systems = {"grist auto": lambda html, url: auto(html, url=url).text,
               **{peer: make_peer(peer) for peer in args.peers}}
    found = {name: {system: scores(pages, extract) for system, extract in systems.items()}
             for name, pages in by_package.items()}
    versions = ", ".join(f"{p} {importlib.metadata.version(p)}"
                         for p in ("grist", "trafilatura", "readability-lxml", "selectolax"))
    lines = [f"Run {datetime.datetime.now().isoformat(timespec='minutes')} on Python "
             f"{platform.python_version()}; {versions}.",
             f"Command: `{' '.join(sys.argv)}`" + (f"; not installed: {', '.join(missing)}"
                                                   if missing else ""), "",
             "Shingle F1 (precision / recall):", "",
             "| package | pages | " + " | ".join(systems) + " |",
             "|---|---:|" + "---|" * len(systems)]
    for name, rows in found.items():
        lines.append(f"| {name} | {len(by_package[name])} | "
                     + " | ".join(cell(rows[s]) for s in systems) + " |")
    every = {s: [score for rows in found.values() for score in rows[s]] for s in systems}
    lines.append(f"| **all** | {sum(map(len, by_package.values()))} | "
                 + " | ".join(cell(every[s]) for s in systems) + " |")
    report = "\n".join(lines) + "\n"
    print(report)
    if args.out:
        Path(args.out).write_text(report, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
