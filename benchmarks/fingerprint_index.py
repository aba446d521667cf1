"""Scale of the multi-index Hamming index: insert N random 64-bit fingerprints, query within k bits.

Usage: nice python benchmarks/fingerprint_index.py [--n 1000000] [--queries 100000] [--k 3]
Reports build time, batched and one-at-a-time query throughput (one process, NumPy), the
index's array memory and process peak RSS, and checks exactness against a brute-force scan.
"""

from __future__ import annotations

import argparse
import platform
import resource
import time

import numpy as np

from grist.dedup.index import FingerprintIndex


def _queries(stored: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """Half random fingerprints, half stored ones with 0-5 random bits flipped."""
    near = stored[rng.integers(0, len(stored), size=count // 2)].copy()
    for i in range(len(near)):
        for bit in rng.choice(64, size=i % 6, replace=False):
            near[i] ^= np.uint64(1) << np.uint64(bit)
    far = rng.integers(0, 2**64 - 1, size=count - len(near), dtype=np.uint64, endpoint=True)
    out = np.concatenate([near, far])
    rng.shuffle(out)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--single", type=int, default=5_000, help="queries sent one at a time")
    parser.add_argument("--check", type=int, default=2_000, help="queries checked by brute force")
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--batch", type=int, default=10_000)
    args = parser.parse_args()
    rng = np.random.default_rng(42)
    stored = rng.integers(0, 2**64 - 1, size=args.n, dtype=np.uint64, endpoint=True)
    index = FingerprintIndex(args.k)
    start = time.perf_counter()
    index.add_many(stored)
    index.query(0)  # builds the tables
    build = time.perf_counter() - start
    queries = _queries(stored, args.queries, rng)
    start = time.perf_counter()
    found = 0
    for lo in range(0, len(queries), args.batch):
        found += len(index.query_many(queries[lo : lo + args.batch])[0])
    batched = time.perf_counter() - start
    start = time.perf_counter()
    for q in queries[: args.single]:
        index.query(int(q))
    single = time.perf_counter() - start
    sample = queries[: args.check]
    qpos, ids = index.query_many(sample)
    got = set(zip(qpos.tolist(), ids.tolist(), strict=True))
    want = set()
    for i, q in enumerate(sample):
        want.update((i, int(j)) for j in np.flatnonzero(np.bitwise_count(stored ^ q) <= args.k))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"python {platform.python_version()}, numpy {np.__version__}, {platform.processor() or platform.machine()}")
    print(f"fingerprints: {args.n:,}  k: {args.k}  tables: {args.k + 1}")
    print(f"build: {build:.2f} s")
    print(f"batched queries: {len(queries):,} in {batched:.3f} s = {len(queries) / batched:,.0f} queries/s "
          f"(batch {args.batch:,}; {found:,} matches)")
    print(f"single queries: {args.single:,} in {single:.3f} s = {args.single / single:,.0f} queries/s")
    print(f"exactness vs brute force on {len(sample):,} queries: {len(want):,} true matches, "
          f"{len(want - got)} missed, {len(got - want)} spurious")
    print(f"index arrays: {index.memory_bytes() / 2**20:.1f} MiB; process peak RSS: {peak_mb:.0f} MiB")


if __name__ == "__main__":
    main()
