"""Validation of ``auto`` that predicts unseen data: site-grouped k-fold CV and leave-one-dataset-out.

Every page of every shared dataset is scored by a model that never saw its site (CV: folds
grouped by registrable domain across all datasets, ``grist.train.folds``) or its dataset (LODO).
Each dataset is scored twice: with the convention its gold follows (``grist.io.datasets``; the
older sets count the headline, bylines and captions as main text) and with auto's default output
(the body only). Peers' outputs (trafilatura default and favor_precision, readability-lxml) are
cached and scored on the same pages. Labelled pages, groups and peer outputs live in --cache.

    flock /tmp/grist-bench.lock nice -n 10 .venv/bin/python benchmarks/auto_cv.py \\
        --datasets-dir ../shared/datasets --validation cv lodo --save-models build/cv
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from grist.classify.boosted import AutoModel, TrainConfig
from grist.classify.rows import LabelledPage
from grist.document import ROLES
from grist.evaluate.metrics import lcs_prf, shingle_counts, shingle_prf
from grist.features.auto import stage1_features
from grist.features.matrix import FeatureMatrix
from grist.io.datasets import gold_convention, read_jsonl
from grist.methods.auto import AutoConfig, select_content
from grist.train.build import BuildReport, label_pages
from grist.train.folds import fold_table, site_group
from grist.classify.roles import derive_roles

DATASETS = ("cleaneval-dev", "cleaneval-final", "cleanportaleval", "dragnet", "l3s-gn1",
            "modern-dev", "readability", "wcxb-dev")
PEERS = ("trafilatura", "trafilatura-precision", "readability-lxml")
LABEL_VERSION = "roles-5"  # bumped when segmentation or role rules change (the cache key)


def _digest() -> str:
    names = ",".join(stage1_features([], None).names) + LABEL_VERSION
    return hashlib.sha1(names.encode()).hexdigest()[:8]


def labelled(path: Path, cache: Path) -> tuple[list[LabelledPage], BuildReport]:
    """Labelled pages of one dataset, cached under a digest of the features and label version."""
    target = cache / f"labelled-{path.name.split('.')[0]}-{_digest()}.pkl"
    if target.exists():
        pages, report = pickle.loads(target.read_bytes())
    else:
        report = BuildReport()
        pages = list(label_pages(read_jsonl(path), report))
        target.write_bytes(pickle.dumps((pages, report)))
    names = stage1_features([], None).names
    for page in pages:  # the role rules may have changed since the pages were labelled
        page.roles = derive_roles(FeatureMatrix(names, page.values), page.texts, page.labels,
                                  page.comments)
    return pages, report


def groups(path: Path, cache: Path) -> dict[str, str]:
    """Site group of every page of a dataset (cached)."""
    name = path.name.split(".")[0]
    target = cache / f"groups-{name}.json"
    if target.exists():
        return json.loads(target.read_text())
    found = {p.id: site_group(p.site, p.url, p.html, f"{name}/{p.id}") for p in read_jsonl(path)}
    target.write_text(json.dumps(found))
    return found


def peer_outputs(peer: str, path: Path, cache: Path) -> dict[str, str]:
    """Texts of one peer on one dataset (cached); pages that raise give an empty text."""
    from grist.evaluate.peers import make_peer

    target = cache / f"peer-{peer}-{path.name.split('.')[0]}.json"
    if target.exists():
        return json.loads(target.read_text())
    extract = make_peer(peer)
    out: dict[str, str] = {}
    for page in read_jsonl(path):
        try:
            out[page.id] = extract(page.html, page.url) or ""
        except Exception:  # noqa: BLE001 - a peer's crash scores as an empty extraction
            out[page.id] = ""
    target.write_text(json.dumps(out))
    return out


def predict(model: AutoModel, page: LabelledPage, names1: tuple[str, ...],
            config: AutoConfig) -> tuple[np.ndarray, np.ndarray]:
    """Final probabilities and roles of a labelled page's blocks, as ``auto`` gives them (a
    model of the gold, whatever its convention, keeps what it keeps as body)."""
    matrix = FeatureMatrix(names1, page.values)
    _, p2, cut = model.predict(matrix, page.regions, page.paths)
    words = matrix.column("num_words")
    keep, fallback, _ = select_content(p2, words, cut, config.fallback_below,
                                       config.fallback_words, config.whole_page_words)
    if model.config.target == "gold" or fallback is not None:
        return p2, np.where(keep, ROLES.index("body"), ROLES.index("other"))
    return p2, derive_roles(matrix, page.texts, keep)


def dropped(pages: list[LabelledPage], names: tuple[str, ...], prefixes: Sequence[str]
            ) -> tuple[list[LabelledPage], tuple[str, ...]]:
    """The pages with the feature columns starting with ``prefixes`` removed (ablations)."""
    if not prefixes:
        return pages, names
    keep = [i for i, n in enumerate(names) if not n.startswith(tuple(prefixes))]
    out = []
    for page in pages:
        copy = pickle.loads(pickle.dumps(page))
        copy.values = page.values[:, keep]
        out.append(copy)
    return out, tuple(names[i] for i in keep)


def text_of(page: LabelledPage, roles: np.ndarray, wanted: frozenset[str]) -> str:
    codes = [ROLES.index(r) for r in wanted]
    return "\n".join(t for t, r in zip(page.texts, roles.tolist(), strict=True) if r in codes)


def score(texts: dict[str, str], golds: dict[str, str]) -> dict[str, float]:
    """Shingle P/R/F1 as the benchmark suite computes it (F1 of the mean P and mean R) and the
    mean per-page word-LCS F1."""
    sh = [shingle_prf(shingle_counts(texts.get(k, ""), g)) for k, g in golds.items()]
    p = float(np.mean([s.precision for s in sh]))
    r = float(np.mean([s.recall for s in sh]))
    lcs = float(np.mean([lcs_prf(texts.get(k, ""), g).f1 for k, g in golds.items()]))
    return {"sh_p": p, "sh_r": r, "sh_f1": 2 * p * r / (p + r) if p + r else 0.0, "lcs_f1": lcs}


def run_validation(kind: str, data: dict[str, list[LabelledPage]], folds: dict[str, int],
                   config: TrainConfig, args: argparse.Namespace, names1: tuple[str, ...]
                   ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Out-of-sample (probabilities, roles) of every page, keyed ``dataset/id``."""
    everything = [p for pages in data.values() for p in pages]
    key = lambda p: f"{p.dataset}/{p.id}"  # noqa: E731
    if kind == "cv":
        parts = {f"fold{f}": [p for p in everything if folds[key(p)] == f]
                 for f in range(args.folds)}
    else:
        parts = {name: data[name] for name in data}
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    selection = AutoConfig(fallback_words=args.fallback_words,
                           whole_page_words=args.whole_page_words)
    for part, held in parts.items():
        started = time.perf_counter()
        held_keys = {key(p) for p in held}
        train = [p for p in everything if key(p) not in held_keys
                 and (kind == "cv" or p.dataset != part)][:: args.page_step]
        model = AutoModel(config).fit(train, names1)
        if args.save_models:
            folder = Path(args.save_models) / kind
            folder.mkdir(parents=True, exist_ok=True)
            model.save(folder / f"{part}.json.gz")
        for page in held:
            out[key(page)] = predict(model, page, names1, selection)
        print(f"{kind} {part}: trained on {len(train)} pages, threshold {model.threshold_} "
              f"(by page type: {model.boosters_.type_thresholds}), "
              f"{time.perf_counter() - started:.0f}s", file=sys.stderr)
    return out


