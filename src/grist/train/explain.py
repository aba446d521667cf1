"""Explain a learned label: the features that pushed a block's score most, in words.

For boosted trees the contributions are Saabas path contributions (``grist.classify.forest``:
each split on a block's path moves its score from the node's value to the child's, and the move
is credited to the split feature), summed over all trees; they add up to the raw score with the
bias. A block's reason names the features whose contributions point most strongly in the
direction of its label.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def top_contributions(contrib: np.ndarray, values: np.ndarray, names: Sequence[str],
                      positive: np.ndarray, top: int = 3) -> list[str]:
    """One text per row: the ``top`` features that pushed the row towards its label.

    ``contrib`` has one column per feature plus the bias last (LightGBM's ``pred_contrib`` layout);
    ``positive`` says per row whether the label is content (push up) or boilerplate (push down).
    """
    signed = np.where(positive[:, None], contrib[:, :-1], -contrib[:, :-1])
    order = np.argsort(-signed, axis=1)[:, :top]
    texts = []
    for row, picks in enumerate(order):
        parts = [
            f"{names[j]}={values[row, j]:.3g} ({contrib[row, j]:+.2f})"
            for j in picks
            if signed[row, j] > 0
        ]
        texts.append(", ".join(parts) or "no single feature stands out")
    return texts
