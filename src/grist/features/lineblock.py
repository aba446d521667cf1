"""Line-block features of seed 004 §IV-A: TTR (Eq. 1), ATTR (Eq. 2) and TKD, vectorised with NumPy.

TTR  = text length / number of tags in the block           (Eq. 1; a block without tags counts 1)
ATTR = anchor-text length / text length                     (Eq. 2; 0 for a block without text)
TKD  = occurrences of title keywords among the block's words (a count: the paper's threshold is 2)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from grist.features.matrix import FeatureMatrix
from grist.features.tokens import title_keywords as keywords_of
from grist.features.tokens import tokens

LINEBLOCK_FEATURES = ("ttr", "attr", "tkd", "text_length", "tags", "anchor_length", "lines")


# English function words that carry no topic; a title's "the"/"of" would match every paragraph.
TITLE_STOPWORDS = frozenset(
    "a an and are as at be but by for from has have he her his how in is it its new not of on "
    "or our says she that the their this to was we what when where who why will with you your".split()
)


def title_keywords(
    title: str, stopwords: frozenset[str] = TITLE_STOPWORDS, min_length: int = 2
) -> frozenset[str]:
    """The page title tokenised into lower-case keywords (seed 004's example: 5 words)."""
    return keywords_of(title, min_length=min_length, stopwords=stopwords)


def keyword_count(text: str, keywords: frozenset[str]) -> int:
    """How many of ``text``'s words (case-folded) are title keywords."""
    if not keywords:
        return 0
    return sum(1 for w in tokens(text) if w in keywords)


def ttr(text_length: np.ndarray, tags: np.ndarray) -> np.ndarray:
    """Eq. 1, text-to-tag ratio; a block without any tag divides by 1."""
    return np.asarray(text_length, dtype=np.float64) / np.maximum(tags, 1)


def attr(anchor_length: np.ndarray, text_length: np.ndarray) -> np.ndarray:
    """Eq. 2, anchor-text-to-text ratio; 0 for a block without text."""
    text = np.asarray(text_length, dtype=np.float64)
    return np.divide(anchor_length, text, out=np.zeros_like(text), where=text > 0)


def block_sums(values: Iterable[float], block_ids: np.ndarray, n_blocks: int) -> np.ndarray:
    """Per-line values summed per block (lines with id -1 belong to no block)."""
    array = np.fromiter(values, dtype=np.float64, count=len(block_ids))
    inside = block_ids >= 0
    return np.bincount(block_ids[inside], weights=array[inside], minlength=n_blocks)


def lineblock_features(
    text_length: np.ndarray,
    tags: np.ndarray,
    anchor_length: np.ndarray,
    tkd: np.ndarray,
    lines: np.ndarray,
) -> FeatureMatrix:
    """One row per line-block: TTR, ATTR, TKD and the counts they come from."""
    columns = (
        ttr(text_length, tags),
        attr(anchor_length, text_length),
        tkd,
        text_length,
        tags,
        anchor_length,
        lines,
    )
    values = np.column_stack([np.asarray(c, dtype=np.float64) for c in columns])
    return FeatureMatrix(LINEBLOCK_FEATURES, values.reshape(len(text_length), len(columns)))


def expand(matrix: FeatureMatrix, rows: Sequence[int]) -> FeatureMatrix:
    """The matrix with one row per entry of ``rows`` (e.g. each line gets its block's features)."""
    return FeatureMatrix(matrix.names, matrix.values[np.asarray(rows, dtype=np.int64)])
