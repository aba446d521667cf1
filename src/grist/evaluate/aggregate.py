"""Per-page scores of one system on one dataset, their aggregates and bootstrap intervals."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from grist.evaluate.metrics import (
    exact_match,
    lcs_prf,
    shingle_counts,
    shingle_prf,
    snippet_scores,
)


@dataclass
class PageScore:
    """Every metric of one extraction of one page, kept for error analysis."""

    id: str
    lcs_p: float
    lcs_r: float
    lcs_f1: float
    sh_p: float
    sh_r: float
    sh_f1: float
    exact: bool
    with_hit: float | None = None
    without_clean: float | None = None
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def score_page(
    page_id: str,
    extracted: str,
    gold: str,
    with_: list[str] | None = None,
    without: list[str] | None = None,
    error: str | None = None,
) -> PageScore:
    """Score one extraction against its gold text (and snippets, when the dataset has them)."""
    lcs = lcs_prf(extracted, gold)
    sh = shingle_prf(shingle_counts(extracted, gold))
    hit = clean = None
    if with_ is not None or without is not None:
        hit, clean = snippet_scores(extracted, with_ or [], without or [])
    return PageScore(page_id, *lcs, *sh, exact_match(extracted, gold), hit, clean, error)


_MEANS = ("lcs_p", "lcs_r", "lcs_f1", "sh_p", "sh_r", "sh_f1")
_RENAMED = {"sh_f1": "sh_f1_pages"}  # the mean of per-page shingle F1 (sh_f1 is the benchmark's)


def _statistics(columns: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The aggregates of page-score columns; works on (pages,) or (rounds, pages) arrays."""
    out = {_RENAMED.get(name, name): columns[name].mean(axis=-1) for name in _MEANS}
    # Article-extraction benchmark convention: F1 of the mean precision and mean recall.
    p, r = out["sh_p"], out["sh_r"]
    with np.errstate(invalid="ignore", divide="ignore"):
        out["sh_f1"] = np.where(p + r > 0, 2 * p * r / (p + r), 0.0)
    out["accuracy"] = columns["exact"].mean(axis=-1)
    for name in ("with_hit", "without_clean"):
        if name in columns:
            out[name] = columns[name].mean(axis=-1)
    return out


def summarize(scores: Sequence[PageScore], rounds: int = 1000, seed: int = 0) -> dict[str, Any]:
    """Every aggregate with its 95 % percentile-bootstrap interval (pages resampled), and counts."""
    summary: dict[str, Any] = {"pages": len(scores), "errors": sum(1 for x in scores if x.error)}
    if not scores:
        return summary
    columns = {name: np.array([getattr(x, name) for x in scores], dtype=float) for name in _MEANS}
    columns["exact"] = np.array([x.exact for x in scores], dtype=float)
    for name in ("with_hit", "without_clean"):
        values = [getattr(x, name) for x in scores if getattr(x, name) is not None]
        if values:
            columns[name] = np.array(values, dtype=float)
    point = _statistics(columns)
    rng = np.random.default_rng(seed)
    resampled = {
        name: column[rng.integers(0, len(column), size=(rounds, len(column)))]
        for name, column in columns.items()
    }
    spread = _statistics(resampled)
    for name, value in point.items():
        summary[name] = float(value)
        low, high = np.percentile(spread[name], [2.5, 97.5])
        summary[name + "_ci"] = [float(low), float(high)]
    return summary
