"""Blocks whose text is markup: HTML shown as text (escaped, or inside ``noscript`` on pages
that repeat their tracking code there), which no extractor should keep as prose.

``markup_density``: angle brackets per word of the block.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat

import numpy as np

from grist.features.matrix import FeatureMatrix

NAMES = ("markup_density",)


def markup_features(texts: Sequence[str], counts: np.ndarray) -> FeatureMatrix:
    """The markup density of every block."""
    n = len(texts)
    brackets = (np.fromiter(map(str.count, texts, repeat("<", n)), float, n)
                + np.fromiter(map(str.count, texts, repeat(">", n)), float, n))
    return FeatureMatrix(NAMES, (brackets / np.maximum(counts, 1.0))[:, None])
