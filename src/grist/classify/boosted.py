"""``AutoModel``, the learned block classifier of ``auto``: two stages of gradient-boosted trees.

Stage 1 scores each block from its own shallow + DOM-context features. Stage 2 rescores it from
the stage-1 probabilities around it (neighbours, window, region, DOM path, page), where they
stand on the page, and the page's predicted type (``grist.classify.pagetype``); it is trained
on out-of-fold stage-1 predictions so it learns how far to trust them. What a positive block is
(the body, by default) and how the model is trained: ``grist.classify.fitting``.

Training needs lightgbm (the ``train`` extra), imported when a model is fitted; predicting does
not: the boosters are kept in LightGBM's text format and evaluated with NumPy
(``grist.classify.forest``), which also gives the per-feature contributions of the explanations.

A model file (``grist.modelfile``, kind ``auto``, version 2) holds the boosters (stages 1 and
2, the page type, the optional page cut) in LightGBM's text format, the feature names, the
threshold and how the model was made.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from grist.classify.cut import clip_cut, page_cut_features
from grist.classify.fitting import TrainConfig, fit_boosters
from grist.classify.forest import Forest
from grist.classify.pagetype import page_row, type_columns
from grist.classify.rows import LabelledPage
from grist.errors import ModelError
from grist.features.auto import stage2_parts
from grist.features.matrix import FeatureMatrix
from grist.modelfile import load_model, write_model

__all__ = ["SHIPPED", "AutoModel", "TrainConfig"]

KIND = "auto"
VERSION = 2
SHIPPED = "auto-2.json.gz"


class AutoModel:
    """Two stages of boosted trees over block feature rows, with the estimator life cycle.

    ``AutoModel(config).fit(pages)`` trains both stages (LightGBM, the ``train`` extra, imported
    inside ``fit``); ``predict`` scores one page with NumPy alone (``grist.classify.forest``);
    ``save`` and ``AutoModel.load`` write and read a model file. Fitted attributes end in ``_``:
    the feature names each stage reads, both boosters in LightGBM's text format and parsed, the
    threshold, and how the model was made (``meta_``).
    """

    def __init__(self, config: TrainConfig | None = None) -> None:
        self.config = config or TrainConfig()

    @property
    def threshold_(self) -> float:
        return self._fitted().threshold

    @property
    def names1_(self) -> tuple[str, ...]:
        return self._fitted().stage1.names

    @property
    def names2_(self) -> tuple[str, ...]:
        return self._fitted().stage2.names

    @property
    def meta_(self) -> dict[str, Any]:
        return self._fitted().meta

    def _fitted(self) -> _Boosters:
        boosters = getattr(self, "boosters_", None)
        if boosters is None:
            raise ModelError("the model is not fitted; call fit() or AutoModel.load()")
        return boosters

    def fit(self, pages: Sequence[LabelledPage], names1: Sequence[str],
            on_stage: Callable[[str], None] | None = None) -> AutoModel:
        """Train both stages on labelled pages (stage 2 on out-of-fold stage-1 probabilities);
        ``on_stage``, when given, is called with a line before each stage of the training."""
        self.boosters_ = _Boosters(**fit_boosters(pages, tuple(names1), self.config, on_stage))
        return self

    def page_types(self, matrix: FeatureMatrix, p1: np.ndarray) -> np.ndarray:
        """The predicted probability of each page type (``grist.classify.pagetype.TYPES``);
        empty when the model has no type stage."""
        types = self._fitted().types
        if types is None:
            return np.zeros(0)
        return types.predict(page_row(matrix, p1)[None, :])[0]

    def cut(self, p2: np.ndarray, words: np.ndarray, types: np.ndarray | None = None) -> float:
        """The threshold for this page: learned from its probabilities when the model has a
        page cut; else, when the model has a threshold per page type, their mean weighed by the
        page's type probabilities ``types`` (``page_types``); else the model's one threshold."""
        b = self._fitted()
        if b.cut is None:
            if b.type_thresholds and types is not None and len(types):
                return float(np.dot(types, b.type_thresholds))
            return b.threshold
        return clip_cut(float(b.cut.evaluate(page_cut_features(p2, words)[None, :])[0][0]))

    def stage1_scores(self, matrix: FeatureMatrix, contributions: bool = False
                      ) -> tuple[np.ndarray, np.ndarray | None]:
        """Stage-1 probabilities, and (if asked) each feature's contribution to the raw score
        (Saabas path contributions, bias last)."""
        stage1 = self._fitted().stage1
        if matrix.names != stage1.names:
            raise ModelError("the model was trained on other features; retrain it with grist train")
        raw, contrib = stage1.evaluate(matrix.values, contributions)
        return stage1.transform(raw), contrib

    def stage2_scores(self, matrix: FeatureMatrix, regions: Sequence[int], paths: Sequence[str],
                      p1: np.ndarray, types: np.ndarray | None = None
                      ) -> tuple[np.ndarray, FeatureMatrix]:
        """Final probabilities from the stage-1 ones in context, and the stage-2 features
        (``types``: the page's ``page_types``, computed here when not given)."""
        parts = stage2_parts(regions, paths, matrix, p1)
        b = self._fitted()
        if b.types is not None:
            if types is None:
                types = self.page_types(matrix, p1)
            parts.append(type_columns(types, len(matrix)))
        second = FeatureMatrix.concat(parts)
        stage2 = b.stage2
        if second.names != stage2.names:
            second = _select(second, stage2.names)
        return stage2.predict(second.values), second

    def predict(self, matrix: FeatureMatrix, regions: Sequence[int],
                paths: Sequence[str]) -> tuple[np.ndarray, np.ndarray, float]:
        """Stage-1 and final probabilities of one page's blocks, and the page's threshold
        (``cut``)."""
        p1, _ = self.stage1_scores(matrix)
        types = self.page_types(matrix, p1)
        p2, _ = self.stage2_scores(matrix, regions, paths, p1, types)
        return p1, p2, self.cut(p2, matrix.column("num_words"), types)

    def save(self, path: str | Path) -> None:
        """Write the model file (gzip when the name ends in ``.gz``)."""
        b = self._fitted()
        write_model(path, KIND, VERSION, {
            "threshold": b.threshold, "names1": list(b.stage1.names),
            "names2": list(b.stage2.names), "stage1": b.text1, "stage2": b.text2, "meta": b.meta,
            "cut": b.text_cut, "types": b.text_types, "type_thresholds": b.type_thresholds,
        })

    @classmethod
    def load(cls, path: str | Path) -> AutoModel:
        """Read a model file written by ``save`` (ModelError when it is not a usable one)."""
        return load_model(path, KIND, VERSION, cls._from_payload)

    @classmethod
    def _from_payload(cls, payload: dict[str, Any]) -> AutoModel:
        boosters = _Boosters(payload["stage1"], payload["stage2"], float(payload["threshold"]),
                             payload.get("meta", {}), payload.get("cut", ""),
                             payload.get("types", ""), payload.get("type_thresholds", []))
        if (boosters.stage1.names != tuple(payload["names1"])
                or boosters.stage2.names != tuple(payload["names2"])):
            raise ModelError("the model's boosters read other features than it lists")
        known = {f.name for f in fields(TrainConfig)}
        config = {k: v for k, v in boosters.meta.get("config", {}).items() if k in known}
        model = cls(TrainConfig(**config))
        model.boosters_ = boosters
        return model


@dataclass(frozen=True)
class _Boosters:
    """What fitting produces: both stages as LightGBM text (what is saved) and parsed."""

    text1: str
    text2: str
    threshold: float
    meta: dict[str, Any] = field(default_factory=dict)
    text_cut: str = ""  # the page-cut booster, when the model has one
    text_types: str = ""  # the page-type booster, when the model has one
    type_thresholds: list[float] = field(default_factory=list)  # per page type, when learned
    stage1: Forest = field(init=False, repr=False)
    stage2: Forest = field(init=False, repr=False)
    cut: Forest | None = field(init=False, repr=False)
    types: Forest | None = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "stage1", Forest.parse(self.text1))
        object.__setattr__(self, "stage2", Forest.parse(self.text2))
        object.__setattr__(self, "cut", Forest.parse(self.text_cut) if self.text_cut else None)
        object.__setattr__(self, "types",
                           Forest.parse(self.text_types) if self.text_types else None)


def _select(matrix: FeatureMatrix, names: Sequence[str]) -> FeatureMatrix:
    """The columns ``names`` of ``matrix`` (ModelError when one is missing)."""
    try:
        return matrix.select(names)
    except ValueError:
        raise ModelError("the model was trained on other features; retrain it with grist train"
                         ) from None
