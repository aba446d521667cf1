"""Block scores from title, link and content words: seed 001's weighted block score (Eq. 4-8) and
seed 000's block importance (Eq. 3-7), as arrays, as labelling stages and as feature columns.

Terms are the dedup pre-processing (lower-case, no stop words, Porter stems), so a title word
matches its inflections in the text.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from grist.features.stopwords import load_stopwords
from grist.features.tokens import terms, title_keywords
from grist.document import BOILERPLATE, CONTENT, Block, Document
from grist.features.matrix import FeatureMatrix


@dataclass(frozen=True)
class WeightedScoreConfig:
    """Seed 001 Eq. 4 weights (alpha <= beta <= gamma, summing to 1)."""

    alpha: float = 0.3
    beta: float = 0.3
    gamma: float = 0.4


@dataclass(frozen=True)
class ImportanceConfig:
    """Seed 000 Eq. 3 weights (the paper leaves them open; equal by default), top-K and PF ratio."""

    alpha: float = 1 / 3
    beta: float = 1 / 3
    gamma: float = 1 / 3
    top_k: int = 10
    position_ratio: float = 0.7


def title_terms_of(title: str) -> frozenset[str]:
    """The title's significant terms (stop words out, Porter stems), as both papers match them."""
    return title_keywords(title, stopwords=load_stopwords("en"), stem=True)


def link_vocabulary(doc: Document) -> set[str]:
    """Terms that occur in the page's link (``<a>``) texts."""
    if doc.dom is None:
        return set()
    return set(terms(" ".join(a.text(deep=True, separator=" ") for a in doc.dom.css("a"))))


def term_classes(
    block_terms: Sequence[Sequence[str]], title: set[str], links: set[str]
) -> tuple[np.ndarray, tuple[int, int, int]]:
    """Per block, how many term occurrences are title words, else link words, else content words
    (seed 001's BlockScore loop), and the page's distinct title, link and content words."""
    counts = np.zeros((len(block_terms), 3), dtype=np.int64)
    distinct: tuple[set[str], set[str], set[str]] = (set(), set(), set())
    for row, seq in enumerate(block_terms):
        for term, times in Counter(seq).items():  # each distinct term once (blocks may be huge)
            kind = 0 if term in title else 1 if term in links else 2
            counts[row, kind] += times
            distinct[kind].add(term)
    return counts, (len(distinct[0]), len(distinct[1]), len(distinct[2]))


