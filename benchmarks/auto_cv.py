"""Validation of ``auto`` that predicts unseen data: site-grouped k-fold CV and leave-one-dataset-out.

Every page of every shared dataset is scored by a model that never saw its site (CV: folds
grouped by registrable domain across all datasets, ``grist.train.folds``) or its dataset (LODO).
Each dataset is scored twice: with the convention its gold follows (``grist.io.datasets``; the
older sets count the headline, bylines and captions as main text) and with auto's default output
(the body only). Peers' outputs (trafilatura default and favor_precision, readability-lxml) are
cached and scored on the same pages, and so are the blocks the training labels mark as content
(``labels``: the ceiling of choosing whole blocks). Labelled pages, groups and peer outputs live
in --cache.
LightGBM samples rows and features from a seed, and on the smaller datasets the CV F1 moves
with it (docs/benchmarks/auto.md): ``--seeds 7 8 9`` trains every model once per seed and gives
the mean, and each seed's F1 beside it.

    flock /tmp/grist-bench.lock nice -n 10 .venv/bin/python benchmarks/auto_cv.py \\
        --datasets-dir ../shared/datasets --validation cv lodo --save-models build/cv
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

import grist
from grist.classify.boosted import AutoModel, TrainConfig
from grist.classify.fitting import check_stage1_params
from grist.classify.pagetype import page_row
from grist.classify.rows import LabelledPage
from grist.document import ROLES
from grist.errors import ModelError
from grist.evaluate.aggregate import score_page, summarize
from grist.features.auto import stage1_features, stage2_features
from grist.features.matrix import FeatureMatrix
from grist.io.datasets import gold_convention, read_jsonl
from grist.methods.auto import AutoConfig, choose_blocks, content_mask
from grist.train.build import BuildReport, label_pages
from grist.train.folds import fold_table, site_group
from grist.classify.roles import derive_roles
from devsets import DATASETS

PEERS = ("trafilatura", "trafilatura-precision", "readability-lxml")


def _digest() -> str:
    """The labelled pages' cache key: a digest of grist's source, so that a change to parsing,
    segmentation, labels or features (any change to the package) labels the pages again."""
    source = hashlib.sha1()
    package = Path(grist.__file__).parent
    for module in sorted(package.rglob("*.py")):
        source.update(module.relative_to(package).as_posix().encode() + b"\0")
        source.update(module.read_bytes())
    return source.hexdigest()[:8]


def cache_write(target: Path, data: bytes) -> None:
    """Write a cache file whole or not at all (runs sharing the cache may read it meanwhile)."""
    partial = target.with_name(f".{target.name}.{os.getpid()}")
    partial.write_bytes(data)
    os.replace(partial, target)


def labelled(path: Path, cache: Path) -> tuple[list[LabelledPage], BuildReport]:
    """Labelled pages of one dataset, cached under a digest of grist's source."""
    target = cache / f"labelled-{path.name.split('.')[0]}-{_digest()}.pkl"
    if target.exists():
        pages, report = pickle.loads(target.read_bytes())
    else:
        report = BuildReport()
        pages = list(label_pages(read_jsonl(path), report))
        cache_write(target, pickle.dumps((pages, report)))
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
    cache_write(target, json.dumps(found).encode())
    return found


def snippets(path: Path, cache: Path) -> dict[str, list[list[str]]]:
    """The must-have and must-not snippets (``with``, ``without``) of every page that has them
    (modern-dev's and wcxb-dev's; cached), as some current benchmarks score extractions."""
    target = cache / f"snippets-{path.name.split('.')[0]}.json"
    if target.exists():
        return json.loads(target.read_text())
    found = {p.id: [p.extra.get("with") or [], p.extra.get("without") or []]
             for p in read_jsonl(path) if p.extra.get("with") or p.extra.get("without")}
    cache_write(target, json.dumps(found).encode())
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
    cache_write(target, json.dumps(out).encode())
    return out


def predict(model: AutoModel, page: LabelledPage, names1: tuple[str, ...],
            config: AutoConfig) -> tuple[np.ndarray, np.ndarray]:
    """Final probabilities and roles of a labelled page's blocks, as ``auto`` gives them (a
    model of the gold, whatever its convention, keeps what it keeps as body)."""
    matrix = FeatureMatrix(names1, page.values)
    _, p2, cut = model.predict(matrix, page.regions, page.paths)
    selection, _ = choose_blocks(p2, matrix, page.texts, cut, config)
    if model.config.target == "gold":
        return p2, np.where(selection.keep, ROLES.index("body"), ROLES.index("other"))
    roles = derive_roles(matrix, page.texts, selection.keep)
    return p2, np.where(content_mask(selection, roles), ROLES.index("body"), roles)


