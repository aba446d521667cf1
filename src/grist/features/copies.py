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
from grist.features.numbering import ids_of

NAMES = ("copy_before", "copy_after", "page_copy_share")
MIN_WORDS = 3


def copy_features(texts: Sequence[str], counts: np.ndarray) -> FeatureMatrix:
    """The copy features of the module doc for every block.

    The long enough blocks' texts are numbered (``ids_of``); a stable sort by number lines up
    the copies of each text in page order, so the first and last of each run are the first and
    last copies: no Python work per block."""
    n = len(texts)
    out = np.zeros((n, len(NAMES)))
    kept = np.flatnonzero(counts >= MIN_WORDS)
    which, distinct = ids_of(list(map(texts.__getitem__, kept.tolist())))
    if len(distinct) == len(kept):
        return FeatureMatrix(NAMES, out)  # nothing repeated: the common case
    order = np.argsort(which, kind="stable")
    change = np.diff(which[order]) != 0  # between copies of different texts
    out[kept[order[1:]], 0] = ~change  # not the first copy of its text
    out[kept[order[:-1]], 1] = ~change  # not the last one
    repeated = (out[:, 0] > 0) | (out[:, 1] > 0)
    out[:, 2] = counts[repeated].sum() / max(float(counts.sum()), 1.0)
    return FeatureMatrix(NAMES, out)
