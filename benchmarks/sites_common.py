"""What the site-model benchmarks share: the dev-set sites and honest ``auto`` models.

``dev_sites`` reads the shared datasets and keeps the sites (the ``site`` field) with at least
``min_pages`` pages. ``lodo_auto`` trains (once, cached) an ``auto`` model on every other dataset,
so a page is never scored by a model that saw its dataset, let alone its site; the shipped model
was trained on every dataset and is not used for accuracy.
"""

from __future__ import annotations

import datetime
import gzip
import importlib.metadata
import json
import pickle
import platform
import sys
from collections import Counter
from pathlib import Path

from grist.classify.boosted import AutoModel, TrainConfig
from grist.features.auto import stage1_features
from grist.io.datasets import Page, read_jsonl
from grist.train.build import BuildReport, label_pages
from reporting import publish  # benchmarks/reporting.py (the script's folder is on sys.path)

# Every shared dataset (auto's training pool); those with sites of >= 5 pages are evaluated.
ALL_DATASETS = ("cleaneval-dev", "cleaneval-final", "cleanportaleval", "dragnet", "l3s-gn1",
                "modern-dev", "readability")
SITE_DATASETS = ("dragnet", "cleanportaleval", "l3s-gn1", "cleaneval-final", "modern-dev",
                 "readability")


def dev_sites(datasets_dir: Path, datasets: tuple[str, ...] = SITE_DATASETS,
              min_pages: int = 5) -> dict[tuple[str, str], list[Page]]:
    """(dataset, site) -> its pages, for the sites with at least ``min_pages`` pages."""
    out: dict[tuple[str, str], list[Page]] = {}
    for name in datasets:
        pages = list(read_jsonl(datasets_dir / f"{name}.jsonl.gz"))
        counts = Counter(p.site for p in pages if p.site)
        for page in pages:
            if page.site and counts[page.site] >= min_pages:
                out.setdefault((name, page.site), []).append(page)
    return dict(sorted(out.items()))


def _labelled(datasets_dir: Path, name: str, cache: Path) -> list:
    target = cache / f"labelled-{name}.pkl"
    if target.exists():
        return pickle.loads(target.read_bytes())
    pages = list(label_pages(read_jsonl(datasets_dir / f"{name}.jsonl.gz"), BuildReport()))
    target.write_bytes(pickle.dumps(pages))
    return pages


def lodo_auto(datasets_dir: Path, held: str, cache: Path, page_step: int = 2) -> Path:
    """Path of an ``auto`` model trained on every dataset but ``held`` (every ``page_step``-th
    page, as ``benchmarks/auto_cv.py --page-step 2`` does), trained and cached on first use."""
    cache.mkdir(parents=True, exist_ok=True)
    target = cache / f"auto-without-{held}-step{page_step}.json.gz"
    if not target.exists():
        names = stage1_features([], None).names
        train = [p for name in ALL_DATASETS if name != held
                 for p in _labelled(datasets_dir, name, cache)][::page_step]
        print(f"training auto without {held} on {len(train)} pages", file=sys.stderr)
        AutoModel(TrainConfig()).fit(train, names).save(target)
    return target


def provenance(command: str) -> str:
    """Markdown lines: date, versions, machine, the command."""
    versions = ", ".join(f"{name} {importlib.metadata.version(name)}"
                         for name in ("grist", "numpy", "selectolax", "lightgbm"))
    return (f"Run {datetime.date.today().isoformat()} on Python {platform.python_version()} "
            f"({versions}); a shared 2-core machine, times are CPU seconds of one process.\n\n"
            f"Command: `{command}`\n")


def read_generated(path: Path) -> list[dict]:
    """The records of a generated_sites.py file."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def report(lines: list[str], out: Path | None) -> int:
    """Print the report's lines and write them to ``out`` when given; the exit status."""
    return publish("\n".join(lines), out)
