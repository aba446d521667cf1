"""Compare a bench run's figures with the independent harness's (issue 3, Done-when).

    .venv/bin/python benchmarks/validate_metrics.py docs/benchmarks/bench-DATE.json

The reference figures (shingle F1 / LCS F1) were measured by an independent harness with
trafilatura 2.3.1 defaults and readability-lxml; the suite must match them within 0.01.
"""

from __future__ import annotations

import json
import sys

REFERENCE = {
    ("trafilatura", "l3s-gn1"): (0.902, 0.865),
    ("trafilatura", "readability"): (0.934, 0.928),
    ("trafilatura", "dragnet"): (0.838, 0.806),
    ("readability-lxml", "l3s-gn1"): (0.936, 0.929),
}
TOLERANCE = 0.01


def main(path: str) -> int:
    systems = json.loads(open(path, encoding="utf-8").read())["systems"]
    print("| system | dataset | shingle F1 ref / ours (Δ) | LCS F1 ref / ours (Δ) | within 0.01 |")
    print("|---|---|---|---|---|")
    worst = 0.0
    for (system, dataset), (ref_sh, ref_lcs) in REFERENCE.items():
        summary = systems.get(system, {}).get("datasets", {}).get(dataset)
        if summary is None:
            print(f"| {system} | {dataset} | not in this run | | |")
            continue
        sh, lcs = summary["sh_f1"], summary["lcs_f1"]
        gap = max(abs(sh - ref_sh), abs(lcs - ref_lcs))
        worst = max(worst, gap)
        print(f"| {system} | {dataset} | {ref_sh:.3f} / {sh:.4f} ({sh - ref_sh:+.4f}) | "
              f"{ref_lcs:.3f} / {lcs:.4f} ({lcs - ref_lcs:+.4f}) | "
              f"{'yes' if gap <= TOLERANCE else 'NO'} |")
    return 0 if worst <= TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
