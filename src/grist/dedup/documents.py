"""Near-duplicate documents across a corpus: MinHash over word shingles, LSH banding, and a check
of every candidate pair's estimated Jaccard similarity against the threshold.

This is how corpus builders deduplicate (Broder 1997; the GPT-3, Gopher, RefinedWeb, DCLM and
datatrove pipelines): a document is the set of its lower-cased word ``shingle``-grams, two
documents are near-duplicates when the Jaccard similarity of those sets reaches ``threshold``.
The signatures and the banding are the shared building blocks of ``grist.dedup.minhash`` and
``grist.dedup.lsh`` (the site clustering uses the same ones). Defaults were chosen by measurement
on planted near-duplicates and unrelated pages (``docs/benchmarks/dedup-corpus.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from grist.checks import check_choice, check_number, check_whole
from grist.dedup.index import (
    INDEX_FILE_ERRORS,
    LEVELS,
    first_ids,
    other_kind,
    saved_text,
    saved_texts,
    unreadable_index,
    write_index,
)
from grist.dedup.lsh import candidate_pairs, choose_bands
from grist.dedup.minhash import EMPTY, MinHasher, element_hashes
from grist.dedup.similarity import shingles
from grist.errors import ConfigError
from grist.features.tokens import tokens


@dataclass(frozen=True)
class MinHashConfig:
    """Word ``shingle``-grams, ``num_perm`` MinHash values, near-duplicates at Jaccard >=
    ``threshold``; texts under ``min_words`` words get no signature (they match nothing)."""

    shingle: int = 2
    num_perm: int = 128
    threshold: float = 0.5
    min_words: int = 10
    seed: int = 1
    max_bucket: int = 50

    def __post_init__(self) -> None:
        """Refuse settings the signatures or the LSH search cannot use, when they are made."""
        for name, least in (("shingle", 1), ("num_perm", 1), ("min_words", 0), ("seed", 0),
                            ("max_bucket", 2)):
            check_whole(self, name, least)
        check_number(self, "threshold", 0, 1, above=True)


class DocumentSketcher:
    """Turns texts into MinHash signatures of their word shingles."""

    def __init__(self, config: MinHashConfig | None = None) -> None:
        self.config = config or MinHashConfig()
        self.hasher = MinHasher(self.config.num_perm, seed=self.config.seed)

    def shingle_hashes(self, text: str) -> np.ndarray:
        """Hashes of the text's distinct word shingles (none for a text under ``min_words``)."""
        words = tokens(text)
        if len(words) < self.config.min_words:
            return np.empty(0, dtype=np.uint64)
        return element_hashes("\x1f".join(g) for g in shingles(words, self.config.shingle))

    def signatures(self, texts: Sequence[str]) -> np.ndarray:
        """One signature row per text (all ``EMPTY`` for a text without one)."""
        return self.hasher.signatures([self.shingle_hashes(t) for t in texts])


