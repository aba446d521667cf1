"""A small cross-page model for the protocol's tests: block texts seen on two or more pages of a
host are boilerplate. It saves itself in grist's model-file format, as a real model does."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np

from grist.crosspage import Verdict
from grist.document import BOILERPLATE, Block, Document, RawPage
from grist.errors import GristError
from grist.features.matrix import FeatureMatrix
from grist.html.load import load_document
from grist.html.parse import parse_document
from grist.modelfile import load_model, write_model
from grist.segment.blocks import segment


def _host(url: str | None) -> str:
    return urlsplit(url or "").hostname or ""


class RepeatModel:
    """Counts, per host, on how many pages each block text occurs."""

    source = "repeats"

    def __init__(self, min_pages: int = 2) -> None:
        self.min_pages = min_pages

    def fit(self, pages: Iterable[RawPage]) -> RepeatModel:
        self.counts_: dict[str, Counter[str]] = {}
        for page in pages:
            self.update(page)
        return self

    def update(self, page: RawPage) -> RepeatModel:
        counts = getattr(self, "counts_", None)
        if counts is None:
            counts = self.counts_ = {}
        try:
            doc = parse_document(load_document(page.content, page.url))
        except GristError:
            return self
        texts = {b.text for b in segment(doc)}
        counts.setdefault(_host(page.url), Counter()).update(texts)
        return self

    def _seen(self, doc: Document, blocks: Sequence[Block]) -> list[int]:
        counts = self.counts_.get(_host(doc.url), Counter())
        return [counts[b.text] for b in blocks]

    def annotate(self, doc: Document, blocks: Sequence[Block]) -> FeatureMatrix:
        seen = np.array(self._seen(doc, blocks), dtype=float).reshape(len(blocks), 1)
        return FeatureMatrix(("repeat_pages",), seen)

    def relabel(self, doc: Document, blocks: Sequence[Block]) -> list[Verdict | None]:
        return [Verdict(BOILERPLATE, f"text on {n} pages of its host", self.source)
                if n >= self.min_pages else None for n in self._seen(doc, blocks)]

    def save(self, path: str | Path) -> None:
        write_model(path, "repeats", 1, {"min_pages": self.min_pages,
                                          "counts": {h: dict(c) for h, c in self.counts_.items()}})

    @classmethod
    def load(cls, path: str | Path) -> RepeatModel:
        def build(payload: dict) -> RepeatModel:
            model = cls(payload["min_pages"])
            model.counts_ = {h: Counter(c) for h, c in payload["counts"].items()}
            return model

        return load_model(path, "repeats", 1, build)
