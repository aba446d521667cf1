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
    joined = "".join(texts)
    if "<" not in joined and ">" not in joined:  # most pages: one scan instead of two per block
        return FeatureMatrix(NAMES, np.zeros((n, 1)))
    brackets = (np.fromiter(map(str.count, texts, repeat("<", n)), float, n)
                + np.fromiter(map(str.count, texts, repeat(">", n)), float, n))
    return FeatureMatrix(NAMES, (brackets / np.maximum(counts, 1.0))[:, None])
