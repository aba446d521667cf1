"""Pages whose gold text ends while the page's body goes on, and what they cost ``auto``'s score.

Some gold texts stop part-way: a documentation page's gold holds its first sections, an
article's its first half, a forum thread's its question alone. On such a page everything
``auto`` keeps after the gold's end counts against its precision, however right it is. This
script finds those pages in the predictions ``auto_cv.py --save-predictions`` wrote (every page
scored by a model that never saw its site): a page is flagged when, after the last block aligned
with its gold, ``auto`` keeps at least ``--min-words`` words in blocks of 20 words or more that it
scores 0.8 or more and that sit at a DOM path where a gold block sits too (the same place in the
page's layout as the gold's paragraphs). For every run in the file it prints the dataset's shingle
F1 as scored and with the kept blocks after the gold's end dropped on the flagged pages, by
group of page types; that difference is an upper bound of what those gold texts cost ``auto``
(it drops real noise after the gold's end too). The flagged pages are listed with the gold's last
block and the first block kept after it, to be read: the rule flags question-only threads and a
newsletter's sign-off as well as truncated gold. ``--pages`` then drops the text after the gold's
end on the pages read as truncated instead, in every run, flagged or not.

    .venv/bin/python benchmarks/auto_gold_ends.py build/cv.pkl --datasets modern-dev wcxb-dev
    .venv/bin/python benchmarks/auto_gold_ends.py build/cv.pkl --datasets modern-dev \\
        --pages 0355 0679 2857
"""

from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from auto_cv import labelled, text_of  # noqa: E402

from grist.classify.rows import LabelledPage  # noqa: E402
from grist.document import ROLES  # noqa: E402
from grist.evaluate.aggregate import PageScore, score_page, summarize  # noqa: E402
from grist.features.auto import stage1_features  # noqa: E402
from grist.io.datasets import gold_convention  # noqa: E402

GROUPS = {"articles and docs": ("article", "blog", "documentation", None),
          "forums": ("forum",),
          "other types": ("collection", "listing", "product", "service")}
SURE, PARAGRAPH = 0.8, 20


def tail_after_gold(page: LabelledPage, p2: np.ndarray, roles: np.ndarray,
                    words: np.ndarray) -> np.ndarray:
    """Blocks after the last gold block that ``auto`` keeps as paragraphs of the gold's own
    layout (20+ words, scored 0.8+, at a DOM path some gold block has)."""
    gold = np.flatnonzero(page.labels)
    if not len(gold):
        return np.zeros(len(words), bool)
    gold_paths = {page.paths[i] for i in gold}
    at_gold_path = np.array([path in gold_paths for path in page.paths], bool)
    after = np.arange(len(words)) > gold[-1]
    return (after & (roles == ROLES.index("body")) & (p2 >= SURE) & (words >= PARAGRAPH)
            & at_gold_path)


def f1_of_means(scores: list[PageScore]) -> float:
    """Shingle F1 of the mean precision and recall over pages, as the benchmarks report it."""
    return summarize(scores, rounds=1)["sh_f1"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("predictions")
    parser.add_argument("--datasets", nargs="+", default=["modern-dev", "wcxb-dev"])
    parser.add_argument("--datasets-dir", default="../shared/datasets")
    parser.add_argument("--cache", default="/tmp/grist-roles-cache")
    parser.add_argument("--min-words", type=int, default=150)
    parser.add_argument("--pages", nargs="+", default=None, metavar="ID",
                        help="drop the text after the gold's end on these pages (of the "
                        "datasets named) rather than on the flagged ones")
    args = parser.parse_args()
    runs = pickle.loads(Path(args.predictions).read_bytes())
    words_at = stage1_features([], None).names.index("num_words")
    other = ROLES.index("other")
    for name in args.datasets:
        pages, _ = labelled(Path(args.datasets_dir) / f"{name}.jsonl.gz", Path(args.cache))
        convention = gold_convention(name)
        print(f"\n{name} ({len(pages)} pages)\n")
        print("| run | as scored | " + " | ".join(f"{g}: tail dropped (pages, words)"
                                                   for g in GROUPS) + " | all flagged |")
        print("|---|---:|" + "---:|" * (len(GROUPS) + 1))
        flagged: dict[str, tuple[int, str, str, str]] = {}
        for run, found in runs.items():
            scored, fixed, every = [], {g: [] for g in GROUPS}, []
            count = {g: [0, 0] for g in GROUPS}
            for page in pages:
                p2, roles = found[f"{name}/{page.id}"]
                words = page.values[:, words_at]
                scored.append(score_page(page.id, text_of(page, roles, convention), page.gold))
                mended = scored[-1]
                group = next((g for g, kinds in GROUPS.items() if page.page_type in kinds),
                             "other types")
                tail = tail_after_gold(page, p2, roles, words)
                chosen = page.labels.any() and (words[tail].sum() >= args.min_words
                                                if args.pages is None else page.id in args.pages)
                if chosen:
                    end = int(np.flatnonzero(page.labels)[-1])  # the gold's last block
                    after = np.arange(len(words)) > end
                    kept_after = after & (roles == ROLES.index("body"))
                    dropped = np.where(after, other, roles)
                    mended = score_page(page.id, text_of(page, dropped, convention), page.gold)
                    count[group][0] += 1
                    count[group][1] += int(words[kept_after].sum())
                    last = page.texts[end]
                    first = (page.texts[int(np.flatnonzero(kept_after)[0])] if kept_after.any()
                             else "")
                    seen = flagged.get(page.id, (0, "", "", ""))[0]
                    flagged[page.id] = (seen + 1, page.page_type or "-", last[-70:], first[:70])
                for g in GROUPS:
                    fixed[g].append(mended if g == group else scored[-1])
                every.append(mended)
            print(f"| {run} | {f1_of_means(scored):.4f} | " + " | ".join(
                f"{f1_of_means(fixed[g]):.4f} ({count[g][0]}, {count[g][1]:,})" for g in GROUPS)
                + f" | {f1_of_means(every):.4f} |")
        print(f"\n{len(flagged)} pages {'flagged' if args.pages is None else 'chosen'} in at least "
              "one run (runs, type, the gold's last block ... the first kept after it):\n")
        for page_id, (seen, kind, last, first) in sorted(flagged.items()):
            print(f"- {name}/{page_id} ({kind}, {seen} of {len(runs)}): ...{last!r} || {first!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
