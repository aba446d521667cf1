"""NumPy index arrays or scipy.sparse for the path x document matrix? Measured on real pages.

Two operations dominate: building the matrix with pathno and the non-content rows
(``PathSets.build`` + ``non_content``), and TEXT-MDL's first round, which prices every pair of
documents. For singletons a pair's price needs only |NC_i ∩ NC_j|, which scipy gets as the
sparse product A.A^T; grist prices pairs with ``ClusterStore.merge_effects`` (one NumPy pass over
the other clusters' entries), which also serves merged clusters, where no product applies.

    nice .venv/bin/python benchmarks/sites_sparse.py --datasets-dir ../shared/datasets
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse

from grist.document import RawPage
from grist.sites.clusters import ClusterStore
from grist.sites.pages import PagePaths, read_page
from grist.sites.pathsets import PathSets

sys.path.insert(0, str(Path(__file__).parent))
from sites_common import dev_sites, provenance, report  # noqa: E402


def _timed(work) -> tuple[object, float]:
    started = time.process_time()
    out = work()
    return out, time.process_time() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets-dir", type=Path, default=Path("../shared/datasets"))
    parser.add_argument("--pages", type=int, default=600)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    pages = [p for group in dev_sites(args.datasets_dir, ("dragnet",)).values() for p in group]
    read = [read_page(RawPage(p.html, url=p.url), "blocks", False, "none")
            for p in pages[: args.pages]]
    hashes = [r.hashes for r in read if isinstance(r, PagePaths)]
    n = len(hashes)
    sets, numpy_build = _timed(lambda: PathSets.build(hashes))
    nc, numpy_nc = _timed(lambda: sets.non_content("mode-shared"))

    def scipy_build():
        every = np.concatenate(hashes)
        vocabulary, ids = np.unique(every, return_inverse=True)
        rows = np.repeat(np.arange(n), [len(h) for h in hashes])
        matrix = scipy.sparse.csr_matrix((np.ones(len(ids), dtype=np.int32), (rows, ids)),
                                         shape=(n, len(vocabulary)))
        return matrix, np.asarray(matrix.sum(axis=0)).ravel()

    (matrix, _), scipy_time = _timed(scipy_build)
    ones = np.ones(len(nc.ids), dtype=np.int32)
    a = scipy.sparse.csr_matrix((ones, nc.ids, nc.ptr), shape=(n, len(sets.hashes)))
    product, scipy_pairs = _timed(lambda: (a @ a.T).toarray())

    def numpy_pairs():
        store = ClusterStore(nc, len(sets.hashes))
        alive = store.alive_ids()
        return [store.merge_effects(int(i), alive[k + 1:]) for k, i in enumerate(alive[:-1])]

    effects, numpy_time = _timed(numpy_pairs)
    # the merged template of two singletons is their intersection: both must agree on it
    sizes = nc.lengths()
    assert np.array_equal(effects[0].ones + sizes[0] + sizes[1:], product[0, 1:])
    lines = ["# The path x document matrix: NumPy index arrays or scipy.sparse", "",
             provenance(" ".join(["python", *sys.argv])), "",
             f"{n} dragnet pages of the dev sites, block paths ({len(sets.hashes)} distinct "
             f"paths, {len(sets.docs.ids)} entries).", "",
             "| operation | NumPy index arrays (CPU s) | scipy.sparse (CPU s) |", "|---|---:|---:|",
             f"| matrix and pathno | {numpy_build:.3f} (+ {numpy_nc:.3f} non-content rows) | "
             f"{scipy_time:.3f} |",
             f"| price every pair of singletons | {numpy_time:.2f} (all three counts) | "
             f"{scipy_pairs:.2f} (intersections only) |", ""]
    return report(lines, args.out)


if __name__ == "__main__":
    sys.exit(main())
