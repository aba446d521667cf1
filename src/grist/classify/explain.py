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
    signed = contrib[:, :-1] * np.where(positive, 1.0, -1.0)[:, None]
    rows = np.arange(len(signed))
    picks, pushes = [], []
    for _ in range(min(top, signed.shape[1])):  # repeated argmax: cheaper than sorting rows
        best = signed.argmax(axis=1)
        picks.append(best)
        pushes.append(signed[rows, best])
        signed[rows, best] = -np.inf
    picked = np.array(picks, dtype=np.int64).reshape(len(picks), len(rows)).T
    texts = []
    for columns, push, value, amount in zip(
            picked.tolist(), np.array(pushes).reshape(len(picks), len(rows)).T.tolist(),
            np.take_along_axis(values, picked, axis=1).tolist(),
            np.take_along_axis(contrib, picked, axis=1).tolist(), strict=True):
        parts = [f"{names[j]}={v:.3g} ({a:+.2f})"
                 for j, p, v, a in zip(columns, push, value, amount, strict=True) if p > 0]
        texts.append(", ".join(parts) or "no single feature stands out")
    return texts
