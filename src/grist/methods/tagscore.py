"""The ``tagscore`` method, seed 001 end to end: primary-noise rules -> DIV/TD blocks -> minimum
subtree and punctuation filter -> modified-simhash dedup -> weighted block score.

The DOM steps (minimum subtree, punctuation) work on seed 001's DIV/TD blocks (regions). Dedup
and the block score work on ``unit``: ``block`` (atomic blocks, the default) or ``region``. Eq. 4
divides a block's content words by the page's distinct content words, so it only behaves on units
of the size of the paper's Table 4 (33-69 words); a whole-article region scores below zero. The rules delete DOM elements, so the page is segmented before and after them
and the two block lists are aligned: blocks that vanished are reported as removed by the rule
that took them, and every block of the page is returned with its label and reason.
"""

from __future__ import annotations

import difflib
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from grist.classify.scoring import WeightedScoreConfig, label_by_weighted_score, link_vocabulary
from grist.clean import ALL_RULES, Removal, RuleConfig, apply_rules
from grist.dedup.stage import DedupConfig, drop_near_duplicates
from grist.document import BOILERPLATE, CONTENT, Block, Document
from grist.errors import GristError
from grist.limits import Budget
from grist.methods.base import Labelled, Method, PageContext
from grist.segment.blocks import SegmentConfig, segment
from grist.segment.regions import minimum_subtree, region_tree, unpunctuated_regions

STAGES = ("rules", "subtree", "punctuation", "dedup", "score")


@dataclass(frozen=True)
class TagscoreConfig:
    """Parameters of ``tagscore``; ``stages`` switches pipeline steps off for ablations.

    The paper fixes neither the minimum subtree's share of the page text nor the size under which
    a DIV/TD block is merged before counting punctuation; 0.5 and 5 words were chosen on
    cleaneval-dev and the first 60 pages of l3s-gn1 (docs/benchmarks/dedup.md).
    """

    stages: tuple[str, ...] = STAGES
    rules: RuleConfig = field(default_factory=RuleConfig)
    segment: SegmentConfig = field(default_factory=SegmentConfig)
    subtree_share: float = 0.5
    punctuation_min_words: int = 5
    unit: str = "block"
    dedup: DedupConfig = field(default_factory=DedupConfig)
    scoring: WeightedScoreConfig = field(default_factory=WeightedScoreConfig)


def _drop(blocks: list[Block], regions: set[int], reason: str) -> None:
    for block in blocks:
        if block.label is None and block.region in regions:
            block.label, block.reason = BOILERPLATE, reason


def _units(blocks: list[Block], unit: str) -> list[Block]:
    """The still-unlabelled dedup/scoring units in page order: the blocks themselves, or one Block
    per region (its blocks' text joined, ``index`` = region id)."""
    live = [b for b in blocks if b.label is None]
    if unit == "block":
        return live
    texts: dict[int, list[str]] = {}
    for block in live:
        texts.setdefault(block.region, []).append(block.text)
    return [Block(text=" ".join(parts), index=rid, region=rid) for rid, parts in texts.items()]


def _label_regions(doc: Document, blocks: list[Block], total_units: int, config: TagscoreConfig,
                   budget: Budget) -> None:
    """Seed 001 §3.2 (DOM steps), §3.3 and §3.4 over the cleaned page."""
    tree = region_tree(doc, config.segment)
    if "subtree" in config.stages:
        inside = minimum_subtree(blocks, tree, config.subtree_share)
        _drop(blocks, set(tree) - inside, "outside the minimum content subtree")
    if "punctuation" in config.stages:
        live = [b for b in blocks if b.label is None]
        _drop(blocks, unpunctuated_regions(live, config.punctuation_min_words),
              "no punctuation in its DIV/TD block")
    budget.check("tagscore DOM steps")
    units = _units(blocks, config.unit)
    if "dedup" in config.stages:
        drop_near_duplicates(units, config.dedup)
        budget.check("tagscore dedup")
    distinct = [u for u in units if u.label is None]
    if "score" in config.stages and distinct:
        label_by_weighted_score(distinct, doc.title, link_vocabulary(doc), total_units, config.scoring)
    if config.unit == "region":
        verdict = {u.region: u for u in units if u.label is not None}
        for block in blocks:
            unit = verdict.get(block.region)
            if block.label is None and unit is not None:
                block.label, block.reason, block.score = unit.label, unit.reason, unit.score
    for block in blocks:
        if block.label is None:
            block.label, block.reason = CONTENT, "kept by every tagscore stage"


def _rule_of(text: str, removals: list[Removal]) -> str:
    head = text[:40]
    for removal in removals:
        if head in removal.text or (removal.text and removal.text in text):
            return f"removed by rule {removal.rule}: {removal.reason}"
    return "removed by the primary-noise rules"


