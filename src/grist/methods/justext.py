"""The ``justext`` method: seed 000 segmentation -> shallow features -> jusText rules (Algorithm 1
followed by the context-sensitive pass). The feature matrix is handed to the Result."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from grist.classify.rules import RuleConfig, classify
from grist.document import Block, Document
from grist.features.text import block_features
from grist.limits import Budget
from grist.methods.base import Method
from grist.segment.blocks import PAPER_BLOCK_TAGS, SegmentConfig, segment


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


_DEFAULT = JustextConfig()
# Named readings and ablations, selectable as "justext/<name>" (docs/benchmarks/justext-parity.md).
VARIANTS = {
    "no-headings": lambda: replace(_DEFAULT, rules=RuleConfig(headings="off")),
    "full-headings": lambda: replace(_DEFAULT, rules=RuleConfig(headings="full")),
    # Seed 000 read literally: lengths and link density in tokens, the paper's block-tag list.
    "paper-literal": lambda: JustextConfig(
        rules=RuleConfig(length_unit="tokens", link_density_unit="tokens"),
        segment=SegmentConfig(block_tags=PAPER_BLOCK_TAGS | {"body"}),
    ),
    "token-links": lambda: replace(_DEFAULT, rules=RuleConfig(link_density_unit="tokens")),
    "paper-tags": lambda: replace(
        _DEFAULT, segment=SegmentConfig(block_tags=PAPER_BLOCK_TAGS | {"body"})
    ),
    "auto-language": lambda: replace(_DEFAULT, stopwords="auto"),
}

METHOD = Method(
    name="justext",
    summary="jusText rules (seed 000 Algorithm 1 + context-sensitive pass) on shallow features",
    config_type=JustextConfig,
    run=run,
    variants=VARIANTS,
)
