"""Path sets of many pages as a sparse path x document 0/1 matrix; pathno, the least-pathno
threshold and the non-content (essential) paths of each document (seed 002).

The matrix is kept as NumPy index arrays in compressed sparse row form, one row per document:
``ptr[d]:ptr[d+1]`` slices ``ids`` to the dense ids of the paths document d contains (sorted).
``pathno[p]`` is the number of documents containing path p. A document's threshold is the mode
of the pathno values of its paths; its non-content paths are the paths it contains whose pathno
reaches that threshold. (The seed defines "essential paths" with the same words and the same
mode threshold over "support", which is pathno under another name: the two sets coincide.)

Readings of the threshold (``THRESHOLDS``; see docs/sites.md):

- ``mode`` (default reading of "has the least pathno threshold"): pathno >= the mode;
- ``mode-equal`` (literal): pathno == the mode;
- ``mode-shared``: pathno >= the mode of the pathno values above 1 (a path on one page only can
  never be part of a template, and on a long article those paths make the mode 1);
- ``shared``: pathno >= 2, no mode at all.

Ties of the mode go to the smaller pathno (the reading that keeps more paths).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

THRESHOLDS = ("mode", "mode-equal", "mode-shared", "shared")


@dataclass(frozen=True)
class SparseRows:
    """Rows of sorted integer ids: row d is ``ids[ptr[d]:ptr[d + 1]]``."""

    ptr: np.ndarray
    ids: np.ndarray

    def __len__(self) -> int:
        return len(self.ptr) - 1

    def row(self, d: int) -> np.ndarray:
        return self.ids[self.ptr[d]: self.ptr[d + 1]]

    def lengths(self) -> np.ndarray:
        return np.diff(self.ptr)

    def row_of_entry(self) -> np.ndarray:
        """The row index of every entry of ``ids``."""
        return np.repeat(np.arange(len(self), dtype=np.int64), self.lengths())

    def select(self, keep: np.ndarray) -> SparseRows:
        """The same rows with only the entries where ``keep`` (one flag per entry) is true."""
        kept_per_row = np.bincount(self.row_of_entry(), weights=keep, minlength=len(self))
        ptr = np.concatenate([[0], np.cumsum(kept_per_row.astype(np.int64))])
        return SparseRows(ptr, self.ids[keep])


@dataclass(frozen=True)
class PathSets:
    """The documents' path sets over a shared vocabulary of path hashes."""

    hashes: np.ndarray   # distinct path hashes, sorted; a path's dense id is its position
    docs: SparseRows     # the path x document matrix, by document
    pathno: np.ndarray   # per dense id: how many documents contain the path

    @classmethod
    def build(cls, documents: Sequence[np.ndarray]) -> PathSets:
        """From each document's array of path hashes (repeats within a document are ignored)."""
        rows = [np.unique(np.asarray(d, dtype=np.uint64)) for d in documents]
        lengths = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
        ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        every = np.concatenate(rows) if rows else np.empty(0, dtype=np.uint64)
        hashes, ids = np.unique(every, return_inverse=True)
        ids = ids.astype(np.int64).reshape(-1)
        pathno = np.bincount(ids, minlength=len(hashes)).astype(np.int64)
        return cls(hashes, SparseRows(ptr, ids), pathno)

    @property
    def n_docs(self) -> int:
        return len(self.docs)

    def thresholds(self, reading: str = "mode") -> np.ndarray:
        """Each document's least-pathno threshold under ``reading`` (see the module doc)."""
        if reading not in THRESHOLDS:
            raise ValueError(f"unknown threshold reading {reading!r}; "
                             f"one of {', '.join(THRESHOLDS)}")
        n = self.n_docs
        if reading == "shared":
            return np.full(n, 2, dtype=np.int64)
        values = self.pathno[self.docs.ids]
        rows = self.docs.row_of_entry()
        default = 1
        if reading == "mode-shared":
            keep = values >= 2
            values, rows, default = values[keep], rows[keep], 2
        out = np.full(n, default, dtype=np.int64)
        if len(values) == 0:
            return out
        # count (row, value) pairs; per row the most frequent value, the smaller on ties
        span = np.int64(values.max() + 1)
        pairs, counts = np.unique(rows * span + values, return_counts=True)
        pair_rows, pair_values = pairs // span, pairs % span
        order = np.lexsort((pair_values, -counts, pair_rows))
        first = order[np.concatenate([[True], np.diff(pair_rows[order]) != 0])]
        out[pair_rows[first]] = pair_values[first]
        return out

    def non_content(self, reading: str = "mode") -> SparseRows:
        """NC(doc): the paths of each document that are non-content under ``reading``."""
        threshold = self.thresholds(reading)[self.docs.row_of_entry()]
        values = self.pathno[self.docs.ids]
        keep = values == threshold if reading == "mode-equal" else values >= threshold
        return self.docs.select(keep)
