"""Reproduce seed 000 Table 1 (classification on L3S-GN1) and the per-feature information gain.

Blocks are labelled from the gold text (grist.train.labels), described by grist's shallow
features, and classified under 10-fold cross-validation grouped by site. Scores are Weka-style
weighted averages over the two classes with every block weighted by its word count (seed 000 §5:
"all scores are normalized based on the number of words in a block"); with these definitions
ZeroR gives exactly the paper's 40.7 / 63.8 / 49.7 when 63.8 % of the words are of one class.

    nice .venv/bin/python benchmarks/seed000_table1.py --dataset ../shared/datasets/l3s-gn1.jsonl.gz \
        --out docs/reproductions/seed-000.md
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import platform
import sys
from pathlib import Path

import numpy as np
from sklearn.model_selection import GroupKFold

from grist.io.datasets import read_jsonl
from grist.features.text import FEATURE_NAMES
from grist.train.build import BuildReport, label_pages
from grist.classify.tree import DecisionTree

PAPER = {
    "ZeroR (baseline)": (40.7, 63.8, 49.7),
    "Only average word length (1R)": (80.2, 77.0, 77.5),
    "Only link density (1R)": (88.5, 87.8, 87.4),
    "1R: text density": (87.8, 87.9, 87.9),
    "C4.8 link density": (91.1, 91.1, 91.0),
    "C4.8 number of words": (91.1, 90.8, 90.9),
    "C4.8 number of words + link density": (92.2, 92.2, 92.2),
    "C4.8 text density + link density": (93.9, 93.8, 93.9),
    "C4.8 all shallow text features": (95.1, 95.0, 95.1),
}


def triple(name: str) -> list[str]:
    """A feature of the previous, current and next block (seed 000 §4.1.2)."""
    return [f"prev_{name}", name, f"next_{name}"]


EXPERIMENTS = {
    "ZeroR (baseline)": ("zeror", []),
    "Only average word length (1R)": ("1r", ["avg_word_length"]),
    "Only link density (1R)": ("1r", ["link_density"]),
    "1R: text density": ("1r", ["text_density"]),
    "C4.8 link density": ("tree", triple("link_density")),
    "C4.8 number of words": ("tree", triple("num_words")),
    "C4.8 number of words + link density": ("tree", triple("num_words") + triple("link_density")),
    "C4.8 text density + link density": ("tree", triple("text_density") + triple("link_density")),
    "C4.8 all shallow text features": ("tree", list(FEATURE_NAMES)),
}


def weighted_prf(y: np.ndarray, pred: np.ndarray, w: np.ndarray) -> tuple[float, float, float]:
    """Weka's class-weighted average precision, recall and F1, every block weighted by words."""
    total = w.sum()
    p_avg = r_avg = f_avg = 0.0
    for cls in (False, True):
        truth, guess = y == cls, pred == cls
        tp = w[truth & guess].sum()
        p = tp / w[guess].sum() if w[guess].sum() else 0.0
        r = tp / w[truth].sum() if w[truth].sum() else 0.0
        f = 2 * p * r / (p + r) if p + r else 0.0
        share = w[truth].sum() / total
        p_avg, r_avg, f_avg = p_avg + share * p, r_avg + share * r, f_avg + share * f
    return p_avg, r_avg, f_avg


def one_r(x: np.ndarray, y: np.ndarray, w: np.ndarray, min_bucket: int = 6):
    """Holte's 1R on one numeric feature: intervals with a majority class, merged when equal.

    A bucket closes once its majority class holds at least ``min_bucket`` blocks and the next
    value differs (Weka's OneR with its default bucket size); weights are words.
    """
    order = np.argsort(x, kind="stable")
    xs, ys, ws = x[order], y[order], w[order]
    cuts: list[float] = []
    classes: list[bool] = []
    count = {False: 0, True: 0}
    weight = {False: 0.0, True: 0.0}
    for i in range(len(xs)):
        count[bool(ys[i])] += 1
        weight[bool(ys[i])] += ws[i]
        major = weight[True] >= weight[False]
        last = i == len(xs) - 1
        if last or (count[major] >= min_bucket and xs[i + 1] != xs[i]):
            if classes and classes[-1] == major:
                cuts[-1] = xs[i] if not last else np.inf
            else:
                cuts.append(xs[i] if not last else np.inf)
                classes.append(major)
            count = {False: 0, True: 0}
            weight = {False: 0.0, True: 0.0}
    cut_array, class_array = np.array(cuts), np.array(classes)
    return lambda values: class_array[np.minimum(np.searchsorted(cut_array, values, side="left"),
                                                 len(class_array) - 1)]


