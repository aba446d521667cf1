"""Set and vector similarities between texts: exact Jaccard and seed 000's cosine (Eq. 2)."""

from __future__ import annotations

import math
from collections import Counter

from grist.features.tokens import terms


def shingles(seq: list[str], size: int = 1) -> set[tuple[str, ...]]:
    """The set of ``size``-term windows of ``seq`` (the terms themselves for size 1)."""
    if len(seq) < size:
        return {tuple(seq)} if seq else set()
    return {tuple(seq[i : i + size]) for i in range(len(seq) - size + 1)}


def jaccard(a: set, b: set) -> float:
    """|A ∩ B| / |A ∪ B|; two empty sets are identical (1.0)."""
    union = len(a | b)
    return len(a & b) / union if union else 1.0


def text_jaccard(x: str, y: str, size: int = 1) -> float:
    """Exact Jaccard similarity of the term shingles of two texts."""
    return jaccard(shingles(terms(x), size), shingles(terms(y), size))


def cosine(a: Counter, b: Counter) -> float:
    """Seed 000 Eq. 2: (B1 · B2) / (|B1| |B2|) over keyword weight vectors; 0.0 when one is empty."""
    dot = sum(w * b[t] for t, w in a.items() if t in b)
    norm = math.sqrt(sum(w * w for w in a.values())) * math.sqrt(sum(w * w for w in b.values()))
    return dot / norm if norm else 0.0


def text_cosine(x: str, y: str) -> float:
    """Cosine similarity of the term-frequency vectors of two texts."""
    return cosine(Counter(terms(x)), Counter(terms(y)))
