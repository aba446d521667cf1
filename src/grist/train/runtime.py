"""What the learned methods share at extraction time: cached model loading and block features."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TypeVar

from grist.document import Block, Document
from grist.features.matrix import FeatureMatrix
from grist.limits import Budget
from grist.segment.blocks import segment

T = TypeVar("T")


@lru_cache(maxsize=8)
def load_cached(loader: Callable[[Path], T], shipped: str, path: str | None = None) -> T:
    """The model at ``path`` (default: ``grist/data/<shipped>``), read once per process."""
    if path is None:
        with resources.as_file(resources.files("grist").joinpath("data", shipped)) as file:
            return loader(file)
    return loader(Path(path))


def describe_blocks(doc: Document, budget: Budget,
                    describe: Callable[[list[Block], Document], FeatureMatrix]
                    ) -> tuple[list[Block], FeatureMatrix | None]:
    """Segment the page and compute its feature rows (None when it has no block)."""
    blocks = segment(doc)
    budget.check("segmentation")
    if not blocks:
        return blocks, None
    matrix = describe(blocks, doc)
    budget.check("features")
    return blocks, matrix
