"""Text repeated on the page: a block whose exact text another block also has.

Pages repeat their article in hidden or ``noscript`` copies, desktop and mobile versions, print
views; and repeat teasers and headlines in rails. ``copy_before`` / ``copy_after``: a block of
three words or more with the same text comes earlier / later on the page; ``page_copy_share``:
the share of the page's words in such blocks. (The training labels count repeated text once,
where it fits the gold order; these say which copy a block is.)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from grist.features.matrix import FeatureMatrix

NAMES = ("copy_before", "copy_after", "page_copy_share")
MIN_WORDS = 3


def copy_features(texts: Sequence[str], counts: np.ndarray) -> FeatureMatrix:
    """The copy features of the module doc for every block."""
    n = len(texts)
    out = np.zeros((n, len(NAMES)))
    if not n:
        return FeatureMatrix(NAMES, out)
    long_enough = (counts >= MIN_WORDS).tolist()
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    for i, (text, kept) in enumerate(zip(texts, long_enough, strict=True)):
        if kept:
            first.setdefault(text, i)
            last[text] = i
    if first == last:
        return FeatureMatrix(NAMES, out)  # nothing repeated: the common case, no second pass
    for i, (text, kept) in enumerate(zip(texts, long_enough, strict=True)):
        if kept:
            out[i, 0] = first[text] < i
            out[i, 1] = last[text] > i
    repeated = (out[:, 0] > 0) | (out[:, 1] > 0)
    out[:, 2] = counts[repeated].sum() / max(float(counts.sum()), 1.0)
    return FeatureMatrix(NAMES, out)
