"""Metadata accuracy of grist beside trafilatura (``with_metadata=True``), in one run.

Usage: python benchmarks/metadata_eval.py [--datasets-dir ../shared/datasets] [--limit N]
       [--report docs/benchmarks/metadata.md]

Against gold (``modern-dev-meta.jsonl.gz`` for the 500 modern-dev pages, and the fields of
``wcxb-dev.jsonl.gz``): title exact match after whitespace and case normalisation, author match
(a gold name found in the system's author string; gold names split on , ; & "and", credentials
such as "MS" ignored), publication date exact to the day, page-type accuracy (gold types mapped:
article/blog -> article, forum, product, documentation -> docs, collection/listing -> listing,
service -> other). Rates are over the pages whose gold has the field. On the other datasets:
how often each field is found. grist runs ``auto`` with its shipped model (metadata reads the
page's markup; only bylines, language and page type look at the blocks).
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import json
import platform
import re
import sys
import time
from collections import Counter, defaultdict
from importlib.metadata import version
from pathlib import Path

import grist
from reporting import publish  # benchmarks/reporting.py (the script's folder is on sys.path)

TYPE_MAP = {"article": "article", "blog": "article", "forum": "forum", "product": "product",
            "documentation": "docs", "collection": "listing", "listing": "listing",
            "service": "other"}
FIELDS = ("title", "author", "date", "sitename", "description", "image", "language",
          "categories", "tags", "url")
OTHER = ("cleaneval-final", "dragnet", "l3s-gn1", "readability", "cleanportaleval")
_NAME_SPLIT = re.compile(r"\s*(?:,|;|&|\band\b)\s*", re.IGNORECASE)


def norm(text: str | None) -> str:
    return " ".join((text or "").split()).casefold()


def gold_names(author: str) -> list[str]:
    return [n for n in (norm(p) for p in _NAME_SPLIT.split(author))
            if len(n) >= 3 and not re.fullmatch(r"[a-z]{1,4}\.?", n.replace(" ", ""))
            or (n and any(c.isdigit() for c in n))]


def author_match(gold: str, found: str | None) -> bool:
    found = norm(found)
    return bool(found) and any(name in found for name in gold_names(gold))


def trafilatura_meta(html: str, url: str | None) -> dict:
    import trafilatura

    doc = trafilatura.bare_extraction(html, url=url, with_metadata=True)
    if doc is None:
        return {}
    get = doc.as_dict() if hasattr(doc, "as_dict") else dict(doc)
    return {"title": get.get("title"), "author": get.get("author"), "date": get.get("date"),
            "sitename": get.get("sitename"), "description": get.get("description"),
            "image": get.get("image"), "language": get.get("language"),
            "categories": get.get("categories"), "tags": get.get("tags"),
            "url": get.get("url"), "page_type": get.get("pagetype")}


def grist_meta(extractor: grist.Extractor, html: str, url: str | None) -> dict:
    try:
        return extractor(html, url).metadata.as_dict()
    except grist.GristError:
        return {}


def trafilatura_type(value: str | None) -> str:
    value = (value or "").lower()
    if value in ("article", "blogposting", "newsarticle", "blog", "blogs", "post"):
        return "article"
    if "product" in value:
        return "product"
    return "other"


def records(path: Path, limit: int | None):
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for number, line in enumerate(handle):
            if limit is not None and number >= limit:
                return
            yield json.loads(line)


def score_gold(name: str, pages: list[dict], systems: dict) -> list[str]:
    """Rows of the gold comparison for one dataset."""
    counts: dict[str, Counter] = defaultdict(Counter)
    for page in pages:
        for system, meta in page["found"].items():
            c = counts[system]
            if page["title"]:
                c["title_n"] += 1
                c["title"] += norm(meta.get("title")) == norm(page["title"])
            if page["author"]:
                c["author_n"] += 1
                c["author"] += author_match(page["author"], meta.get("author"))
            elif meta.get("author"):
                c["author_spurious"] += 1
            if page["publish_date"]:
                c["date_n"] += 1
                c["date"] += (meta.get("date") or "")[:10] == page["publish_date"]
            elif meta.get("date"):
                c["date_spurious"] += 1
            if page["page_type"] in TYPE_MAP:
                c["type_n"] += 1
                predicted = meta.get("page_type")
                if system == "trafilatura":
                    predicted = trafilatura_type(predicted)
                c["type"] += predicted == TYPE_MAP[page["page_type"]]
    rows = []
    for system in systems:
        c = counts[system]
        pages_without_author = sum(1 for p in pages if not p["author"])
        pages_without_date = sum(1 for p in pages if not p["publish_date"])
        rows.append(
            f"| {name} | {system} | {c['title'] / max(c['title_n'], 1):.3f} ({c['title_n']}) | "
            f"{c['author'] / max(c['author_n'], 1):.3f} ({c['author_n']}) | "
            f"{c['date'] / max(c['date_n'], 1):.3f} ({c['date_n']}) | "
            f"{c['type'] / max(c['type_n'], 1):.3f} ({c['type_n']}) | "
            f"{c['author_spurious']}/{pages_without_author} | "
            f"{c['date_spurious']}/{pages_without_date} |")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets-dir", type=Path, default=Path("../shared/datasets"))
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--other-limit", type=int, default=100)
    parser.add_argument("--report", type=Path)
    parser.add_argument("--dump", type=Path, help="write every page's fields as JSON lines")
    args = parser.parse_args()
    extractor = grist.Extractor()
    systems = {"grist": lambda h, u: grist_meta(extractor, h, u),
               "trafilatura": trafilatura_meta}
    seconds: Counter = Counter()
    gold_meta = {r["id"]: r for r in records(args.datasets_dir / "modern-dev-meta.jsonl.gz", None)}
    dumped = []
    table = []
    for name in ("modern-dev", "wcxb-dev"):
        pages = []
        for record in records(args.datasets_dir / f"{name}.jsonl.gz", args.limit):
            gold = gold_meta.get(record["id"], {}) if name == "modern-dev" else record
            page = {"id": record["id"], "title": gold.get("title") or record.get("title"),
                    "author": gold.get("author"), "publish_date": gold.get("publish_date"),
                    "page_type": gold.get("page_type") or record.get("page_type"), "found": {}}
            for system, run in systems.items():
                started = time.process_time()
                page["found"][system] = run(record["html"], record.get("url"))
                seconds[system] += time.process_time() - started
            pages.append(page)
            dumped.append({"dataset": name, **page})
        table += score_gold(name, pages, systems)
        print(f"{name}: {len(pages)} pages", file=sys.stderr)
    found_rows = []
    for name in OTHER:
        found: dict[str, Counter] = defaultdict(Counter)
        total = 0
        for record in records(args.datasets_dir / f"{name}.jsonl.gz", args.other_limit):
            total += 1
            for system, run in systems.items():
                meta = run(record["html"], record.get("url"))
                for field in FIELDS:
                    found[system][field] += bool(meta.get(field))
        for system in systems:
            cells = " | ".join(f"{found[system][f] / max(total, 1):.2f}" for f in FIELDS)
            found_rows.append(f"| {name} ({total}) | {system} | {cells} |")
        print(f"{name}: {total} pages", file=sys.stderr)
    command = " ".join(["python", "benchmarks/metadata_eval.py", *sys.argv[1:]])
    report = "\n".join([
        "# Metadata: grist beside trafilatura",
        "",
        f"Date: {datetime.date.today()}; Python {platform.python_version()}; grist "
        f"{version('grist')}; trafilatura {version('trafilatura')}; shared 2-core machine.",
        f"Command: `{command}`. Definitions in the script's docstring.",
        "",
        "## Against gold (rate, pages with the gold field in parentheses)",
        "",
        "| dataset | system | title exact | author found | date (day) | page type | author on "
        "pages without one | date on pages without one |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
        *table,
        "",
        "## How often each field is found on the other datasets",
        "",
        "| dataset (pages) | system | " + " | ".join(FIELDS) + " |",
        "|---|---|" + "---:|" * len(FIELDS),
        *found_rows,
        "",
        f"CPU seconds on the gold datasets (grist: extraction with metadata; trafilatura: "
        f"bare_extraction with metadata): grist {seconds['grist']:.1f}, trafilatura "
        f"{seconds['trafilatura']:.1f}.",
        "",
    ])
    if args.dump:
        with args.dump.open("w", encoding="utf-8") as out:
            for row in dumped:
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
    return publish(report, args.report)


if __name__ == "__main__":
    sys.exit(main())