def kept_columns(names: Sequence[str], prefixes: Sequence[str]) -> list[int]:
    """The feature columns an ablation keeps: those not starting with ``prefixes`` (--drop)."""
    return [i for i, n in enumerate(names) if not n.startswith(tuple(prefixes))]


def read_by_name(names: Sequence[str], prefixes: Sequence[str]) -> list[str]:
    """The columns ``--drop`` would remove that the stage-2 page signals, the page-type row, the
    block choice or the role rules read by name: each is left out of a one-block page on its
    own, and those whose absence stops one of them are returned (an ablation cannot train
    without them)."""
    kept = set(kept_columns(names, prefixes))
    needed = []
    for gone in (name for i, name in enumerate(names) if i not in kept):
        rest = tuple(n for n in names if n != gone)
        matrix = FeatureMatrix(rest, np.zeros((1, len(rest)), dtype=np.float32))
        p = np.array([0.5])
        try:
            stage2_features([0], ["html>body>p"], matrix, p)
            page_row(matrix, p)
            choose_blocks(p, matrix, ["word"], 0.5, AutoConfig())
            derive_roles(matrix, ["word"], np.array([True]))
        except (KeyError, ValueError):  # (a dict lookup, or FeatureMatrix.column's error)
            needed.append(gone)
    return needed


def dropped(pages: list[LabelledPage], names: tuple[str, ...], prefixes: Sequence[str]
            ) -> tuple[list[LabelledPage], tuple[str, ...]]:
    """The pages with the feature columns starting with ``prefixes`` removed (ablations)."""
    if not prefixes:
        return pages, names
    keep = kept_columns(names, prefixes)
    return ([replace(page, values=page.values[:, keep]) for page in pages],
            tuple(names[i] for i in keep))


def blanked(page: LabelledPage, names: tuple[str, ...], columns: Sequence[str]) -> LabelledPage:
    """The page with these stage-1 columns set to 0, as a page without the signal shows them
    (``stopword_density`` on a language the stop-word list does not cover)."""
    if not columns:
        return page
    values = page.values.copy()
    values[:, [names.index(c) for c in columns]] = 0.0
    return replace(page, values=values)


