"""Seed 000's C4.5-style decision tree: entropy splits, a minimum leaf size, explainable paths.

Training uses scikit-learn's ``DecisionTreeClassifier(criterion="entropy", min_samples_leaf=N)``
(the ``train`` extra); the fitted tree is exported to plain arrays, so predicting needs NumPy only
and the model file is small readable JSON. ``decision_path`` spells out the tests a block passed,
like seed 000 §4.1.2's worked example ("Curr-linkDensity <= 0.3 ...").
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from grist.errors import ModelError

FORMAT = "grist-tree"
VERSION = 1


@dataclass(frozen=True)
class TreeModel:
    """A binary tree as arrays; node 0 is the root, ``left[i] == -1`` marks a leaf.

    ``proba[i]`` is the (word-weighted) share of content among the training blocks in node i.
    """

    names: tuple[str, ...]
    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    proba: np.ndarray

    def leaves(self, values: np.ndarray) -> np.ndarray:
        """The leaf each row ends in (vectorised walk, one step per tree level)."""
        node = np.zeros(len(values), dtype=np.int64)
        rows = np.arange(len(values))
        while True:
            inner = self.left[node] >= 0
            if not inner.any():
                return node
            go_left = values[rows, np.maximum(self.feature[node], 0)] <= self.threshold[node]
            node = np.where(inner, np.where(go_left, self.left[node], self.right[node]), node)

    def predict_proba(self, values: np.ndarray) -> np.ndarray:
        if values.shape[1] != len(self.names):
            raise ModelError(f"the tree reads {len(self.names)} features, got {values.shape[1]}")
        return self.proba[self.leaves(values)] if len(values) else np.zeros(0)

    def decision_path(self, row: np.ndarray) -> str:
        """The tests one row passes from the root to its leaf, e.g. ``link_density <= 0.33``."""
        steps = []
        node = 0
        while self.left[node] >= 0:
            name, cut = self.names[self.feature[node]], self.threshold[node]
            if row[self.feature[node]] <= cut:
                steps.append(f"{name} <= {cut:.3g}")
                node = self.left[node]
            else:
                steps.append(f"{name} > {cut:.3g}")
                node = self.right[node]
        return " & ".join(steps) or "single leaf"

    def to_dict(self) -> dict:
        return {
            "format": FORMAT, "version": VERSION, "names": list(self.names),
            "feature": self.feature.tolist(), "threshold": self.threshold.tolist(),
            "left": self.left.tolist(), "right": self.right.tolist(), "proba": self.proba.tolist(),
        }

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict()))


def load_tree(path: str | Path) -> TreeModel:
    """Read a tree written by ``TreeModel.save`` (ModelError when it is not one)."""
    try:
        payload = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise ModelError(f"cannot read tree model {path}: {exc}") from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise ModelError(f"{path} is not a grist tree model")
    if payload.get("version") != VERSION:
        raise ModelError(f"{path} is a version {payload.get('version')} tree; expected {VERSION}")
    return TreeModel(
        names=tuple(payload["names"]), feature=np.array(payload["feature"], dtype=np.int64),
        threshold=np.array(payload["threshold"], dtype=float),
        left=np.array(payload["left"], dtype=np.int64),
        right=np.array(payload["right"], dtype=np.int64), proba=np.array(payload["proba"]),
    )


def fit_tree(values: np.ndarray, labels: np.ndarray, names: Sequence[str], min_leaf: int = 1000,
             weights: np.ndarray | None = None, max_depth: int | None = None) -> TreeModel:
    """Fit an entropy-split tree whose leaves hold at least ``min_leaf`` blocks."""
    try:
        from sklearn.tree import DecisionTreeClassifier
    except ImportError:  # pragma: no cover - exercised only without the train extra
        raise ModelError("training a tree needs scikit-learn: pip install 'grist[train]'") from None
    if len(np.unique(labels)) < 2:
        raise ModelError("the training blocks are all of one class; a tree needs both")
    clf = DecisionTreeClassifier(criterion="entropy", min_samples_leaf=min_leaf,
                                 max_depth=max_depth, random_state=0)
    clf.fit(values, labels.astype(int), sample_weight=weights)
    t = clf.tree_
    counts = t.value[:, 0, :]
    proba = counts[:, 1] / np.maximum(counts.sum(axis=1), 1e-12)
    return TreeModel(tuple(names), t.feature.astype(np.int64), t.threshold.astype(float),
                     t.children_left.astype(np.int64), t.children_right.astype(np.int64), proba)
