"""Numbering a page's repeated values (paths, class strings, texts), so that feature code does
its work once per distinct value and spreads the result with one NumPy index."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from itertools import count

import numpy as np


def ids_of(values: Sequence[Hashable]) -> tuple[np.ndarray, list]:
    """A number per value (equal values, equal numbers; the distinct values numbered from 0
    in order of appearance) and the distinct values in that order."""
    index = dict(zip(dict.fromkeys(values), count()))
    return np.fromiter(map(index.__getitem__, values), np.int64, len(values)), list(index)
