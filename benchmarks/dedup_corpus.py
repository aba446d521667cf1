"""Corpus-scale near-duplicate detection: planted near-duplicates at edit rates 1-20 % among
unrelated pages, for MinHash-LSH (shingle sizes, thresholds) and both simhashes (k bits).

Usage: nice python benchmarks/dedup_corpus.py [--datasets-dir ../shared/datasets] [--planted 300]
       [--out docs/benchmarks/dedup-corpus.md]

Pool: the gold texts of every shared dataset with at least 50 words, minus every text whose
exact word-set Jaccard with another pool text is >= 0.5 (the datasets hold real near-duplicates,
which must not count as false pairs): these are the unrelated pages. Planted pairs: ``--planted``
pool texts, each with one copy edited at rate r (r x its words edits, each a substituted,
inserted or deleted word, chosen at random). Each edit rate is one run over pool + copies: a
planted pair is found when the copy lands in its original's group; every other reported pair is
false. Precision = planted pairs found / pairs reported.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

import numpy as np
from scipy import sparse

from grist.dedup.documents import (
    DocumentSketcher, MinHashConfig, first_of_group, near_duplicate_pairs,
)
from grist.dedup.index import FingerprintIndex
from grist.dedup.simhash import frequency_simhash, modified_simhash
from grist.features.tokens import tokens
from grist.io.datasets import page_datasets, read_dataset
from reporting import publish  # benchmarks/reporting.py (the script's folder is on sys.path)

RATES = (0.01, 0.025, 0.05, 0.10, 0.15, 0.20)


def load_pool(folder: Path) -> list[str]:
    texts = []
    for path in page_datasets(folder)[0]:
        texts += [p.gold for p in read_dataset(path) if len(tokens(p.gold)) >= 50]
    return texts


def unrelated(texts: list[str]) -> tuple[list[str], int]:
    """Drop every text whose word set has Jaccard >= 0.5 with an earlier kept text."""
    vocab: dict[str, int] = {}
    rows, cols = [], []
    for i, text in enumerate(texts):
        for word in set(tokens(text)):
            rows.append(i)
            cols.append(vocab.setdefault(word, len(vocab)))
    x = sparse.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)),
                          shape=(len(texts), len(vocab)))
    inter = (x @ x.T).toarray()
    sizes = np.diag(inter).copy()
    jaccard = inter / (sizes[:, None] + sizes[None, :] - inter)
    np.fill_diagonal(jaccard, 0)
    keep: list[int] = []
    dropped = np.zeros(len(texts), dtype=bool)
    for i in range(len(texts)):
        if dropped[i]:
            continue
        keep.append(i)
        dropped |= jaccard[i] >= 0.5
    return [texts[i] for i in keep], len(texts) - len(keep)


def edit(text: str, rate: float, rng: random.Random, vocabulary: list[str]) -> str:
    words = text.split()
    for _ in range(max(1, round(rate * len(words)))):
        kind = rng.choice(("substitute", "insert", "delete"))
        at = rng.randrange(len(words))
        if kind == "substitute":
            words[at] = rng.choice(vocabulary)
        elif kind == "insert":
            words.insert(at, rng.choice(vocabulary))
        elif len(words) > 1:
            words.pop(at)
    return " ".join(words)


Finder = Callable[[list[str]], tuple[np.ndarray, np.ndarray]]


def minhash_finder(config: MinHashConfig) -> tuple[str, Finder]:
    sketcher = DocumentSketcher(config)
    cache: dict[int, np.ndarray] = {}

    def find(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        sigs = np.stack([cache.setdefault(hash(t), sketcher.signatures([t])[0]) for t in texts])
        a, b, _ = near_duplicate_pairs(sigs, config)
        return a, b

    name = (f"minhash {config.shingle}-word shingles, J >= {config.threshold}, "
            f"{config.num_perm} perm")
    return name, find


def simhash_finder(label: str, fingerprint: Callable[[str], int | None],
                   k: int) -> tuple[str, Finder]:
    cache: dict[int, int] = {}

    def find(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        fps = [cache[h] if (h := hash(t)) in cache else cache.setdefault(h, fingerprint(t) or 0)
               for t in texts]
        index = FingerprintIndex(k)
        index.add_many(np.array(fps, dtype=np.uint64))
        q, ids = index.query_many(np.array(fps, dtype=np.uint64))
        keep = q < ids
        return q[keep], ids[keep]

    return f"{label}, k = {k}", find


def evaluate(find: Finder, pool: list[str], originals: list[int], copies: list[str]
             ) -> tuple[float, float, int]:
    texts = pool + copies
    a, b = find(texts)
    first = first_of_group(len(texts), a, b)
    found = sum(first[len(pool) + n] == first[o] for n, o in enumerate(originals))
    planted = {(o, len(pool) + n) for n, o in enumerate(originals)}
    pairs = set(zip(a.tolist(), b.tolist(), strict=True))
    false = len(pairs - planted)
    true = len(pairs & planted)
    precision = true / (true + false) if true + false else 1.0
    return found / len(originals), precision, false


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--datasets-dir", type=Path, default=Path("../shared/datasets"))
    parser.add_argument("--planted", type=int, default=300)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    texts = load_pool(args.datasets_dir)
    pool, removed = unrelated(texts)
    rng = random.Random(args.seed)
    originals = rng.sample(range(len(pool)), args.planted)
    vocabulary = sorted({w for t in rng.sample(pool, 200) for w in t.split()})
    copies = {r: [edit(pool[o], r, rng, vocabulary) for o in originals] for r in RATES}
    finders = [minhash_finder(MinHashConfig(shingle=s, threshold=t))
               for s in (1, 2, 3, 5) for t in (0.4, 0.5, 0.6, 0.7, 0.8)]
    finders += [minhash_finder(MinHashConfig(shingle=3, threshold=0.5, num_perm=64)),
                minhash_finder(MinHashConfig(shingle=3, threshold=0.5, num_perm=256))]
    finders += [simhash_finder("simhash (frequency)", frequency_simhash, k) for k in (3, 6, 10, 12)]
    finders += [simhash_finder("modified simhash (seed 001)", modified_simhash, k)
                for k in (3, 6, 10, 12)]
    head = "| fingerprint | " + " | ".join(f"R@{r:.1%}" for r in RATES) + \
        " | P (all rates) | false pairs (all rates) | s |"
    lines = [head, "|" + "---|" * (len(RATES) + 4)]
    for name, find in finders:
        t0 = time.perf_counter()
        scores = [evaluate(find, pool, originals, copies[r]) for r in RATES]
        false = sum(s[2] for s in scores)
        true = sum(s[0] * len(originals) for s in scores)
        precision = true / (true + false) if true + false else 1.0
        lines.append(f"| {name} | " + " | ".join(f"{s[0]:.3f}" for s in scores) +
                     f" | {precision:.3f} | {false} | {time.perf_counter() - t0:.0f} |")
        print(lines[-1], file=sys.stderr, flush=True)
    report = "\n".join([
        f"pool: {len(texts)} gold texts of >= 50 words, {removed} removed as near-duplicates of "
        f"another (word-set Jaccard >= 0.5), {len(pool)} unrelated pages; {len(originals)} planted "
        f"pairs per edit rate; seed {args.seed}; {date.today()}; "
        f"{time.perf_counter() - started:.0f} s", "", *lines, ""])
    return publish(report, args.out)


if __name__ == "__main__":
    sys.exit(main())
