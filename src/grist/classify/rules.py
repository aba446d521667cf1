"""jusText-style rules: seed 000 Algorithm 1 (context-free) and the context-sensitive pass (§4.1.2).

The context-free step puts each block in one of four classes from its length, link density and
stop-word density. The context-sensitive step then settles every run of ``short``/``near-good``
blocks from the good/bad blocks around it (the page's edges count as bad): between two goods all
become good, between two bads all bad; between a good and a bad block the near-good block nearest
to the bad one splits the run (blocks between it and the bad block are bad, the others good), and
a run with no near-good block is bad.

jusText adds two heading rules (``RuleConfig.headings``): before the pass, a short heading followed
by good text within ``max_heading_distance`` characters counts as near-good (``full``); after it, a
heading that ended bad though not bad on its own becomes good when good text follows closely
(``rescue`` and ``full``). The jusText package (3.0) documents both but its first rule never fires
(it looks at classes not yet assigned), so ``rescue`` is what it does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from grist.document import BOILERPLATE, CONTENT, Block
from grist.errors import GristError
from grist.features.matrix import FeatureMatrix

BAD, GOOD, SHORT, NEAR_GOOD = "bad", "good", "short", "near-good"
UNITS = ("chars", "tokens")
HEADING_RULES = ("off", "rescue", "full")


@dataclass(frozen=True)
class RuleConfig:
    """Thresholds of Algorithm 1 (defaults: jusText's, which seed 000 reproduces) and options.

    length_unit:       ``chars`` (jusText measures block length in characters) or ``tokens``
                       (seed 000's literal "token count").
    link_density_unit: ``chars`` (jusText: anchor characters / characters) or ``tokens``
                       (seed 000: anchor tokens / tokens).
    headings:          jusText's heading rules: ``off``, ``rescue`` (what the package does) or
                       ``full`` (as it documents them); ``max_heading_distance`` in characters.
    copyright_bad:     a block with a copyright sign is bad (seed 000 §4.1.1 drops it; jusText too).
    """

    length_low: int = 70
    length_high: int = 200
    max_link_density: float = 0.2
    stopword_low: float = 0.30
    stopword_high: float = 0.32
    length_unit: str = "chars"
    link_density_unit: str = "chars"
    headings: str = "rescue"
    max_heading_distance: int = 200
    copyright_bad: bool = True

    def __post_init__(self) -> None:
        for name in ("length_unit", "link_density_unit"):
            if getattr(self, name) not in UNITS:
                raise GristError(f"{name} must be one of {', '.join(UNITS)}")
        if self.headings not in HEADING_RULES:
            raise GristError(f"headings must be one of {', '.join(HEADING_RULES)}")


def context_free(features: FeatureMatrix, config: RuleConfig) -> tuple[list[str], list[str]]:
    """Algorithm 1 for every block: its class and the rule that gave it."""
    length = features.column("num_chars" if config.length_unit == "chars" else "num_tokens")
    links = features.column(
        "link_char_density" if config.link_density_unit == "chars" else "link_density"
    )
    stop = features.column("stopword_density")
    copyright_sign = features.column("copyright") > 0 if config.copyright_bad else np.zeros(
        len(features), bool
    )
    unit = config.length_unit
    classes, reasons = [], []
    for n, ld, sd, cs in zip(length.tolist(), links.tolist(), stop.tolist(), copyright_sign.tolist(),
                             strict=True):
        if ld > config.max_link_density:
            classes.append(BAD)
            reasons.append(f"context-free: link density {ld:.2f} > {config.max_link_density:g}")
        elif cs:
            classes.append(BAD)
            reasons.append("context-free: copyright sign")
        elif n < config.length_low:
            if ld > 0:
                classes.append(BAD)
                reasons.append(f"context-free: short ({n:g} {unit} < {config.length_low}) with a link")
            else:
                classes.append(SHORT)
                reasons.append(f"context-free: short ({n:g} {unit} < {config.length_low})")
        elif sd >= config.stopword_high:
            if n > config.length_high:
                classes.append(GOOD)
                reasons.append(
                    f"context-free: {n:g} {unit} > {config.length_high}, "
                    f"stop-word density {sd:.2f} >= {config.stopword_high:g}"
                )
            else:
                classes.append(NEAR_GOOD)
                reasons.append(
                    f"context-free: medium ({n:g} {unit} <= {config.length_high}), "
                    f"stop-word density {sd:.2f} >= {config.stopword_high:g}"
                )
        elif sd >= config.stopword_low:
            classes.append(NEAR_GOOD)
            reasons.append(
                f"context-free: stop-word density {sd:.2f} in "
                f"[{config.stopword_low:g}, {config.stopword_high:g})"
            )
        else:
            classes.append(BAD)
            reasons.append(f"context-free: stop-word density {sd:.2f} < {config.stopword_low:g}")
    return classes, reasons


def _good_within(
    classes: Sequence[str], lengths: np.ndarray, index: int, max_distance: int
) -> bool:
    """A good block follows ``index`` with at most ``max_distance`` characters in between."""
    distance = 0
    for j in range(index + 1, len(classes)):
        if classes[j] == GOOD:
            return True
        distance += lengths[j]
        if distance > max_distance:
            return False
    return False


def _settle_run(
    classes: list[str], reasons: list[str], start: int, end: int, left: str, right: str
) -> None:
    """Reclassify the short/near-good run ``classes[start:end]`` from its delimiters."""
    sides = f"between {left} and {right}"
    if left == right:
        for i in range(start, end):
            reasons[i] = f"context: {classes[i]} {sides}"
            classes[i] = left
        return
    near = [i for i in range(start, end) if classes[i] == NEAR_GOOD]
    if not near:
        for i in range(start, end):
            reasons[i] = f"context: all-short run {sides}"
            classes[i] = BAD
        return
    delimiter = near[0] if left == BAD else near[-1]
    for i in range(start, end):
        beyond = i < delimiter if left == BAD else i > delimiter
        reasons[i] = (
            f"context: {classes[i]} {sides}, "
            + ("beyond" if beyond else "on the good side of")
            + " the near-good block nearest the bad one"
        )
        classes[i] = BAD if beyond else GOOD


def context_sensitive(
    cf_classes: Sequence[str],
    cf_reasons: Sequence[str],
    lengths: np.ndarray,
    headings: np.ndarray,
    config: RuleConfig,
) -> tuple[list[str], list[str]]:
    """Final good/bad class of every block from the context-free classes (see module docstring)."""
    classes, reasons = list(cf_classes), list(cf_reasons)
    n = len(classes)
    heading_rows = np.flatnonzero(headings).tolist() if config.headings != "off" else []
    for i in heading_rows if config.headings == "full" else ():
        if classes[i] == SHORT and _good_within(classes, lengths, i, config.max_heading_distance):
            classes[i] = NEAR_GOOD
            reasons[i] = "heading: short heading shortly before good text counts as near-good"
    start = None
    for i in range(n + 1):
        delimiter = i == n or classes[i] in (GOOD, BAD)
        if not delimiter:
            if start is None:
                start = i
            continue
        if start is not None:
            left = classes[start - 1] if start > 0 else BAD
            right = classes[i] if i < n else BAD
            _settle_run(classes, reasons, start, i, left, right)
            edges = " and ".join(e for e, hit in (("start", start == 0), ("end", i == n)) if hit)
            if edges:
                for j in range(start, i):
                    reasons[j] += f" (the document {edges} counts as bad)"
            start = None
    for i in heading_rows:
        if (
            classes[i] == BAD
            and cf_classes[i] != BAD
            and _good_within(classes, lengths, i, config.max_heading_distance)
        ):
            classes[i] = GOOD
            reasons[i] = "heading: heading shortly before good text"
    return classes, reasons


def classify(blocks: Sequence[Block], features: FeatureMatrix, config: RuleConfig) -> None:
    """Label every block content/boilerplate with the rule that decided it (in place)."""
    cf_classes, cf_reasons = context_free(features, config)
    lengths = features.column("num_chars")
    headings = np.fromiter((b.heading > 0 for b in blocks), bool, len(blocks))
    classes, reasons = context_sensitive(cf_classes, cf_reasons, lengths, headings, config)
    for block, cf, final, reason in zip(blocks, cf_classes, classes, reasons, strict=True):
        block.label = CONTENT if final == GOOD else BOILERPLATE
        block.reason = reason
        block.info["class"] = cf
