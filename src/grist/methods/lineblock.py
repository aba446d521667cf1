"""The ``lineblock`` method of seed 004: line-blocks of the raw source, TTR/ATTR/TKD, thresholds.

Pipeline (seed 004 §V-C): filter useless tags -> break lines -> line-blocks -> features ->
threshold check. No DOM is built. Every text line becomes one Block labelled by its line-block.

Decision rule (seed 004 §V Step 4, ``rule="all"``): content iff TTR > τ_TTR and ATTR < τ_ATTR and
TKD >= τ_TKD. ``rule="rescue"`` reads Step 3 instead — title keywords add blocks back:
content iff ATTR < τ_ATTR and (TTR > τ_TTR or TKD >= τ_TKD). τ_TTR is 30 (fixed, §IV-B) or, with
``sigma_lambda`` set, λσ where σ is the standard deviation of the page's line-block TTRs (§IV-B).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from grist.document import BOILERPLATE, CONTENT, Block, Document
from grist.errors import GristError
from grist.features.lineblock import (
    TITLE_STOPWORDS,
    block_sums,
    keyword_count,
    lineblock_features,
    title_keywords,
)
from grist.features.matrix import FeatureMatrix
from grist.methods.base import Labelled, Method, PageContext
from grist.segment.lines import LineConfig, filter_useless_tags, get_lines, line_blocks

RULES = ("all", "rescue")
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}


@dataclass(frozen=True)
class LineBlockConfig:
    """Seed 004's thresholds (§IV-B: TTR 30, ATTR 0.2, TKD 2) and how lines are built.

    The defaults are the best reading on our benchmark (docs/decisions.md; figures in
    docs/benchmarks/lineblock.md): per-page τ_TTR = 0.25σ, the ``rescue`` rule, lines broken at
    block tags, line-blocks across one textless line. ``LineBlockConfig.paper()`` is the literal
    reading.

    sigma_lambda: when set, τ_TTR = sigma_lambda · σ(TTR of the page's line-blocks) replaces
                  ``ttr_threshold`` (the paper's per-page τ = λσ).
    rule:         ``all`` (the three tests joined by AND, §V Step 4) or ``rescue`` (TKD adds
                  low-TTR blocks back, §V Step 3).
    """

    ttr_threshold: float = 30.0
    attr_threshold: float = 0.2
    tkd_threshold: float = 2.0
    sigma_lambda: float | None = 0.25
    rule: str = "rescue"
    title_stopwords: frozenset[str] = TITLE_STOPWORDS
    lines: LineConfig = field(default_factory=lambda: LineConfig(max_gap=1))

    @classmethod
    def paper(cls) -> LineBlockConfig:
        """The most literal reading: source lines, fixed 30 / 0.2 / 2, the three tests by AND."""
        return cls(
            sigma_lambda=None,
            rule="all",
            lines=LineConfig(break_at_tags=False, break_at_newlines=True),
        )

    def __post_init__(self) -> None:
        if self.rule not in RULES:
            raise GristError(f"lineblock rule must be one of {', '.join(RULES)}, not {self.rule!r}")


def ttr_threshold(ttr: np.ndarray, config: LineBlockConfig) -> float:
    """τ_TTR of one page: the fixed threshold, or λσ over the page's line-block TTRs."""
    if config.sigma_lambda is None:
        return config.ttr_threshold
    return float(config.sigma_lambda * ttr.std()) if ttr.size else 0.0


def classify(features: FeatureMatrix, config: LineBlockConfig) -> tuple[np.ndarray, float]:
    """Seed 004 ``threshold_check``: a content mask over line-blocks and the τ_TTR used."""
    ttr = features.column("ttr")
    tau = ttr_threshold(ttr, config)
    dense = ttr > tau
    few_links = features.column("attr") < config.attr_threshold
    titled = features.column("tkd") >= config.tkd_threshold
    if config.rule == "all":
        return dense & few_links & titled, tau
    return few_links & (dense | titled), tau


def _reason(row: dict[str, float], tau: float, config: LineBlockConfig) -> str:
    def test(name: str, value: float, ok: bool, above: str, below: str, limit: float) -> str:
        return f"{name} {value:.3g} {above if ok else below} {limit:.3g}"

    ttr, attr, tkd = row["ttr"], row["attr"], row["tkd"]
    return ", ".join(
        (
            test("TTR", ttr, ttr > tau, ">", "<=", tau),
            test("ATTR", attr, attr < config.attr_threshold, "<", ">=", config.attr_threshold),
            test("TKD", tkd, tkd >= config.tkd_threshold, ">=", "<", config.tkd_threshold),
        )
    )


def run(doc: Document, config: LineBlockConfig, ctx: PageContext) -> Labelled:
    """Label every text line of the page by the threshold test of its line-block."""
    budget = ctx.budget
    filtered = filter_useless_tags(doc.html, config.lines.useless_tags)
    budget.check("line filtering")
    lines = get_lines(filtered, config.lines)
    budget.check("line breaking")
    ids = line_blocks(lines, config.lines.max_gap)
    n_blocks = int(ids.max()) + 1 if ids.size else 0
    keywords = title_keywords(doc.title, config.title_stopwords)

    def per_block(values: list[float]) -> np.ndarray:
        return block_sums(values, ids, n_blocks)

    features = lineblock_features(
        text_length=per_block([len(line.text) for line in lines]),
        tags=per_block([line.tags for line in lines]),
        anchor_length=per_block([line.anchor_chars for line in lines]),
        tkd=per_block([keyword_count(line.text, keywords) for line in lines]),
        lines=per_block([1.0 if line.text else 0.0 for line in lines]),
    )
    keep, tau = classify(features, config)
    budget.check("line-block features")
    rows = [features.row(b) for b in range(n_blocks)]
    reasons = [_reason(row, tau, config) for row in rows]
    blocks: list[Block] = []
    for line, block_id in zip(lines, ids.tolist(), strict=True):
        if block_id < 0 or not line.text:
            continue
        row = rows[block_id]
        blocks.append(
            Block(
                text=line.text,
                tag=line.tag,
                anchor_words=line.anchor_words,
                anchor_chars=line.anchor_chars,
                tag_counts=line.tag_counts,
                index=len(blocks),
                region=block_id,
                heading=_HEADINGS.get(line.tag, 0),
                label=CONTENT if keep[block_id] else BOILERPLATE,
                reason=reasons[block_id],
                score=row["ttr"],
                info={"line_block": block_id, "ttr": row["ttr"], "attr": row["attr"],
                      "tkd": row["tkd"]},
            )
        )
    return Labelled(blocks)


METHOD = Method(
    name="lineblock",
    summary="seed 004: line-blocks of the raw source classified by TTR, ATTR and title keywords",
    config_type=LineBlockConfig,
    run=run,
    needs_dom=False,
    variants={
        "paper": LineBlockConfig.paper,
        "fixed-thresholds": lambda: LineBlockConfig(sigma_lambda=None),
    },
)
