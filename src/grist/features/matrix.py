"""A NumPy feature matrix with named columns, one row per block."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import chain

import numpy as np


def side_by_side(columns: Sequence[np.ndarray]) -> np.ndarray:
    """Equal-length 1-D columns as the columns of one matrix, as ``np.column_stack`` gives them
    (same values and dtype, column-major), by one copy in C: ``column_stack`` checks each column
    in Python, which on the hundreds of columns of a small page costs more than the copy."""
    return np.array(columns).T


@lru_cache(maxsize=16)
def _positions(names: tuple[str, ...]) -> Mapping[str, int]:
    """Column index of every name: for the few hundred columns of ``auto``'s matrices, building
    the dict costs some 40 us, finding it again by the names a fifth of that. Read only: the
    dict is shared."""
    return dict(zip(names, range(len(names))))


@dataclass(frozen=True)
class FeatureMatrix:
    """``values[i, j]`` is feature ``names[j]`` of block ``i``."""

    names: tuple[str, ...]
    values: np.ndarray

    def __post_init__(self) -> None:
        if self.values.ndim != 2 or self.values.shape[1] != len(self.names):
            raise ValueError(
                f"feature matrix of shape {self.values.shape} does not match {len(self.names)} names"
            )

    @cached_property
    def positions(self) -> Mapping[str, int]:
        """Column index of every name (built on first use; shared by matrices with the same
        names, as every page's stage-1 matrix has)."""
        return _positions(tuple(self.names))

    def column(self, name: str) -> np.ndarray:
        try:
            return self.values[:, self.positions[name]]
        except KeyError:
            raise ValueError(f"no feature named {name!r}") from None

    def select(self, names: Sequence[str]) -> FeatureMatrix:
        """The columns ``names``, in that order (ValueError when one is missing)."""
        at = self.positions
        missing = [n for n in names if n not in at]
        if missing:
            raise ValueError(f"no feature named {missing[0]!r}")
        return FeatureMatrix(tuple(names), self.values[:, [at[n] for n in names]])

    def row(self, index: int) -> dict[str, float]:
        return {n: float(v) for n, v in zip(self.names, self.values[index], strict=True)}

    def __len__(self) -> int:
        return self.values.shape[0]

    def hstack(self, other: FeatureMatrix) -> FeatureMatrix:
        """Columns of ``self`` followed by those of ``other`` (same rows)."""
        return FeatureMatrix.concat([self, other])

    @staticmethod
    def concat(parts: Sequence[FeatureMatrix]) -> FeatureMatrix:
        """The columns of all ``parts`` side by side (same rows), copied once: chained
        ``hstack`` calls would copy the growing matrix at every step."""
        names = tuple(chain.from_iterable(part.names for part in parts))
        return FeatureMatrix(names, np.concatenate([part.values for part in parts], axis=1))