def _tracer(removals: list[Removal]) -> Callable[[str], str]:
    """The reason of a removed block's text: the first removal whose text holds it (or that it
    holds). Past a few hundred removals (a storm of share links) the search is reduced to the
    removals whose text starts like the block's, found through an index, to stay linear."""
    if len(removals) <= _SCANNED_REMOVALS:
        return lambda text: _rule_of(text, removals)
    by_start: dict[str, Removal] = {}
    for removal in removals:
        by_start.setdefault(removal.text[:40], removal)

    def trace(text: str) -> str:
        removal = by_start.get(text[:40])
        if removal is None:
            return "removed by the primary-noise rules"
        return f"removed by rule {removal.rule}: {removal.reason}"
    return trace


_SCANNED_REMOVALS = 512
# Above this much matching work (pairs of equal texts), difflib's alignment turns quadratic.
_DIFFLIB_WORK = 200_000


def _matches(before: list[str], after: list[str]) -> list[tuple[str, int, int, int, int]]:
    """Opcodes aligning the block texts before and after the rules.

    difflib (longest matching runs first) where that is cheap: every real page. A page made of
    thousands of equal blocks makes it quadratic; there each cleaned block is matched to the next
    original block with its text (the rules only delete, so the cleaned page is, but for split-off
    text, a subsequence of the original), which is linear.
    """
    counts_after = Counter(after)
    work = sum(n * counts_after[t] for t, n in Counter(before).items())
    if work <= _DIFFLIB_WORK:
        return difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes()
    positions: dict[str, list[int]] = {}
    for i, text in enumerate(before):
        positions.setdefault(text, []).append(i)
    ops: list[tuple[str, int, int, int, int]] = []
    i = 0
    for j, text in enumerate(after):
        found = positions.get(text, [])
        k = bisect_left(found, i)
        if k == len(found):
            ops.append(("insert", i, i, j, j + 1))
            continue
        if found[k] > i:
            ops.append(("delete", i, found[k], j, j))
        ops.append(("equal", found[k], found[k] + 1, j, j + 1))
        i = found[k] + 1
    if i < len(before):
        ops.append(("delete", i, len(before), len(after), len(after)))
    return ops


def _align(before: list[Block], after: list[Block], removals: list[Removal]) -> list[Block]:
    """Every block of the original page, in order: the cleaned block where one survives, the
    original block (labelled with the rule) where the rules took it."""
    reasons: dict[str, str] = {}  # storms repeat texts: each is traced to its rule once
    trace = _tracer(removals)
    merged: list[Block] = []
    for op, i1, i2, j1, j2 in _matches([b.text for b in before], [b.text for b in after]):
        pairs = min(i2 - i1, j2 - j1) if op == "replace" else (i2 - i1 if op == "equal" else 0)
        merged.extend(after[j1 : j1 + pairs])
        if op == "insert" or (op == "replace" and j2 - j1 > pairs):
            merged.extend(after[j1 + pairs : j2])  # text the rules split off: keep it
        for block in before[i1 + pairs : i2]:
            reason = reasons.get(block.text)
            if reason is None:
                reason = reasons[block.text] = trace(block.text)
            block.label, block.reason = BOILERPLATE, reason
            merged.append(block)
    for position, block in enumerate(merged):
        block.index = position
    return merged


def run(doc: Document, config: TagscoreConfig, ctx: PageContext) -> Labelled:
    """Label every block of one parsed page with seed 001's pipeline."""
    budget = ctx.budget
    unknown = [s for s in config.stages if s not in STAGES]
    if config.unit not in ("block", "region"):
        raise GristError(f"tagscore unit must be 'block' or 'region', not {config.unit!r}")
    if unknown:
        raise GristError(f"unknown tagscore stage(s) {', '.join(unknown)}; stages: {', '.join(STAGES)}")
    before = segment(doc, config.segment, budget)
    budget.check("segmentation")
    total_units = len(before) if config.unit == "block" else len({b.region for b in before})
    removals: list[Removal] = []
    if "rules" in config.stages:
        removals = apply_rules(doc, config.rules, budget)
        budget.check("primary-noise rules")
        blocks = segment(doc, config.segment, budget)
    else:
        blocks = before
    _label_regions(doc, blocks, total_units, config, budget)
    budget.check("tagscore stages")
    if blocks is before:
        return Labelled(blocks)
    return Labelled(_align(before, blocks, removals))


def _stages(*stages: str):
    return lambda: TagscoreConfig(stages=stages)


def _single_rule(rule: str):
    return lambda: TagscoreConfig(stages=("rules",), rules=RuleConfig(rules=(rule,)))


# Ablations, selectable as "tagscore/<name>": the pipeline cut short, and each primary-noise rule
# on its own (everything it does not remove is kept), so every stage shows in the benchmark tables.
VARIANTS = {
    "no-score": _stages("rules", "subtree", "punctuation", "dedup"),
    "rules-subtree-punctuation": _stages("rules", "subtree", "punctuation"),
    "rules-only": _stages("rules"),
    "no-rules": _stages("subtree", "punctuation", "dedup", "score"),
    **{f"rule-{rule}": _single_rule(rule) for rule in ALL_RULES},
}

METHOD = Method(
    name="tagscore",
    summary="seed 001: noise rules, DIV/TD blocks, punctuation, modified-simhash dedup, block score",
    config_type=TagscoreConfig,
    run=run,
    variants=VARIANTS,
)
