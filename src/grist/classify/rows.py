"""The training rows of one page: what ``grist.train`` makes from gold text and models fit on."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from grist.errors import ModelError


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


def check_rows(values: Any, labels: Any, names: Sequence[str], what: str = "the training rows"
               ) -> tuple[np.ndarray, np.ndarray]:
    """``values`` and ``labels`` as arrays, after checking they are a matrix of numbers with one
    true/false label per row and one of ``names`` per column (ModelError naming ``what``): a
    mismatch would train on shifted rows, or fail only when the model predicts."""
    matrix, labels = np.asarray(values), np.asarray(labels)
    if matrix.ndim != 2 or matrix.dtype.kind not in "biuf":
        raise ModelError(f"{what} must be a matrix of numbers, one row per block (got "
                         f"{matrix.dtype} of shape {matrix.shape})")
    if labels.ndim != 1 or len(labels) != len(matrix):
        raise ModelError(f"{what}: {labels.size} labels for {len(matrix)} rows; give one per row")
    if not np.isin(labels, (0, 1)).all():
        raise ModelError(f"{what}: labels must be True (content) or False")
    if matrix.shape[1] != len(names):
        raise ModelError(f"{what}: {len(names)} feature names for {matrix.shape[1]} columns; "
                         "give one per column")
    return matrix, labels.astype(bool)


def check_leaf_room(blocks: int, min_leaf: int, share: float = 1.0) -> None:
    """ModelError when the ``share`` of ``blocks`` each tree learns from (LightGBM's bagging)
    cannot fill two leaves of ``min_leaf`` blocks: every tree would be a single leaf, keeping
    every block or none."""
    if blocks * share < 2 * min_leaf:
        sampled = f" ({share:g} of them per tree: bagging_fraction)" if share < 1 else ""
        raise ModelError(f"{blocks} training blocks{sampled} cannot fill two leaves of {min_leaf} "
                         "blocks (min_leaf): the model would be a single leaf that keeps every "
                         "block or none; lower min_leaf (grist train --min-leaf) or train on more "
                         "pages")
