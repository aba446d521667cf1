"""Record every method's output on the first pages of each dataset, or compare against a record.

A refactor that promises "no change in what any method outputs" is checked with it:

    python benchmarks/output_parity.py record build/parity-before.jsonl.gz
    ... change the code ...
    python benchmarks/output_parity.py compare build/parity-before.jsonl.gz

Each record holds, per (method, dataset, page): the blocks' labels, scores (exact float repr),
reasons, the text, or the error's type and message. ``compare`` prints the first differences and
a count per method; the exit status is 1 when anything differs.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import Counter
from pathlib import Path

import grist
from grist.io.datasets import page_datasets, read_dataset

def outputs(methods: list[str], limit: int, datasets: Path) -> dict[str, dict]:
    """Key ``method|dataset|id`` -> what the method returned for that page."""
    found: dict[str, dict] = {}
    for path in page_datasets(datasets)[0]:
        pages = [p for p in read_dataset(path, limit) if p.html]
        for method in methods:
            extractor = grist.Extractor(method=method)
            for page in pages:
                key = f"{method}|{page.dataset}|{page.id}"
                try:
                    result = extractor(page.html, page.url)
                except grist.GristError as exc:
                    found[key] = {"error": f"{type(exc).__name__}: {exc}"}
                    continue
                found[key] = {
                    "labels": "".join("c" if b.is_content else "b" for b in result.blocks),
                    "scores": [repr(b.score) for b in result.blocks],
                    "reasons": [b.reason for b in result.blocks],
                    "text": result.text,
                }
            print(f"{path.name}: {method} done", file=sys.stderr)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("record", "compare"))
    parser.add_argument("file", type=Path)
    parser.add_argument("--limit", type=int, default=100, help="pages per dataset")
    parser.add_argument("--methods", nargs="+", default=None)
    parser.add_argument("--datasets-dir", type=Path, default=Path("../shared/datasets"))
    parser.add_argument("--dump", type=Path, help="compare: also record the new outputs here")
    args = parser.parse_args()
    methods = args.methods or grist.available_methods()
    now = outputs(methods, args.limit, args.datasets_dir)
    for path in (args.file if args.mode == "record" else None, args.dump):
        if path is None:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(path, "wt", encoding="utf-8") as out:
            for key, value in now.items():
                out.write(json.dumps({"key": key, **value}, ensure_ascii=False) + "\n")
        print(f"recorded {len(now)} outputs in {path}", file=sys.stderr)
    if args.mode == "record":
        return 0
    with gzip.open(args.file, "rt", encoding="utf-8") as handle:
        before = {r.pop("key"): r for r in map(json.loads, handle)}
    differ: Counter[str] = Counter()
    shown = 0
    for key, old in before.items():
        if key.split("|")[0] not in methods:
            continue
        new = now.get(key)
        if new != old:
            differ[key.split("|")[0]] += 1
            if shown < 10:
                shown += 1
                fields = [f for f in ("labels", "scores", "reasons", "text", "error")
                          if (new or {}).get(f) != old.get(f)]
                print(f"differs: {key}: {', '.join(fields)}")
    compared = Counter(k.split("|")[0] for k in before if k.split("|")[0] in methods)
    for method in methods:
        print(f"{method}: {compared[method] - differ[method]} of {compared[method]} identical")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
