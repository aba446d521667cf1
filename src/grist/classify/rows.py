"""The training rows of one page: what ``grist.train`` makes from gold text and models fit on."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class LabelledPage:
    """One page's block feature matrix (``values``, one row per block), the blocks' labels
    (True = content), and what is needed to build its context features and to score it."""

    id: str
    dataset: str
    site: str
    values: np.ndarray
    labels: np.ndarray
    texts: list[str]
    regions: list[int]
    paths: list[str]
    gold: str
    coverage: float