def report(kind: str, data: dict[str, list[LabelledPage]], found: dict, cache: Path,
           paths: dict[str, Path], peers: Sequence[str]) -> list[dict]:
    """Per dataset: auto with the gold's convention and body-only, and the peers."""
    rows = []
    for name, pages in data.items():
        golds = {p.id: p.gold for p in pages}
        convention = gold_convention(name)
        row = {"dataset": name, "pages": len(pages), "convention": sorted(convention)}
        row["auto"] = score({p.id: text_of(p, found[f"{name}/{p.id}"][1], convention)
                             for p in pages}, golds)
        row["auto-body"] = score({p.id: text_of(p, found[f"{name}/{p.id}"][1],
                                                frozenset({"body"})) for p in pages}, golds)
        for peer in peers:
            row[peer] = score(peer_outputs(peer, paths[name], cache), golds)
        rows.append(row)
        print(kind, json.dumps(row), file=sys.stderr)
    return rows


def role_table(data: dict[str, list[LabelledPage]]) -> str:
    """Per dataset and role: the share of the page words the role holds, the share of the role's
    words that are in the gold, and on how many pages the role occurs (the derivation's
    coverage, and the measure behind each dataset's convention)."""
    names = stage1_features([], None).names
    words_at = names.index("num_words")
    lines = ["| dataset | pages | " + " | ".join(ROLES) + " |", "|---|---:|" + "---|" * len(ROLES)]
    for name, pages in data.items():
        total = np.zeros(len(ROLES))
        gold = np.zeros(len(ROLES))
        present = np.zeros(len(ROLES))
        for page in pages:
            words = page.values[:, words_at].astype(float)
            for code in range(len(ROLES)):
                mask = page.roles == code
                total[code] += words[mask].sum()
                gold[code] += (words[mask] * page.labels[mask]).sum()
                present[code] += mask.any()
        everything = max(total.sum(), 1.0)
        cells = [f"{100 * total[c] / everything:.1f} % ({gold[c] / max(total[c], 1):.2f}; "
                 f"{int(present[c])})" for c in range(len(ROLES))]
        lines.append(f"| {name} | {len(pages)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def render(kind: str, rows: list[dict], systems: Sequence[str]) -> str:
    lines = [f"\n{kind}: shingle F1 (P / R) and LCS F1\n",
             "| dataset | " + " | ".join(systems) + " |", "|---|" + "---:|" * len(systems)]
    for row in rows:
        cells = [f"{row[s]['sh_f1']:.3f} ({row[s]['sh_p']:.3f} / {row[s]['sh_r']:.3f}) "
                 f"{row[s]['lcs_f1']:.3f}" for s in systems]
        lines.append(f"| {row['dataset']} | " + " | ".join(cells) + " |")
    means = [f"{np.mean([r[s]['sh_f1'] for r in rows]):.3f} "
             f"{np.mean([r[s]['lcs_f1'] for r in rows]):.3f}" for s in systems]
    lines.append("| **mean** | " + " | ".join(means) + " |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets-dir", default="../shared/datasets")
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--cache", default="/tmp/grist-roles-cache")
    parser.add_argument("--validation", nargs="+", choices=("cv", "lodo"), default=["cv"])
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--stage", choices=("labels", "peers", "roles", "all"), default="all")
    parser.add_argument("--page-step", type=int, default=1,
                        help="train on every N-th page of the training part (faster)")
    parser.add_argument("--rounds", type=int, default=TrainConfig.rounds)
    parser.add_argument("--max-depth", type=int, default=TrainConfig.max_depth)
    parser.add_argument("--dataset-power", type=float, default=TrainConfig.dataset_power)
    parser.add_argument("--page-power", type=float, default=TrainConfig.page_power)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--target", choices=("body", "article", "gold"), default=TrainConfig.target)
    parser.add_argument("--no-calibration", action="store_true")
    parser.add_argument("--no-page-signals", action="store_true")
    parser.add_argument("--page-cut", action="store_true", help="learn a threshold per page")
    parser.add_argument("--no-page-type", action="store_true")
    parser.add_argument("--no-type-thresholds", action="store_true",
                        help="one threshold, not one per predicted page type")
    parser.add_argument("--threshold", type=float, default=None)
    parser.add_argument("--fallback-words", type=int, default=AutoConfig.fallback_words)
    parser.add_argument("--whole-page-words", type=int, default=AutoConfig.whole_page_words)
    parser.add_argument("--peers", nargs="*", default=list(PEERS))
    parser.add_argument("--drop", nargs="*", default=[],
                        help="leave out the stage-1 features whose names start with these")
    parser.add_argument("--save-models", metavar="DIR", default=None)
    parser.add_argument("--save-predictions", metavar="FILE", default=None)
    parser.add_argument("--out", default=None, help="append the tables to this file")
    args = parser.parse_args()
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    names = args.datasets.split(",")
    paths = {n: Path(args.datasets_dir) / f"{n}.jsonl.gz" for n in names}
    if args.stage in ("peers", "all"):
        for peer in args.peers:
            for name in names:
                started = time.perf_counter()
                peer_outputs(peer, paths[name], cache)
                print(f"{peer} {name} {time.perf_counter() - started:.1f}s", file=sys.stderr)
    data = {}
    for name in names:
        started = time.perf_counter()
        pages, rep = labelled(paths[name], cache)
        data[name] = pages
        print(f"labels {name}: {rep.pages} pages, {rep.skipped} skipped, coverage "
              f"{rep.mean_coverage:.4f}, {time.perf_counter() - started:.1f}s", file=sys.stderr)
    if args.stage == "roles":
        print(role_table(data))
    if args.stage != "all":
        return 0
    site = {f"{n}/{k}": g for n in names for k, g in groups(paths[n], cache).items()}
    keys = [f"{p.dataset}/{p.id}" for pages in data.values() for p in pages]
    folds = fold_table(keys, [site[k] for k in keys], args.folds)
    if args.save_models:  # for grist bench --methods 'auto@DIR/cv/fold{fold}.json.gz'
        (Path(args.save_models) / "cv").mkdir(parents=True, exist_ok=True)
        (Path(args.save_models) / "cv" / "folds.json").write_text(json.dumps(folds))
    names1 = stage1_features([], None).names
    if args.drop:
        for name in names:
            data[name], reduced = dropped(data[name], names1, args.drop)
        names1 = reduced
    config = TrainConfig(rounds=args.rounds, max_depth=args.max_depth, threads=args.threads,
                         dataset_power=args.dataset_power, page_power=args.page_power,
                         threshold=args.threshold,
                         target=args.target, calibration=not args.no_calibration,
                         page_signals=not args.no_page_signals, page_cut=args.page_cut,
                         page_type=not args.no_page_type,
                         type_thresholds=not args.no_type_thresholds)
    systems = ("auto", "auto-body", *args.peers)
    tables = [f"Command: `{' '.join(sys.argv)}`"]
    predictions = {}
    for kind in args.validation:
        found = run_validation(kind, data, folds, config, args, names1)
        predictions[kind] = found
        tables.append(render(kind, report(kind, data, found, cache, paths, args.peers), systems))
    print("\n".join(tables))
    if args.out:
        with open(args.out, "a", encoding="utf-8") as out:
            out.write("\n".join(tables) + "\n")
    if args.save_predictions:
        Path(args.save_predictions).write_bytes(pickle.dumps(predictions))
    return 0


if __name__ == "__main__":
    sys.exit(main())
