"""Method ``auto``: the learned two-stage classifier over shallow + DOM-context block features.

Segments the page (seed 000 §4.1.1), computes ``grist.train.features`` rows, scores every block
with the shipped model (``grist/data/auto-1.json.gz``) or a user's (``AutoConfig.model_path``,
made with ``grist train``). Each block's ``score`` is the final probability of content; its
``reason`` lists the features that pushed it most and the shift the context stage added.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grist.document import BOILERPLATE, CONTENT, Block, Document
from grist.limits import Budget
from grist.methods.base import Method
from grist.train.explain import top_contributions
from grist.train.features import stage1_features
from grist.train.model import SHIPPED, AutoModel, load_model
from grist.train.runtime import describe_blocks, load_cached


@dataclass(frozen=True)
class AutoConfig:
    """model_path: a model file from ``grist train`` (None: the shipped model).

    threshold: probability from which a block is content (None: the model's own).
    explain:   fill each block's ``reason`` with the ``top_features`` stage-1 features whose path
               contributions (over all trees) pushed it most towards its label.
    """

    model_path: str | None = None
    threshold: float | None = None
    explain: bool = True
    top_features: int = 3


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return np.log(p / (1 - p))


def run(doc: Document, config: AutoConfig, budget: Budget) -> list[Block]:
    """Label every block of the page with the learned model."""
    blocks, matrix = describe_blocks(doc, budget, stage1_features)
    if matrix is None:
        return blocks
    model: AutoModel = load_cached(load_model, SHIPPED, config.model_path)
    p1, contrib = model.stage1_scores(matrix, contributions=config.explain)
    p2, _ = model.stage2_scores(matrix, [b.region for b in blocks], [b.path for b in blocks], p1)
    threshold = model.threshold if config.threshold is None else config.threshold
    keep = p2 >= threshold
    reasons = [""] * len(blocks)
    if contrib is not None:
        reasons = top_contributions(contrib, matrix.values, matrix.names, keep,
                                    config.top_features)
    shift = _logit(p2) - _logit(p1)
    for block, k, p, first, s, why in zip(blocks, keep, p2, p1, shift, reasons, strict=True):
        block.label = CONTENT if k else BOILERPLATE
        block.score = float(p)
        block.reason = f"p={p:.3f}" + (f"; {why}; context {s:+.2f}" if config.explain else "")
        block.info["stage1"] = float(first)
    return blocks


METHOD = Method(
    name="auto",
    summary="learned two-stage boosted trees over shallow and DOM-context block features",
    config_type=AutoConfig,
    run=run,
)
