"""``grist batch --dedup``: near-duplicate documents across the whole run.

Workers write each page's MinHash signature next to its output line (``<shard>.minhash``, one
row per line). Once every shard is extracted, the signatures of the whole run are searched with
LSH (``grist.dedup.documents``); in each group of near-duplicates the first page in run order
(shard order, then line order) is kept and every other one is marked ``duplicate_of`` it, or
dropped, when the shards are finished. The search holds the run's signatures in memory:
``num_perm`` x 8 bytes per page (1 KiB at the default 128, so 1 GiB per million pages).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from grist.batch.job import Plan
from grist.batch.worker import ShardFiles, dedup_config
from grist.dedup.documents import first_of_group, near_duplicate_pairs


def find_duplicates(job: Plan, out: Path) -> dict[str, dict[int, str]]:
    """Per shard id: line number -> the input of the page it duplicates."""
    config = dedup_config(job.config)
    files = [ShardFiles(out, shard.id, job.config) for shard in job.shards]
    blocks = [np.fromfile(f.signatures, dtype=np.uint64).reshape(-1, config.num_perm)
              if f.signatures.exists() else np.empty((0, config.num_perm), dtype=np.uint64)
              for f in files]
    starts = np.cumsum([0] + [len(b) for b in blocks])
    signatures = np.concatenate(blocks) if blocks else np.empty((0, config.num_perm), np.uint64)
    left, right, _ = near_duplicate_pairs(signatures, config)
    first = first_of_group(len(signatures), left, right)
    copies = np.flatnonzero(first != np.arange(len(first)))
    labels = _labels(files, starts, set(first[copies].tolist()))
    found: dict[str, dict[int, str]] = {}
    for index in copies.tolist():
        shard = int(np.searchsorted(starts, index, side="right")) - 1
        found.setdefault(job.shards[shard].id, {})[index - int(starts[shard])] = \
            labels[int(first[index])]
    return found


def _labels(files: list[ShardFiles], starts: np.ndarray, wanted: set[int]) -> dict[int, str]:
    """The ``input`` of each wanted page (by its index in the run)."""
    labels: dict[int, str] = {}
    for number, shard_files in enumerate(files):
        lo, hi = int(starts[number]), int(starts[number + 1])
        if not any(lo <= w < hi for w in wanted):
            continue
        with open(shard_files.part, encoding="utf-8") as handle:
            for line_number, line in enumerate(handle):
                if lo + line_number in wanted:
                    labels[lo + line_number] = json.loads(line)["input"]
    return labels
