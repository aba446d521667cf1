"""The one tokeniser: the word pattern every stage shares, significant terms, title keywords.

A *word* here is a run of Unicode word characters (``\\w+``: letters, digits, underscore).
Significant terms are seed 001 §3.3.1's pre-processing: lower-cased words minus stop words,
reduced to their Porter stem (the ``snowballstemmer`` package's original Porter algorithm; it
picks up the C ``PyStemmer`` build when installed). Title keywords are the words of a page title
in each paper's reading (length, stop words, stemming), from one function.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

import snowballstemmer

from grist.features.stopwords import load_stopwords

WORD = re.compile(r"\w+")
# Calendar words, as pages write them (the date feature and the byline cleaning read them).
MONTH_WORDS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "sept", "oct", "nov",
               "dec", "january", "february", "march", "april", "june", "july", "august",
               "september", "october", "november", "december")
DAY_WORDS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun", "monday", "tuesday", "wednesday",
             "thursday", "friday", "saturday", "sunday")


def alternation(words: Iterable[str]) -> str:
    """A regex alternative of ``words``, longest first (so "june" wins over "jun")."""
    return "|".join(sorted(set(words), key=len, reverse=True))


@lru_cache(maxsize=1)
def _stemmer() -> snowballstemmer.stemmer:
    return snowballstemmer.stemmer("porter")


def words(text: str) -> list[str]:
    """The words of ``text``, case kept."""
    return WORD.findall(text)


def tokens(text: str) -> list[str]:
    """The lower-cased words of ``text``."""
    return WORD.findall(text.lower())


def stems(words: Iterable[str]) -> list[str]:
    """The Porter stems of lower-cased words."""
    return _stemmer().stemWords(list(words))


def terms(text: str, stopwords: frozenset[str] | None = None, stem: bool = True) -> list[str]:
    """The significant terms of ``text`` in order: tokens minus stop words (English by
    default), Porter-stemmed."""
    stop = load_stopwords("en") if stopwords is None else stopwords
    kept = [t for t in tokens(text) if t not in stop]
    return stems(kept) if stem else kept


def title_keywords(title: str, *, min_length: int = 1, stopwords: frozenset[str] = frozenset(),
                   stem: bool = False) -> frozenset[str]:
    """The distinct lower-cased words of ``title`` of at least ``min_length`` characters that
    are not stop words, Porter-stemmed when ``stem`` (seed 000/001 match terms that way)."""
    kept = [w for w in tokens(title) if len(w) >= min_length and w not in stopwords]
    return frozenset(stems(kept) if stem else kept)
