"""The ``justext`` method: seed 000 segmentation -> shallow features -> jusText rules (Algorithm 1
followed by the context-sensitive pass). The feature matrix is returned with the labels."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from grist.classify.rules import RuleConfig, classify
from grist.document import Document
from grist.features.stopwords import AUTO
from grist.features.text import block_features, stopword_language
from grist.methods.base import Labelled, Method, PageContext
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


def run(doc: Document, config: JustextConfig, ctx: PageContext) -> Labelled:
    """Segment, describe and classify the blocks of one parsed page."""
    blocks = segment(doc, config.segment, ctx.budget)
    ctx.budget.check("segmentation")
    stopwords, meta = config.stopwords, {}
    if isinstance(stopwords, str) and stopwords == AUTO:
        stopwords = meta["language"] = stopword_language([b.text for b in blocks])
    features = block_features(blocks, stopwords)
    ctx.budget.check("block features")
    classify(blocks, features, config.rules)
    return Labelled(blocks, features=features, meta=meta)


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
