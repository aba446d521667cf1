"""``DecisionTree``, seed 000's C4.5-style decision tree: entropy splits, a minimum leaf size,
explainable paths.

``fit`` uses scikit-learn's ``DecisionTreeClassifier(criterion="entropy", min_samples_leaf=N)``
(the ``train`` extra, imported inside it); the fitted tree is kept as plain arrays, so predicting
needs NumPy only and the model file (``grist.modelfile``, kind ``tree``) is small readable JSON.
``decision_path`` spells out the tests a block passed, like seed 000 §4.1.2's worked example
("Curr-linkDensity <= 0.3 ...").
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from grist.classify.rows import check_leaf_room, check_rows
from grist.errors import ModelError
from grist.checks import check_whole
from grist.modelfile import load_model, write_model

KIND = "tree"
VERSION = 1
SHIPPED = "tree-1.json"
_ARRAYS = ("feature_", "threshold_", "left_", "right_", "proba_")


class DecisionTree:
    """A binary tree over named features, with the estimator life cycle.

    Fitted attributes (arrays over nodes; node 0 is the root, ``left_[i] == -1`` marks a leaf):
    ``names_``, ``feature_``, ``threshold_``, ``left_``, ``right_`` and ``proba_``, the
    (word-weighted) share of content among the training blocks in each node.
    """

    def __init__(self, min_leaf: int = 1000, max_depth: int | None = None) -> None:
        """``min_leaf``: fewest training blocks in a leaf; ``max_depth``: deepest level, None
        for no limit (ConfigError when out of range)."""
        self.min_leaf = min_leaf
        self.max_depth = max_depth
        check_whole(self, "min_leaf", least=1)
        if max_depth is not None:
            check_whole(self, "max_depth", least=1)

    def fit(self, values: np.ndarray, labels: np.ndarray, names: Sequence[str],
            weights: np.ndarray | None = None) -> DecisionTree:
        """Fit an entropy-split tree whose leaves hold at least ``min_leaf`` blocks (ModelError
        when the rows, labels, names or weights do not match, or cannot make two leaves)."""
        try:
            from sklearn.tree import DecisionTreeClassifier
        except ImportError:  # pragma: no cover - exercised only without the train extra
            raise ModelError("training a tree needs scikit-learn: pip install 'grist[train]'") from None
        values, labels = check_rows(values, labels, names)
        if weights is not None and np.shape(weights) != labels.shape:
            raise ModelError(f"{np.size(weights)} weights for {len(labels)} rows; give one per row")
        check_leaf_room(len(labels), self.min_leaf)
        if len(np.unique(labels)) < 2:
            raise ModelError("the training blocks are all of one class; a tree needs both")
        clf = DecisionTreeClassifier(criterion="entropy", min_samples_leaf=self.min_leaf,
                                     max_depth=self.max_depth, random_state=0)
        clf.fit(values, labels.astype(int), sample_weight=weights)
        t = clf.tree_
        counts = t.value[:, 0, :]
        self.names_ = tuple(names)
        self.feature_ = t.feature.astype(np.int64)
        self.threshold_ = t.threshold.astype(float)
        self.left_ = t.children_left.astype(np.int64)
        self.right_ = t.children_right.astype(np.int64)
        self.proba_ = counts[:, 1] / np.maximum(counts.sum(axis=1), 1e-12)
        return self

    def _check_fitted(self) -> None:
        if not hasattr(self, "proba_"):
            raise ModelError("the tree is not fitted; call fit() or DecisionTree.load()")

    def leaves(self, values: np.ndarray) -> np.ndarray:
        """The leaf each row ends in (vectorised walk, one step per tree level)."""
        self._check_fitted()
        node = np.zeros(len(values), dtype=np.int64)
        rows = np.arange(len(values))
        while True:
            inner = self.left_[node] >= 0
            if not inner.any():
                return node
            go_left = values[rows, np.maximum(self.feature_[node], 0)] <= self.threshold_[node]
            node = np.where(inner, np.where(go_left, self.left_[node], self.right_[node]), node)

    def predict(self, values: np.ndarray) -> np.ndarray:
        """The probability of content of each row (the share of content in its leaf)."""
        self._check_fitted()
        values = np.asarray(values)
        if values.ndim != 2 or values.shape[1] != len(self.names_):
            raise ModelError(f"the tree reads rows of {len(self.names_)} features, got an array "
                             f"of shape {values.shape}")
        return self.proba_[self.leaves(values)] if len(values) else np.zeros(0)

    def decision_path(self, row: np.ndarray) -> str:
        """The tests one row passes from the root to its leaf, e.g. ``link_density <= 0.33``."""
        self._check_fitted()
        steps = []
        node = 0
        while self.left_[node] >= 0:
            name, cut = self.names_[self.feature_[node]], self.threshold_[node]
            if row[self.feature_[node]] <= cut:
                steps.append(f"{name} <= {cut:.3g}")
                node = self.left_[node]
            else:
                steps.append(f"{name} > {cut:.3g}")
                node = self.right_[node]
        return " & ".join(steps) or "single leaf"

    def save(self, path: str | Path) -> None:
        """Write the model file (plain JSON arrays)."""
        self._check_fitted()
        payload: dict[str, Any] = {"names": list(self.names_),
                                   "min_leaf": self.min_leaf, "max_depth": self.max_depth}
        payload.update({name.rstrip("_"): getattr(self, name).tolist() for name in _ARRAYS})
        write_model(path, KIND, VERSION, payload)

    @classmethod
    def load(cls, path: str | Path) -> DecisionTree:
        """Read a tree written by ``save`` (ModelError when it is not a usable one)."""
        return load_model(path, KIND, VERSION, cls._from_payload)

    @classmethod
    def _from_payload(cls, payload: dict[str, Any]) -> DecisionTree:
        tree = cls(payload.get("min_leaf", 1000), payload.get("max_depth"))
        tree.names_ = tuple(payload["names"])
        for name in _ARRAYS:
            dtype = float if name in ("threshold_", "proba_") else np.int64
            values = np.array(payload[name.rstrip("_")], dtype=dtype)
            values.flags.writeable = False
            setattr(tree, name, values)
        sizes = {len(getattr(tree, name)) for name in _ARRAYS}
        if len(sizes) != 1:
            raise ModelError("tree arrays of different lengths")
        return tree
