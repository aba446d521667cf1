"""Turn pages with gold text into labelled feature rows (the training set of ``tree`` and ``auto``).

Sources are the shared JSON-lines datasets (``.jsonl``/``.jsonl.gz``, see
``grist.io.datasets``) or a folder of ``NAME.html`` pages with their gold text in
``NAME.txt``. A page that cannot be parsed is skipped and counted, never fatal.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np

from grist.classify.rows import LabelledPage
from grist.errors import GristError
from grist.features.auto import stage1_features
from grist.html.load import load_document
from grist.html.parse import parse_document
from grist.io.datasets import Page
from grist.features.matrix import FeatureMatrix
from grist.segment.blocks import segment_elements
from grist.train.labels import LabelConfig, align
from grist.classify.roles import derive_roles


@dataclass
class BuildReport:
    """Pages used and skipped, and the mean gold coverage of the labels."""

    pages: int = 0
    skipped: int = 0
    coverage: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def mean_coverage(self) -> float:
        return float(np.mean(self.coverage)) if self.coverage else 0.0


def label_page(page: Page, config: LabelConfig | None = None) -> LabelledPage:
    """Parse, segment, featurize and label one page (raises GristError on bad input).

    Labels are the gold alignment; a comments gold (``gold_comments``) is aligned too, and
    every block gets a role (``grist.classify.roles``).
    """
    doc = parse_document(load_document(page.html, page.url))
    blocks, elements = segment_elements(doc)
    matrix = stage1_features(blocks, doc, elements)
    alignment = align(blocks, page.gold, config)
    labels = np.array(alignment.labels, dtype=bool)
    comments = None
    if page.extra.get("gold_comments"):
        comments = np.array(align(blocks, page.extra["gold_comments"], config).labels, dtype=bool)
    values = matrix.values.astype(np.float32)
    texts = [b.text for b in blocks]
    roles = derive_roles(FeatureMatrix(matrix.names, values), texts, labels, comments)
    return LabelledPage(
        id=page.id, dataset=page.dataset, site=page.site or page.id, values=values,
        labels=labels, texts=texts, regions=[b.region for b in blocks],
        paths=[b.path for b in blocks], gold=page.gold, coverage=alignment.coverage,
        comments=comments, roles=roles, page_type=page.extra.get("page_type"),
    )


def label_pages(pages: Iterable[Page], report: BuildReport | None = None) -> Iterator[LabelledPage]:
    """Label every page; bad pages are skipped and recorded in ``report``."""
    report = report if report is not None else BuildReport()
    for page in pages:
        try:
            labelled = label_page(page)
        except GristError as exc:
            report.skipped += 1
            report.errors.append(f"{page.dataset}/{page.id}: {exc}")
            continue
        except Exception as exc:  # noqa: BLE001 - a bug on one page must not stop a batch
            report.skipped += 1
            report.errors.append(f"{page.dataset}/{page.id}: internal error {exc!r}")
            continue
        report.pages += 1
        report.coverage.append(labelled.coverage)
        yield labelled
