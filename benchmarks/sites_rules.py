"""Alternatives to the paper's template rule, measured by sites_eval.py (none is shipped).

Each alternative decides, from a page's site evidence and the page method's labels and
probabilities, which kept blocks to drop:

- ``share >= 0.3``: text on at least 30 % (and 2) of the cluster's pages instead of > 50 %;
- ``template, p < 0.95``: the rule, sparing the blocks the page model is surest of;
- ``template, sandwiched kept``: the rule, sparing a template block between two kept
  non-template blocks (a separator or label inside the article);
- ``combined``: a logistic regression over the evidence and the page probability, trained
  leave-one-dataset-out on the kept blocks seen on another page of the cluster.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from grist.sites.evidence import Evidence

Rule = Callable[[Evidence, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def features(evidence: Evidence, scores: np.ndarray, words: np.ndarray) -> np.ndarray:
    """The combiner's rows: the page logit, shares of pages, template flag, interactions."""
    z = np.log(np.clip(scores, 1e-4, 1 - 1e-4) / (1 - np.clip(scores, 1e-4, 1 - 1e-4)))
    text = evidence.text_pages / evidence.pages
    path = evidence.path_pages / evidence.pages
    template = evidence.template().astype(float)
    log_words = np.log1p(words)
    log_pages = np.full(len(z), np.log2(evidence.pages))
    return np.column_stack([z, text, path, template, z * text, z * template, log_words,
                            log_words * text, log_pages, log_pages * text])


def judged_blocks(evidence: Evidence, kept: np.ndarray) -> np.ndarray:
    """The blocks the combiner judges: kept, and with their path and text on another page."""
    return kept & (evidence.text_pages >= 1)


def fit_logistic(rows: np.ndarray, labels: np.ndarray, weights: np.ndarray,
                 l2: float = 1.0) -> np.ndarray:
    """Weighted L2 logistic regression by Newton's method; the coefficients, bias last."""
    x = np.column_stack([rows, np.ones(len(rows))])
    beta = np.zeros(x.shape[1])
    penalty = np.full(x.shape[1], l2)
    penalty[-1] = 1e-6
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(x @ beta)))
        gradient = x.T @ (weights * (p - labels)) + penalty * beta
        hessian = (x * (weights * p * (1 - p))[:, None]).T @ x + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return beta


def combined(beta: np.ndarray) -> Rule:
    def rule(ev: Evidence, kept: np.ndarray, scores: np.ndarray, words: np.ndarray) -> np.ndarray:
        p = 1.0 / (1.0 + np.exp(-(features(ev, scores, words) @ beta[:-1] + beta[-1])))
        return kept & ~(judged_blocks(ev, kept) & (p < 0.5))
    return rule


def share_at_least(ev: Evidence, kept: np.ndarray, scores: np.ndarray,
                   words: np.ndarray) -> np.ndarray:
    return kept & ~(ev.text_pages >= max(2.0, 0.3 * ev.pages))


def spare_sure(ev: Evidence, kept: np.ndarray, scores: np.ndarray,
               words: np.ndarray) -> np.ndarray:
    return kept & ~(ev.template() & (scores < 0.95))


def spare_sandwiched(ev: Evidence, kept: np.ndarray, scores: np.ndarray,
                     words: np.ndarray) -> np.ndarray:
    solid = kept & ~ev.template()
    before = np.concatenate([[False], solid[:-1]])
    after = np.concatenate([solid[1:], [False]])
    return solid | (kept & before & after)


RULES: dict[str, Rule] = {
    "share >= 0.3": share_at_least,
    "template, p < 0.95": spare_sure,
    "template, sandwiched kept": spare_sandwiched,
}
