"""The ``justext`` method: seed 000 segmentation -> shallow features -> jusText rules (Algorithm 1
followed by the context-sensitive pass). The feature matrix is handed to the Result."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from grist.classify.rules import RuleConfig, classify
from grist.document import Block, Document
from grist.features.text import block_features
from grist.limits import Budget
from grist.methods.base import Method
from grist.segment.blocks import SegmentConfig, segment


@dataclass(frozen=True)
class JustextConfig:
    """Parameters of the ``justext`` method.

    stopwords: a bundled language code (``en``, ``de``, ``fr``, ``es``), ``auto`` (the bundled
               list covering most of the page), a stop-word file path or a set of words.
    rules:     Algorithm 1 thresholds and the context-sensitive options (jusText's defaults).
    segment:   how the page is cut into blocks (seed 000 §4.1.1).
    """

    stopwords: str | Path | frozenset[str] = "en"
    rules: RuleConfig = field(default_factory=RuleConfig)
    segment: SegmentConfig = field(default_factory=SegmentConfig)


def run(doc: Document, config: JustextConfig, budget: Budget) -> list[Block]:
    """Segment, describe and classify the blocks of one parsed page."""
    blocks = segment(doc, config.segment)
    budget.check("segmentation")
    features = block_features(blocks, doc, config.stopwords)
    budget.check("block features")
    classify(blocks, features, config.rules)
    doc.features = features
    return blocks


METHOD = Method(
    name="justext",
    summary="jusText rules (seed 000 Algorithm 1 + context-sensitive pass) on shallow features",
    config_type=JustextConfig,
    run=run,
)
