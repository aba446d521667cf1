"""Primary-noise removal (seed 001 §3.2): named, switchable rules that delete DOM elements and
report each removal with the rule and the reason."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from grist.clean.counts import WordCounter, word_count
from grist.clean.lists import load_list
from grist.clean.rules import RULES, RuleContext, outermost
from grist.document import Document
from grist.errors import GristError
from grist.limits import Budget

ALL_RULES: tuple[str, ...] = tuple(RULES)


@dataclass(frozen=True)
class Removal:
    """One element a rule removed: the rule, the element's tag, why, and the start of its text."""

    rule: str
    tag: str
    reason: str
    text: str


@dataclass(frozen=True)
class RuleConfig:
    """Which rules run (in order) and their parameters.

    extra_lists:   more entries for a bundled list, from user files of the same format, e.g.
                   ``{"ad_providers": ("my_ads.txt",), "legal": ("policy_words.txt",)}``.
    max_share:     a rule never removes an element holding more than this share of the page's
                   words (a class="ads-enabled" on the article wrapper must not take the article).
    """

    rules: tuple[str, ...] = ALL_RULES
    extra_lists: Mapping[str, tuple[str | Path, ...]] = field(default_factory=dict)
    max_share: float = 0.5
    background_max_words: int = 20
    link_block_max_other_words: int = 10
    copyright_max_words: int = 30


def build_context(url: str | None, config: RuleConfig) -> RuleContext:
    """Load the lists (bundled + user files) into the rules' read-only context."""
    extra = config.extra_lists
    keywords = load_list("ad_keywords", extra.get("ad_keywords", ()))
    sizes = set()
    for entry in load_list("iab_sizes", extra.get("iab_sizes", ())):
        width, _, height = entry.partition("x")
        if not (width.isdigit() and height.isdigit()):
            raise GristError(f"bad IAB size {entry!r}; write sizes as WIDTHxHEIGHT")
        sizes.add((int(width), int(height)))
    return RuleContext(
        url=url,
        ad_providers=frozenset(load_list("ad_providers", extra.get("ad_providers", ()))),
        ad_tokens=frozenset(k for k in keywords if not k.startswith("*")),
        ad_substrings=tuple(k[1:] for k in keywords if k.startswith("*")),
        social=frozenset(load_list("social", extra.get("social", ()))),
        legal=load_list("legal", extra.get("legal", ())),
        iab_sizes=frozenset(sizes),
        suffixes=frozenset(load_list("public_suffixes", extra.get("public_suffixes", ()))),
        background_max_words=config.background_max_words,
        link_block_max_other_words=config.link_block_max_other_words,
        copyright_max_words=config.copyright_max_words,
    )


def apply_rules(doc: Document, config: RuleConfig | None = None,
                budget: Budget | None = None) -> list[Removal]:
    """Run the configured rules on ``doc.dom`` in order, deleting what they hit; returns the log.

    With a ``budget``, its deadline is checked between rules and inside their long loops.
    """
    config = config or RuleConfig()
    if doc.dom is None:
        raise GristError("apply_rules() needs a parsed document; call grist.html.parse first")
    unknown = [r for r in config.rules if r not in RULES]
    if unknown:
        raise GristError(f"unknown noise rule(s) {', '.join(unknown)}; rules: {', '.join(ALL_RULES)}")
    body = doc.dom.body or doc.dom.root
    if body is None:
        return []
    ctx = build_context(doc.url, config)
    limit = config.max_share * word_count(body)
    log: list[Removal] = []
    for name in config.rules:
        if budget is not None:
            budget.check(f"noise rule {name}")
        words = WordCounter(doc.dom.root, budget)  # the DOM changes between rules
        hits = [(n, why) for n, why in RULES[name](doc.dom, replace(ctx, words=words, budget=budget))
                if words(n) <= limit]
        # Remove outermost hits only: destroying a node frees its descendants' handles too.
        reasons = {n.mem_id: why for n, why in hits}
        for node in outermost([n for n, _ in hits]):
            text = " ".join(node.text(deep=True, separator=" ").split())
            log.append(Removal(name, node.tag, reasons[node.mem_id], text[:80]))
            node.decompose()
    return log


__all__ = ["ALL_RULES", "Removal", "RuleConfig", "apply_rules", "build_context"]