def info_gain(x: np.ndarray, y: np.ndarray, bins: int = 10) -> float:
    """IG(C, A) = H(C) - H(C | A) in bits, A discretised into equal-frequency bins."""
    def entropy(labels: np.ndarray) -> float:
        p = labels.mean() if len(labels) else 0.0
        return 0.0 if p in (0.0, 1.0) else float(-p * np.log2(p) - (1 - p) * np.log2(1 - p))

    edges = np.unique(np.quantile(x, np.linspace(0, 1, bins + 1)[1:-1]))
    codes = np.searchsorted(edges, x, side="right")
    conditional = sum((codes == c).mean() * entropy(y[codes == c]) for c in np.unique(codes))
    return entropy(y) - conditional


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="../shared/datasets/l3s-gn1.jsonl.gz")
    parser.add_argument("--min-leaf", type=int, default=1000)
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    report = BuildReport()
    pages = list(label_pages(read_jsonl(args.dataset, args.limit), report))
    width = len(FEATURE_NAMES)
    X = np.vstack([p.values[:, :width] for p in pages])
    y = np.concatenate([p.labels for p in pages])
    w = X[:, FEATURE_NAMES.index("num_words")]
    groups = np.concatenate([[p.site] * len(p.labels) for p in pages])
    folds = list(GroupKFold(n_splits=args.folds).split(X, y, groups))
    rows = []
    for title, (kind, features) in EXPERIMENTS.items():
        cols = [FEATURE_NAMES.index(f) for f in features]
        pred = np.zeros(len(y), dtype=bool)
        for train, test in folds:
            if kind == "zeror":
                pred[test] = w[train][y[train]].sum() >= w[train][~y[train]].sum()
            elif kind == "1r":
                rule = one_r(X[train, cols[0]], y[train], w[train])
                pred[test] = rule(X[test, cols[0]])
            else:
                tree = DecisionTree(args.min_leaf).fit(X[np.ix_(train, cols)], y[train], features,
                                                       w[train])
                pred[test] = tree.predict(X[np.ix_(test, cols)]) >= 0.5
        rows.append((title, weighted_prf(y, pred, w)))
        print(title, rows[-1][1], file=sys.stderr)
    gains = sorted(((info_gain(X[:, j], y), name) for j, name in enumerate(FEATURE_NAMES)),
                   reverse=True)
    text = render(rows, gains, report, y, w, args)
    print(text)
    if args.out:
        Path(args.out).write_text(text)
    return 0


def render(rows, gains, report, y, w, args) -> str:
    lines = [
        (f"Measured {datetime.date.today().isoformat()}, Python {platform.python_version()}, "
         f"scikit-learn {importlib.metadata.version('scikit-learn')}."),
        f"Command: `{' '.join(sys.argv)}`",
        "",
        (f"Pages {report.pages} (skipped {report.skipped}), blocks {len(y)}, content share of "
         f"words {w[y].sum() / w.sum():.4f}, mean gold coverage of the labels "
         f"{report.mean_coverage:.4f}; {args.folds}-fold CV grouped by site, C4.5-style trees "
         f"with at least {args.min_leaf} blocks per leaf, scores word-weighted (Weka weighted "
         "average over both classes), in %."),
        "",
        "| algorithm | paper P | paper R | paper F | grist P | grist R | grist F |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for title, (p, r, f) in rows:
        pp, pr, pf = PAPER[title]
        lines.append(f"| {title} | {pp} | {pr} | {pf} | {100 * p:.1f} | {100 * r:.1f} | "
                     f"{100 * f:.1f} |")
    lines += ["", "Information gain (bits; features discretised into 10 equal-frequency bins):", "",
              "| feature | IG |", "|---|---:|"]
    lines += [f"| {name} | {gain:.4f} |" for gain, name in gains]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