def weighted_block_scores(
    counts: np.ndarray, distinct: tuple[int, int, int], config: WeightedScoreConfig | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Seed 001 Eq. 5-7 weightages (T_w, L_w, C_w per block, columns) and Eq. 4's score
    1 - (alpha T_w + beta L_w + gamma C_w); a class with no distinct word weighs 0."""
    config = config or WeightedScoreConfig()
    denominators = np.array(distinct, dtype=np.float64)
    safe = np.where(denominators > 0, denominators, 1.0)
    weights = np.where(denominators > 0, counts / safe, 0.0)
    mix = np.array([config.alpha, config.beta, config.gamma])
    return weights, 1.0 - weights @ mix


def scoring_threshold(distinct_blocks: int, total_blocks: int) -> float:
    """Seed 001 Eq. 8: distinct blocks / all blocks of the page."""
    return distinct_blocks / total_blocks if total_blocks else 0.0


def title_keyword(seq: Sequence[str], title: set[str]) -> float:
    """Seed 000 Eq. 4: T_k = 1 - m_k / (m_k + sum of the block's frequencies of the m_k title
    keywords); 0 when the title has no keyword."""
    m = len(title)
    if m == 0:
        return 0.0
    hits = sum(1 for t in seq if t in title)
    return 1.0 - m / (m + hits)


def keyword_frequency(seq: Sequence[str], page_words: int, top_k: int = 10) -> float:
    """Seed 000 Eq. 5: K_f = sum of the frequencies of the block's top-K keywords / page words."""
    if page_words == 0:
        return 0.0
    return sum(f for _, f in Counter(seq).most_common(top_k)) / page_words


def position_feature(block_keywords: int, page_keywords: int, ratio: float = 0.7) -> float:
    """Seed 000 Eq. 6: 1 when the block holds at least ``ratio`` of the page's keywords, else 0.

    The text says 'greater than or equal to 0.7'; the printed case '0.7 >= T' contradicts it and
    would mark almost every block, so the text is followed.
    """
    return 1.0 if page_keywords and block_keywords / page_keywords >= ratio else 0.0


def block_importance(
    block_terms: Sequence[Sequence[str]], title: set[str], config: ImportanceConfig | None = None
) -> np.ndarray:
    """Seed 000 Eq. 3 per block: columns T_k, K_f, PF_s and B_W' = alpha T_k + beta K_f + gamma PF_s."""
    config = config or ImportanceConfig()
    page_words = sum(len(seq) for seq in block_terms)
    out = np.zeros((len(block_terms), 4))
    for row, seq in enumerate(block_terms):
        tk = title_keyword(seq, title)
        kf = keyword_frequency(seq, page_words, config.top_k)
        pf = position_feature(len(seq), page_words, config.position_ratio)
        out[row] = (tk, kf, pf, config.alpha * tk + config.beta * kf + config.gamma * pf)
    return out


def main_block_weight(sub_weights: Sequence[float], alpha: float = 1.0) -> float:
    """Seed 000 Eq. 7: a main block's weight is the alpha-scaled sum of its sub-block weights."""
    return alpha * float(sum(sub_weights))


FEATURE_NAMES = (
    "title_weight", "link_weight", "content_weight", "weighted_block_score",
    "title_keyword", "keyword_frequency", "position_feature", "block_importance",
)


def scoring_features(
    blocks: Sequence[Block], title: str, links: set[str],
    weighted: WeightedScoreConfig | None = None, importance: ImportanceConfig | None = None,
) -> FeatureMatrix:
    """Both papers' block scores as feature columns (one row per block) for the learned model."""
    block_terms = [terms(b.text) for b in blocks]
    title_terms = title_terms_of(title)
    counts, distinct = term_classes(block_terms, title_terms, links)
    weights, score = weighted_block_scores(counts, distinct, weighted)
    values = np.hstack([weights, score[:, None], block_importance(block_terms, title_terms, importance)])
    return FeatureMatrix(FEATURE_NAMES, values.reshape(len(blocks), len(FEATURE_NAMES)))


def label_by_weighted_score(
    blocks: Sequence[Block], title: str, links: set[str], total_blocks: int,
    config: WeightedScoreConfig | None = None,
) -> None:
    """Seed 001's last stage: score the distinct blocks, keep those above the Eq. 8 threshold."""
    block_terms = [terms(b.text) for b in blocks]
    counts, distinct = term_classes(block_terms, title_terms_of(title), links)
    _, scores = weighted_block_scores(counts, distinct, config)
    threshold = scoring_threshold(len(blocks), total_blocks)
    for block, score in zip(blocks, scores, strict=True):
        block.score = float(score)
        if score > threshold:
            block.label, block.reason = CONTENT, f"block score {score:.3f} > threshold {threshold:.3f}"
        else:
            block.label, block.reason = BOILERPLATE, f"block score {score:.3f} <= threshold {threshold:.3f}"


def label_by_importance(
    blocks: Sequence[Block], title: str, threshold: float, config: ImportanceConfig | None = None
) -> None:
    """Seed 000's block importance as a stage: blocks whose B_W' reaches ``threshold`` are content."""
    values = block_importance([terms(b.text) for b in blocks], title_terms_of(title), config)
    for block, weight in zip(blocks, values[:, 3], strict=True):
        block.score = float(weight)
        keep = weight >= threshold
        block.label = CONTENT if keep else BOILERPLATE
        block.reason = f"block importance {weight:.3f} {'>=' if keep else '<'} {threshold:.3f}"
