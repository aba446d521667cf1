"""Template evidence for a page's blocks, and the combiner that weighs it against the page method.

``Evidence`` is what a site model knows of a page's blocks: the cluster, its size M, and per
block how many of its pages have the block's path, and its path and text. The paper's rule reads
it alone (a path on more than half of the pages is template). The ``Combiner`` is a logistic
regression over that evidence *and* the page method's probability (``block.score``; ``auto``'s)
that decides, for the blocks the page method kept and another page of the cluster also has,
whether to drop them: a block the page model is sure of can survive a template match, a block
both doubt goes. It only removes: the datasets disagree on what is content, and adding blocks
from template evidence alone cost precision everywhere we tried it.
It is trained by ``benchmarks/sites_eval.py --train-combiner`` on leave-one-page-out evidence and
leave-one-dataset-out ``auto`` probabilities; it must be retrained when ``auto`` is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from grist.crosspage import Verdict
from grist.document import BOILERPLATE, CONTENT, Block
from grist.modelfile import load_model, shipped, write_model
from grist.sites.mdl import template_of

KIND = "site-combiner"
VERSION = 1
SHIPPED = "site-combiner-1.json"
FEATURES = ("logit_p", "text_share", "path_share", "template", "logit_x_text", "logit_x_template",
            "log_words", "words_x_text", "log_pages", "pages_x_text")


@dataclass(frozen=True)
class Evidence:
    """A page's cluster (``cluster``, ``pages`` = M), per block the cluster's page counts, and
    the similarity of the page's paths to the cluster's template."""

    cluster: int
    pages: int
    path_pages: np.ndarray
    text_pages: np.ndarray
    similarity: float = 1.0

    def template(self) -> np.ndarray:
        """Blocks whose path and text are a template path (on more than half of the pages)."""
        return template_of(self.text_pages, self.pages)

    def reason(self, shared: int) -> str:
        return f"template path shared by {shared} of {self.pages} pages of cluster {self.cluster}"


def candidates(evidence: Evidence, kept: np.ndarray) -> np.ndarray:
    """The blocks the combiner judges: kept by the page method and seen on another page of the
    cluster (its path and text)."""
    return kept & (evidence.text_pages >= 1)


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


def features(evidence: Evidence, scores: np.ndarray, words: np.ndarray) -> np.ndarray:
    """The combiner's rows (``FEATURES``) from the evidence, the page method's probabilities and
    the blocks' word counts."""
    z = _logit(scores)
    text = evidence.text_pages / evidence.pages
    path = evidence.path_pages / evidence.pages
    template = evidence.template().astype(float)
    log_words = np.log1p(words)
    log_pages = np.full(len(z), np.log2(evidence.pages))
    return np.column_stack([z, text, path, template, z * text, z * template, log_words,
                            log_words * text, log_pages, log_pages * text])


@dataclass(frozen=True)
class Combiner:
    """Logistic regression: P(content) = sigmoid(weights . features + bias)."""

    weights: np.ndarray
    bias: float
    threshold: float = 0.5
    trained_on: str = ""

    def probability(self, rows: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-(rows @ self.weights + self.bias)))

    def verdicts(self, evidence: Evidence, blocks: Sequence[Block], source: str
                 ) -> list[Verdict | None]:
        """Boilerplate verdicts for the kept blocks seen on other pages (``candidates``) whose
        combined probability falls under the threshold; a block without a page probability (a
        method with no score) falls back to the template rule. Nothing is ever added."""
        kept = np.array([b.label == CONTENT for b in blocks])
        scored = np.array([b.score is not None for b in blocks])
        scores = np.array([b.score if b.score is not None else 0.5 for b in blocks], dtype=float)
        words = np.array([len(b.text.split()) for b in blocks], dtype=float)
        combined = self.probability(features(evidence, scores, words))
        template = evidence.template()
        drop = candidates(evidence, kept) & np.where(scored, combined < self.threshold, template)
        out: list[Verdict | None] = []
        for i in range(len(blocks)):
            if not drop[i]:
                out.append(None)
                continue
            shared = int(evidence.text_pages[i])
            why = (evidence.reason(shared) if template[i] else f"path and text on {shared} of "
                   f"{evidence.pages} pages of cluster {evidence.cluster}")
            if scored[i]:
                why += f"; with the page's p={scores[i]:.3f}: {combined[i]:.3f}"
            out.append(Verdict(BOILERPLATE, why, source))
        return out

    @classmethod
    def fit(cls, rows: np.ndarray, labels: np.ndarray, weights: np.ndarray | None = None,
            l2: float = 1.0, trained_on: str = "") -> Combiner:
        """Weighted L2-regularised logistic regression by Newton's method (a few dozen steps)."""
        x = np.column_stack([rows, np.ones(len(rows))])
        y = labels.astype(float)
        w = np.ones(len(rows)) if weights is None else weights.astype(float)
        beta = np.zeros(x.shape[1])
        penalty = np.full(x.shape[1], l2)
        penalty[-1] = 1e-6  # (the bias is all but free; this keeps the system solvable)
        for _ in range(50):
            p = 1.0 / (1.0 + np.exp(-(x @ beta)))
            gradient = x.T @ (w * (p - y)) + penalty * beta
            hessian = (x * (w * p * (1 - p))[:, None]).T @ x + np.diag(penalty)
            step = np.linalg.solve(hessian, gradient)
            beta -= step
            if np.max(np.abs(step)) < 1e-8:
                break
        return cls(beta[:-1], float(beta[-1]), trained_on=trained_on)

    def save(self, path: str | Path) -> None:
        write_model(path, KIND, VERSION, {"features": list(FEATURES),
                                          "weights": self.weights.tolist(), "bias": self.bias,
                                          "threshold": self.threshold,
                                          "trained_on": self.trained_on})

    @classmethod
    def load(cls, path: str | Path) -> Combiner:
        return load_model(path, KIND, VERSION, cls._from_payload)

    @classmethod
    def _from_payload(cls, payload: dict[str, Any]) -> Combiner:
        if list(payload["features"]) != list(FEATURES):
            raise ValueError(f"combiner features {payload['features']} are not {FEATURES}")
        return cls(np.asarray(payload["weights"], dtype=float), float(payload["bias"]),
                   float(payload["threshold"]), str(payload.get("trained_on", "")))


def load_combiner(path: str | Path | None = None) -> Combiner:
    """The combiner at ``path``, or the shipped one."""
    return Combiner.load(path or shipped(SHIPPED))