def near_duplicate_pairs(signatures: np.ndarray, config: MinHashConfig
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(i, j, estimated Jaccard) of every pair i < j at or above the threshold, found through LSH
    buckets and checked on the whole signatures; rows without a signature take no part."""
    has = signatures[:, 0] != EMPTY
    rows = np.flatnonzero(has)
    if len(rows) < 2:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty, np.empty(0)
    bands, width = choose_bands(config.threshold, config.num_perm)
    a, b = candidate_pairs(signatures[rows], bands, width, max_bucket=config.max_bucket)
    similarity = np.empty(len(a))
    for start in range(0, len(a), 65536):  # bounded memory for many candidates
        part = slice(start, start + 65536)
        same = signatures[rows[a[part]]] == signatures[rows[b[part]]]
        similarity[part] = same.mean(axis=1)
    keep = similarity >= config.threshold
    return rows[a[keep]], rows[b[keep]], similarity[keep]


def first_of_group(count: int, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """For each of ``count`` documents, the first document (lowest index) of its group of
    near-duplicates (itself when it has none); pairs join groups transitively."""
    parent = np.arange(count)

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, j in zip(left.tolist(), right.tolist(), strict=True):
        a, b = root(i), root(j)
        if a != b:
            parent[max(a, b)] = min(a, b)
    return np.fromiter((root(i) for i in range(count)), dtype=np.int64, count=count)


def duplicate_groups(first: np.ndarray) -> list[list[int]]:
    """Groups of two or more documents from ``first_of_group``'s answer, each in index order."""
    groups: dict[int, list[int]] = {}
    for index, head in enumerate(first.tolist()):
        groups.setdefault(head, []).append(index)
    return [members for members in groups.values() if len(members) > 1]


class MinHashGroups:
    """Near-duplicate groups over texts added one by one (``grist dedup``): signatures are kept,
    the LSH search runs once in ``groups()``; ``save``/``load`` keep the keys and signatures
    (``.npz``) so a later run checks new documents against them. ``level``: what the texts are
    (``document`` or ``block``, as ``grist dedup --level``; None: not said), saved with them.
    A key is kept once: a text under a key already held (a re-run over the same pages) is not
    sketched again, so the first text seen under a key is the one compared."""

    def __init__(self, config: MinHashConfig | None = None, level: str | None = None) -> None:
        self.sketcher = DocumentSketcher(config)
        self.config = self.sketcher.config
        self.level = level
        check_choice(self, "level", LEVELS)
        self.keys: list[str] = []
        self.previews: dict[int, str] = {}
        self._rows: list[np.ndarray] = []
        self._ids: dict[str, int] = {}
        self.skipped = 0  # texts without a signature (under min_words, or no words)
        self.repeated = 0  # texts under a key already held

    def __len__(self) -> int:
        return len(self.keys)

    def key(self, ident: int) -> str:
        return self.keys[ident]

    def add(self, key: str, text: str) -> int:
        """Sketch and keep ``text`` under ``key``; returns its id (a key already held: the id
        it has, its text unchanged)."""
        if key in self._ids:
            self.repeated += 1
            return self._ids[key]
        signature = self.sketcher.signatures([text])
        self.skipped += int(signature[0, 0] == EMPTY)
        self._rows.append(signature)
        self._ids[key] = len(self.keys)
        self.keys.append(key)
        self.previews[len(self.keys) - 1] = " ".join(text.split())[:100]
        return len(self.keys) - 1

    def signatures(self) -> np.ndarray:
        if len(self._rows) > 1:
            self._rows = [np.concatenate(self._rows)]
        return self._rows[0] if self._rows else np.empty((0, self.config.num_perm), np.uint64)

    def groups(self) -> list[list[int]]:
        """Groups of two or more ids, each in id order, ordered by their first member."""
        signatures = self.signatures()
        left, right, _ = near_duplicate_pairs(signatures, self.config)
        return duplicate_groups(first_of_group(len(signatures), left, right))

    def save(self, path: str | Path) -> None:
        """Write the keys, signatures, settings and level to ``path`` (NumPy ``.npz``)."""
        settings = np.array([self.config.shingle, self.config.num_perm, self.config.min_words,
                             self.config.seed], dtype=np.int64)
        write_index(path, {"signatures": self.signatures(), "keys": np.array(self.keys, dtype=str),
                           "settings": settings, "threshold": np.float64(self.config.threshold),
                           **saved_texts(level=self.level)})

    @staticmethod
    def is_index(path: str | Path) -> bool:
        """Whether ``path`` holds a MinHash index (rather than a simhash one)."""
        try:
            with np.load(path, allow_pickle=False) as data:
                return "settings" in data.files
        except INDEX_FILE_ERRORS:
            return False

    @classmethod
    def load(cls, path: str | Path, threshold: float | None = None,
             min_words: int | None = None) -> MinHashGroups:
        """Read what ``save`` wrote (its shingles and hash functions; ``threshold``, how close a
        match must be, and ``min_words``, which new texts get a signature, may change)."""
        changed = {name: value for name, value in (("threshold", threshold),
                                                   ("min_words", min_words)) if value is not None}
        try:
            with np.load(path, allow_pickle=False) as data:
                if mismatch := other_kind(path, data.files, "MinHash"):
                    raise mismatch
                shingle, num_perm, saved_min_words, seed = data["settings"].tolist()
                config = MinHashConfig(shingle, num_perm, float(data["threshold"]),
                                       saved_min_words, seed)
                groups = cls(replace(config, **changed), saved_text(data, "level"))
                groups._rows = [data["signatures"]]
                groups.keys = data["keys"].tolist()
                groups._ids = first_ids(groups.keys)
        except ConfigError:  # a setting out of range (one given, or the file's)
            raise
        except INDEX_FILE_ERRORS as exc:
            raise unreadable_index(path, exc) from None
        return groups
