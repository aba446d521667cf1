"""Word-level LCS precision, recall and F1 (seed 003 Eq. 1-3, seed 004 §E).

p = |LCS(extracted, gold)| / |extracted|,  r = |LCS| / |gold|,  F1 = 2pr / (p + r),
computed per page on whitespace-separated words and averaged over pages.
"""

from __future__ import annotations

from typing import NamedTuple


class PRF(NamedTuple):
    precision: float
    recall: float
    f1: float


def words(text: str) -> list[str]:
    """The tokens the word-level metrics compare."""
    return text.split()


def lcs_length(a: list[str], b: list[str]) -> int:
    """Length of the longest common subsequence of two token lists.

    Bit-parallel algorithm (Allison & Dix 1986, Hyyrö 2004): one pass over ``a`` with big-integer
    operations on a bit vector as long as ``b``, so O(|a|·|b|/64) machine words, not O(|a|·|b|).
    """
    if not a or not b:
        return 0
    masks: dict[str, int] = {}
    for position, token in enumerate(b):
        masks[token] = masks.get(token, 0) | (1 << position)
    full = (1 << len(b)) - 1
    v = full
    for token in a:
        m = masks.get(token)
        if m is None:
            continue
        u = v & m
        v = ((v + u) | (v - u)) & full
    return len(b) - v.bit_count()


def prf_from_counts(common: int, predicted: int, gold: int) -> PRF:
    """Precision, recall and F1 from a match count; an empty side scores as documented below.

    Both empty: a perfect 1/1/1. Empty prediction with non-empty gold: 0/0/0 (nothing found).
    Non-empty prediction with empty gold: 0/0/0 (everything extracted is wrong).
    """
    if predicted == 0 and gold == 0:
        return PRF(1.0, 1.0, 1.0)
    if predicted == 0 or gold == 0:
        return PRF(0.0, 0.0, 0.0)
    p, r = common / predicted, common / gold
    f = 2 * p * r / (p + r) if p + r else 0.0
    return PRF(p, r, f)


def lcs_prf(extracted: str, gold: str) -> PRF:
    """Word-level LCS precision, recall and F1 of one page."""
    a, b = words(extracted), words(gold)
    return prf_from_counts(lcs_length(a, b), len(a), len(b))
