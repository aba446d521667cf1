"""Word-level LCS precision, recall and F1 (seed 003 Eq. 1-3, seed 004 §E), and shingle scores.

p = |LCS(extracted, gold)| / |extracted|,  r = |LCS| / |gold|,  F1 = 2pr / (p + r),
computed per page on word tokens and averaged over pages; the running mean over a stream is
seed 003 Eq. 4. The shingle scores follow the article-extraction benchmark (Zyte/Scrapinghub):
word 4-gram shingles with multiplicity, per-page tp/fp/fn normalised to sum 1.
The token definitions are documented (with the calibration that chose them) in
docs/benchmarks/README.md.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

from grist.features.tokens import words as tokenizer_words



class PRF(NamedTuple):
    precision: float
    recall: float
    f1: float


def words(text: str) -> list[str]:
    """The tokens the word-level LCS metric compares: whitespace-separated words."""
    return text.split()


def shingle_tokens(text: str) -> list[str]:
    """The tokens the shingle metric compares: runs of Unicode word characters, case kept."""
    return tokenizer_words(text)


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


def cumulative_moving_average(values: Iterable[float]) -> Iterator[float]:
    """Seed 003 Eq. 4: after the j-th document, the mean of the first j per-document scores."""
    total = 0.0
    for count, value in enumerate(values, start=1):
        total += value
        yield total / count


def shingles(
    text: str, n: int = 4, tokenize: Callable[[str], list[str]] = shingle_tokens
) -> Counter[tuple[str, ...]]:
    """Word n-gram shingles with multiplicity; a text shorter than n words is one shingle."""
    tokens = tokenize(text)
    if not tokens:
        return Counter()
    return Counter(tuple(tokens[i : i + n]) for i in range(max(1, len(tokens) - n + 1)))


class TpFpFn(NamedTuple):
    tp: float
    fp: float
    fn: float


def shingle_counts(
    extracted: str, gold: str, n: int = 4, tokenize: Callable[[str], list[str]] = shingle_tokens
) -> TpFpFn:
    """Shingle true/false positives and false negatives of one page, normalised to sum to 1.

    The normalisation (as in the article-extraction benchmark) gives every page the same weight.
    Both texts empty gives 0/0/0.
    """
    pred, true = shingles(extracted, n, tokenize), shingles(gold, n, tokenize)
    tp = sum(min(count, true[key]) for key, count in pred.items() if key in true)
    fp = sum(pred.values()) - tp
    fn = sum(true.values()) - tp
    total = tp + fp + fn
    if total == 0:
        return TpFpFn(0.0, 0.0, 0.0)
    return TpFpFn(tp / total, fp / total, fn / total)


def shingle_prf(counts: TpFpFn) -> PRF:
    """Per-page shingle precision, recall and F1; nothing to find and nothing found is perfect."""
    tp, fp, fn = counts
    if fp == 0 and fn == 0:
        return PRF(1.0, 1.0, 1.0)
    p = 0.0 if tp == 0 and fp == 0 else tp / (tp + fp)
    r = 0.0 if tp == 0 and fn == 0 else tp / (tp + fn)
    return PRF(p, r, 2 * p * r / (p + r) if p + r else 0.0)


def exact_match(extracted: str, gold: str) -> bool:
    """Whether the extraction has exactly the gold's word tokens (the benchmark's accuracy)."""
    return shingle_tokens(extracted) == shingle_tokens(gold)


def snippet_scores(extracted: str, with_: list[str], without: list[str]) -> tuple[float, float]:
    """Share of must-have snippets found and of must-not snippets absent.

    A snippet is found when its case-folded word tokens occur as a contiguous run in the
    extraction's (so "Home" does not match inside "homepage"). An empty list scores 1.0.
    """
    text = _token_line(extracted)

    def found(snippet: str) -> bool:
        needle = _token_line(snippet)
        return needle != "  " and needle in text

    hit = sum(found(s) for s in with_) / len(with_) if with_ else 1.0
    clean = sum(not found(s) for s in without) / len(without) if without else 1.0
    return hit, clean


def _token_line(text: str) -> str:
    return " " + " ".join(shingle_tokens(text.casefold())) + " "
