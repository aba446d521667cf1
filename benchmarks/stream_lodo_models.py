"""Leave-one-dataset-out ``auto`` models for the stream benchmark (benchmarks/stream_tree.py).

The shipped ``auto`` model was trained on every shared dataset, so it has seen the pages the
stream benchmark replays. This trains, for each held-out dataset, a model on the others
(every ``--page-step``-th page, as ``benchmarks/auto_cv.py --page-step`` does) and saves it as
DIR/<dataset>.json.gz, the layout ``stream_tree.py --lodo DIR`` reads.

    flock /tmp/grist-bench.lock nice -n 10 .venv/bin/python benchmarks/stream_lodo_models.py \
        --out build/lodo --held dragnet,l3s-gn1,cleaneval-final,cleanportaleval,modern-dev,readability
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from auto_cv import labelled  # noqa: E402
from devsets import DATASETS  # noqa: E402

from grist.classify.boosted import AutoModel, TrainConfig  # noqa: E402
from grist.features.auto import stage1_features  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets-dir", default="../shared/datasets")
    parser.add_argument("--cache", default="/tmp/grist-auto-cache")
    parser.add_argument("--out", default="build/lodo")
    parser.add_argument("--held", default=",".join(DATASETS))
    parser.add_argument("--page-step", type=int, default=2)
    args = parser.parse_args()
    cache, out = Path(args.cache), Path(args.out)
    cache.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    data = {n: labelled(Path(args.datasets_dir) / f"{n}.jsonl.gz", cache)[0]
            for n in DATASETS}
    names1 = stage1_features([], None).names
    for held in args.held.split(","):
        started = time.perf_counter()
        train = [p for n in DATASETS if n != held for p in data[n]][:: args.page_step]
        AutoModel(TrainConfig()).fit(train, names1).save(out / f"{held}.json.gz")
        print(f"{held}: {len(train)} training pages, {time.perf_counter() - started:.0f} s",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
