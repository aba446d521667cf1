"""The MDL cost of a clustering of documents by template (seed 002, Eq. 1-3).

A clustering of D documents over P paths is written as matrices: M_TEMP (P x C, path p is a
template path of cluster c), M_DOC (C x D, document d is a member of cluster c) and, in the
``delta`` reading, M_DELTA = M_NC - M_TEMP . M_DOC (P x D, entries -1, 0, 1): what the templates
do not explain of each document's non-content paths. A matrix M costs |M| . H(X), X its entries
(Eq. 1-2); a clustering costs the sum over its matrices (Eq. 3).

Two readings (docs/sites.md):

- ``delta`` (default): M_TEMP + M_DOC + M_DELTA. Eq. 1 ranges over {0, 1, -1}, values only
  M_DELTA can hold, and without it nothing is paid for documents that do not fit their template;
- ``literal``: M_TEMP + M_DOC only, as Eq. 3 is printed. Every merge then shrinks M_DOC's cost
  and the clustering drifts towards one cluster (the "until one single cluster is formed" of the
  text), which is why it is not the default.

Every entry count is a sum over clusters, so the cost of merging two clusters follows from the
merged cluster alone: its template (CalcMDLval: the paths non-content in more than half of its
documents) and how many M_DELTA entries it leaves.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

READINGS = ("delta", "literal")


def _xlogx(x: np.ndarray | float) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    return np.where(x > 0, x * np.log2(np.maximum(x, 1.0)), 0.0)


def description_length(size: np.ndarray | float, *counts: np.ndarray | float) -> np.ndarray:
    """|M| . H(X) (Eq. 1-2) of a matrix of ``size`` entries holding ``counts`` entries of each
    non-zero value (the rest are 0): size.log2(size) - sum over values of n.log2(n)."""
    rest = np.asarray(size, dtype=float) - sum(np.asarray(c, dtype=float) for c in counts)
    return _xlogx(size) - sum(_xlogx(c) for c in counts) - _xlogx(rest)


@dataclass(frozen=True)
class CostModel:
    """The MDL cost (Eq. 3) of a clustering of ``docs`` documents over ``paths`` paths, given its
    totals: C clusters, ``ones`` template entries, ``plus``/``minus`` entries of M_DELTA."""

    paths: int
    docs: int
    reading: str = "delta"

    def __post_init__(self) -> None:
        if self.reading not in READINGS:
            raise ValueError(f"unknown MDL reading {self.reading!r}; one of {', '.join(READINGS)}")

    def cost(self, clusters: np.ndarray | int, ones: np.ndarray | int, plus: np.ndarray | int,
             minus: np.ndarray | int) -> np.ndarray:
        """MDv(CL) in bits; vectorised over arrays of candidate totals."""
        c = np.asarray(clusters, dtype=float)
        total = description_length(self.paths * c, ones) + description_length(c * self.docs,
                                                                              self.docs)
        if self.reading == "delta":
            total = total + description_length(self.paths * self.docs, plus, minus)
        return total


@dataclass(frozen=True)
class Template:
    """What a cluster contributes to the cost: template size, M_DELTA +1 and -1 entries."""

    ones: int
    plus: int
    minus: int


def template_of(counts: np.ndarray, size: int) -> np.ndarray:
    """CalcMDLval's rule: which paths (by their non-content counts) are template paths."""
    return 2 * counts > size


def template_cost(counts: np.ndarray, size: int) -> Template:
    """A cluster's entries from its paths' non-content counts among its ``size`` documents: a
    template path missing from a member is a -1, a member's path outside the template a +1."""
    in_template = template_of(counts, size)
    covered = int(counts[in_template].sum())
    ones = int(in_template.sum())
    return Template(ones, int(counts.sum()) - covered, ones * size - covered)
