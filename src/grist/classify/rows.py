"""The training rows of one page: what ``grist.train`` makes from gold text and models fit on."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class LabelledPage:
    """One page's block feature matrix (``values``, one row per block), the blocks' labels
    (True = in the gold text), and what is needed to build its context features and to score it.

    ``comments``: blocks aligned with a comments gold (Dragnet's), when the page has one;
    ``roles``: every block's role (indices into ``grist.document.ROLES``, from
    ``grist.classify.roles``); ``page_type``: the dataset's page type, when it gives one.
    """

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
    comments: np.ndarray | None = None
    roles: np.ndarray | None = None
    page_type: str | None = None
