"""What ``auto`` keeps of each kind of block on article pages, out of sample.

Reads the predictions ``auto_cv.py --save-predictions`` wrote (every page scored by a model that
never saw its site) and the labelled pages of its cache. For every role derived from the gold and
the page's structure (``grist.classify.roles``: the headline, bylines, captions, related-story
cards ...) it reports on the article pages of the chosen datasets: the pages where the role
occurs, the share of its words in the gold, and the share ``auto``'s default output (the body)
keeps; and lists the blocks of a few pages with both roles.

    .venv/bin/python benchmarks/auto_roles_kept.py /tmp/roles/runs/final.pkl \\
        --datasets modern-dev wcxb-dev --show 3
"""

from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from auto_cv import labelled  # noqa: E402

from grist.document import ROLES  # noqa: E402
from grist.features.auto import stage1_features  # noqa: E402

SHOWN = ("title", "subtitle", "byline", "caption", "comment", "related")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("predictions")
    parser.add_argument("--validation", default="cv")
    parser.add_argument("--datasets", nargs="+", default=["modern-dev", "wcxb-dev"])
    parser.add_argument("--datasets-dir", default="../shared/datasets")
    parser.add_argument("--cache", default="/tmp/grist-roles-cache")
    parser.add_argument("--show", type=int, default=3,
                        help="article pages with captions whose furniture is listed")
    args = parser.parse_args()
    found = pickle.loads(Path(args.predictions).read_bytes())[args.validation]
    body = ROLES.index("body")
    words_at = stage1_features([], None).names.index("num_words")
    total, gold, kept = np.zeros(len(ROLES)), np.zeros(len(ROLES)), np.zeros(len(ROLES))
    pages_with = np.zeros(len(ROLES))
    articles, shown = 0, 0
    for name in args.datasets:
        pages, _ = labelled(Path(args.datasets_dir) / f"{name}.jsonl.gz", Path(args.cache))
        for page in pages:
            if page.page_type != "article":
                continue
            articles += 1
            _, predicted = found[f"{name}/{page.id}"]
            words = page.values[:, words_at]
            for code in range(len(ROLES)):
                mask = page.roles == code
                total[code] += words[mask].sum()
                gold[code] += words[mask & page.labels].sum()
                kept[code] += words[mask & (predicted == body)].sum()
                pages_with[code] += mask.any()
            if shown < args.show and (page.roles == ROLES.index("caption")).any():
                shown += 1
                print(f"\n{name}/{page.id}: block | derived role | predicted role | in gold")
                for text, role, guess, in_gold, n in zip(page.texts, page.roles, predicted,
                                                         page.labels, words, strict=True):
                    if ROLES[role] not in SHOWN and ROLES[guess] not in SHOWN:
                        continue  # the furniture and the cards only
                    print(f"  {text[:70]!r} ({n:.0f} words) | {ROLES[role]} | {ROLES[guess]} | "
                          f"{'yes' if in_gold else 'no'}")
    print(f"\n{articles} article pages of {', '.join(args.datasets)} ({args.validation}, out of "
          "sample)\n")
    print("| derived role | pages | words in gold | words auto keeps (body output) |")
    print("|---|---:|---:|---:|")
    for code, role in enumerate(ROLES):
        if total[code]:
            print(f"| {role} | {pages_with[code]:.0f} | {gold[code] / total[code]:.1%} | "
                  f"{kept[code] / total[code]:.1%} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
