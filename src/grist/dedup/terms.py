"""Seed 001 §3.3.1 pre-processing: lower-case, drop stop words, reduce words to their Porter stem.

Stemming uses the ``snowballstemmer`` package's original Porter algorithm (pure Python; it picks up
the C ``PyStemmer`` build automatically when that is installed) rather than a home-made stemmer.
"""

from __future__ import annotations

import re
from functools import lru_cache

import snowballstemmer

from grist.features.stopwords import load_stopwords

_WORD = re.compile(r"\w+")


@lru_cache(maxsize=1)
def _stemmer() -> snowballstemmer.stemmer:
    return snowballstemmer.stemmer("porter")


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens of ``text`` (letters, digits and underscores)."""
    return _WORD.findall(text.lower())


def terms(text: str, stopwords: frozenset[str] | None = None, stem: bool = True) -> list[str]:
    """The significant terms of ``text`` in order: tokens minus stop words, Porter-stemmed."""
    stop = load_stopwords("en") if stopwords is None else stopwords
    kept = [t for t in tokens(text) if t not in stop]
    return _stemmer().stemWords(kept) if stem else kept