def stage1_params(pairs: Sequence[str]) -> dict[str, int | float | str]:
    """``NAME=VALUE`` pairs of ``--stage1-param`` as LightGBM parameters: whole numbers as
    integers (LightGBM refuses 255.0 where it wants one), other numbers as floats, the rest as
    strings (``boosting=dart``)."""
    params: dict[str, int | float | str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name or not value:
            raise SystemExit(f"--stage1-param wants NAME=VALUE, got {pair!r}")
        try:
            params[name] = int(value) if value.lstrip("-").isdigit() else float(value)
        except ValueError:
            params[name] = value
    return params


def kept_text(page: LabelledPage, keep: np.ndarray) -> str:
    """The text of the page's blocks where ``keep`` is true, a block a line."""
    return "\n".join(t for t, k in zip(page.texts, keep.tolist(), strict=True) if k)


def text_of(page: LabelledPage, roles: np.ndarray, wanted: frozenset[str]) -> str:
    """The text of the blocks whose role is one of ``wanted``."""
    return kept_text(page, np.isin(roles, [ROLES.index(r) for r in wanted]))


def labelled_text(page: LabelledPage) -> str:
    """The blocks the gold alignment labelled content: what choosing whole blocks at best gives
    under grist's segmentation and labels (the ``labels`` column, a ceiling, not a system)."""
    return kept_text(page, page.labels)


def score(texts: dict[str, str], golds: dict[str, str],
          wanted: dict[str, list[list[str]]]) -> dict[str, float]:
    """The benchmark suite's scores (``grist.evaluate.aggregate``): shingle P/R/F1 (F1 of the mean
    P and mean R), mean per-page word-LCS F1 and, for pages with snippets, the mean share of
    must-have snippets found (``with_hit``) and of must-not ones absent (``without_clean``)."""
    return summarize([score_page(k, texts.get(k, ""), g, *wanted.get(k, (None, None)))
                      for k, g in golds.items()], rounds=200)


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
        if args.save_models and config.seed == args.seeds[0]:
            folder = Path(args.save_models) / kind
            folder.mkdir(parents=True, exist_ok=True)
            model.save(folder / f"{part}.json.gz")
        for page in held:
            out[key(page)] = predict(model, blanked(page, names1, args.blank), names1, selection)
        print(f"{kind} {part} (seed {config.seed}): trained on {len(train)} pages, threshold "
              f"{model.threshold_} (by page type: {model.boosters_.type_thresholds}), "
              f"{time.perf_counter() - started:.0f}s", file=sys.stderr)
    return out


def report(kind: str, data: dict[str, list[LabelledPage]], found: dict, cache: Path,
           paths: dict[str, Path], peers: Sequence[str]) -> list[dict]:
    """Per dataset: auto with the gold's convention and body-only, and the peers."""
    rows = []
    for name, pages in data.items():
        golds = {p.id: p.gold for p in pages}
        convention = gold_convention(name)
        wanted = snippets(paths[name], cache)
        wanted = {p.id: wanted[p.id] for p in pages if p.id in wanted}
        row = {"dataset": name, "pages": len(pages), "convention": sorted(convention)}
        outputs = {"auto": {p.id: text_of(p, found[f"{name}/{p.id}"][1], convention)
                            for p in pages},
                   "auto-body": {p.id: text_of(p, found[f"{name}/{p.id}"][1],
                                               frozenset({"body"})) for p in pages},
                   **{peer: peer_outputs(peer, paths[name], cache) for peer in peers},
                   "labels": {p.id: labelled_text(p) for p in pages}}
        for system, texts in outputs.items():
            row[system] = score(texts, golds, wanted)
        rows.append(row)
        print(kind, json.dumps(row), file=sys.stderr)
    return rows


def mean_rows(per_seed: list[list[dict]]) -> list[dict]:
    """The report rows of several seeds with every score averaged over the seeds."""
    def mean(values: list) -> object:
        if isinstance(values[0], dict):
            return {k: mean([v[k] for v in values]) for k in values[0]}
        if isinstance(values[0], float):
            return float(np.mean(values))
        return values[0]
    return [mean(list(rows)) for rows in zip(*per_seed, strict=True)]


def seed_table(kind: str, per_seed: list[list[dict]], seeds: Sequence[int]) -> str:
    """auto's shingle F1 per dataset under each seed, and their spread."""
    lines = [f"\n{kind}: auto's shingle F1 per seed\n",
             "| dataset | " + " | ".join(f"seed {s}" for s in seeds) + " | max - min |",
             "|---|" + "---:|" * (len(seeds) + 1)]
    for rows in zip(*per_seed, strict=True):
        f1 = [row["auto"]["sh_f1"] for row in rows]
        lines.append(f"| {rows[0]['dataset']} | " + " | ".join(f"{v:.3f}" for v in f1)
                     + f" | {max(f1) - min(f1):.3f} |")
    return "\n".join(lines) + "\n"


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


def _f1(a: float, b: float) -> float:
    return 2 * a * b / (a + b) if a + b else 0.0


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
    with_snippets = [row for row in rows if "with_hit" in row[systems[0]]]
    if with_snippets:
        lines += [f"\n{kind}: snippet F1 (must-have snippets found / must-not snippets absent)\n",
                  "| dataset | pages | " + " | ".join(systems) + " |",
                  "|---|---:|" + "---:|" * len(systems)]
        for row in with_snippets:
            cells = [f"{_f1(row[s]['with_hit'], row[s]['without_clean']):.3f} "
                     f"({row[s]['with_hit']:.3f} / {row[s]['without_clean']:.3f})" for s in systems]
            lines.append(f"| {row['dataset']} | {row['pages']} | " + " | ".join(cells) + " |")
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
    parser.add_argument("--oof-rounds", type=int, default=TrainConfig.oof_rounds,
                        help="rounds of the out-of-fold stage-1 models stage 2 learns from")
    parser.add_argument("--oof-folds", type=int, default=TrainConfig.folds,
                        help="folds of the out-of-fold models inside training (stage 2's rows, "
                        "the page type, the thresholds)")
    parser.add_argument("--rounds2", type=int, default=TrainConfig.rounds2,
                        help="boosting rounds of stage 2")
    parser.add_argument("--leaves2", type=int, default=TrainConfig.leaves2,
                        help="leaves per tree of stage 2")
    parser.add_argument("--max-depth", type=int, default=TrainConfig.max_depth)
    parser.add_argument("--min-leaf", type=int, default=TrainConfig.min_leaf)
    parser.add_argument("--dataset-power", type=float, default=TrainConfig.dataset_power)
    parser.add_argument("--page-power", type=float, default=TrainConfig.page_power)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seeds", type=int, nargs="+", default=[TrainConfig.seed],
                        help="LightGBM seeds (its row and feature sampling): with several, every "
                        "model is trained once per seed and the tables give the mean")
    parser.add_argument("--feature-fraction", type=float, default=TrainConfig.feature_fraction)
    parser.add_argument("--bagging-fraction", type=float, default=TrainConfig.bagging_fraction)
    parser.add_argument("--stage1-param", nargs="*", default=[], metavar="NAME=VALUE",
                        help="more LightGBM parameters for the stage-1 boosters "
                        "(TrainConfig.stage1_params), e.g. path_smooth=40 lambda_l2=10 "
                        "boosting=dart")
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
    parser.add_argument("--blank", nargs="*", default=[], metavar="COLUMN",
                        help="set these stage-1 columns to 0 on the held-out pages (trained as "
                        "usual): how much the model leans on a signal some pages lack")
    parser.add_argument("--save-models", metavar="DIR", default=None)
    parser.add_argument("--save-predictions", metavar="FILE", default=None)
    parser.add_argument("--out", default=None, help="append the tables to this file")
    args = parser.parse_args()
    extra1 = stage1_params(args.stage1_param)
    all_names = stage1_features([], None).names
    unmatched = [p for p in args.drop if not any(n.startswith(p) for n in all_names)]
    if unmatched:
        raise SystemExit(f"--drop: no stage-1 feature starts with {', '.join(unmatched)}")
    needed = read_by_name(all_names, args.drop)
    if needed:  # (before the pages are labelled: the run would stop at the first fold)
        raise SystemExit(f"--drop {' '.join(args.drop)}: grist reads {len(needed)} of these "
                         f"columns by name past stage 1 ({', '.join(needed)}); drop narrower "
                         "prefixes (--blank sets columns to 0 on the held-out pages instead)")
    features = len(kept_columns(all_names, args.drop))
    try:  # (before the pages are labelled: a typo stops the run at once)
        check_stage1_params(extra1, features)  # (per-feature settings want one value each)
    except ModelError as exc:
        raise SystemExit(f"--stage1-param: {exc}") from None
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
    config = TrainConfig(rounds=args.rounds, oof_rounds=args.oof_rounds, max_depth=args.max_depth,
                         rounds2=args.rounds2, leaves2=args.leaves2, folds=args.oof_folds,
                         min_leaf=args.min_leaf,
                         threads=args.threads,
                         dataset_power=args.dataset_power, page_power=args.page_power,
                         threshold=args.threshold,
                         target=args.target, calibration=not args.no_calibration,
                         page_signals=not args.no_page_signals, page_cut=args.page_cut,
                         page_type=not args.no_page_type,
                         type_thresholds=not args.no_type_thresholds,
                         feature_fraction=args.feature_fraction,
                         bagging_fraction=args.bagging_fraction,
                         stage1_params=extra1)
    systems = ("auto", "auto-body", *args.peers, "labels")
    tables = [f"Command: `{' '.join(sys.argv)}`"]
    predictions = {}
    for kind in args.validation:
        per_seed = []
        for seed in args.seeds:
            found = run_validation(kind, data, folds, replace(config, seed=seed), args, names1)
            predictions[kind if seed == args.seeds[0] else f"{kind}@{seed}"] = found
            per_seed.append(report(kind, data, found, cache, paths, args.peers))
        tables.append(render(kind, mean_rows(per_seed), systems))
        if len(per_seed) > 1:
            tables.append(seed_table(kind, per_seed, args.seeds))
    print("\n".join(tables))
    if args.out:
        with open(args.out, "a", encoding="utf-8") as out:
            out.write("\n".join(tables) + "\n")
    if args.save_predictions:
        Path(args.save_predictions).write_bytes(pickle.dumps(predictions))
    return 0


if __name__ == "__main__":
    sys.exit(main())
