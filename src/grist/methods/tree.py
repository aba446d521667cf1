"""Method ``tree``: seed 000's decision tree over the shallow features of previous/current/next block.

The shipped tree (``grist/data/tree-1.json``) was fitted on L3S-GN1 (the paper's Google News
collection) with entropy splits and at least 1000 blocks per leaf (seed 000 §5); ``grist train
--method tree`` fits one on your pages. Each block's ``reason`` is its decision path.
"""

from __future__ import annotations

from dataclasses import dataclass

from grist.classify.tree import SHIPPED, DecisionTree
from grist.document import BOILERPLATE, CONTENT, Document
from grist.errors import ModelError
from grist.features.text import block_features
from grist.methods.base import Labelled, Method, PageContext, describe_blocks
from grist.modelfile import shipped


@dataclass(frozen=True)
class TreeConfig:
    """model_path: a tree from ``grist train --method tree`` (None: the shipped one)."""

    model_path: str | None = None
    threshold: float = 0.5


def load(config: TreeConfig) -> DecisionTree:
    """The tree the config names."""
    return DecisionTree.load(config.model_path or shipped(SHIPPED))


def run(doc: Document, config: TreeConfig, ctx: PageContext) -> Labelled:
    """Label every block by walking the tree; the reason is the path taken."""
    blocks, matrix = describe_blocks(doc, ctx.budget, lambda blocks, _: block_features(blocks))
    if matrix is None:
        return Labelled(blocks)
    tree: DecisionTree = ctx.resources
    if matrix.names != tree.names_:
        raise ModelError("the tree was trained on other features; retrain it with grist train")
    proba = tree.predict(matrix.values)
    for block, p, row in zip(blocks, proba, matrix.values, strict=True):
        block.label = CONTENT if p >= config.threshold else BOILERPLATE
        block.score = float(p)
        block.reason = tree.decision_path(row)
    return Labelled(blocks, features=matrix)


METHOD = Method(
    name="tree",
    summary="seed 000's C4.5-style decision tree over shallow features of neighbouring blocks",
    config_type=TreeConfig,
    run=run,
    load=load,
)
