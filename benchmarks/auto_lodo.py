"""Leave-one-dataset-out evaluation of ``auto`` beside trafilatura and readability-lxml.

For every shared dataset: train ``auto`` on all the others, extract the held-out pages, and score
grist and the peers on the same pages with word-level LCS F1 and shingle F1 (mean over pages).
Peer outputs, labelled pages and per-page timings are cached in --cache (never in the repo).

    nice .venv/bin/python benchmarks/auto_lodo.py --datasets-dir ../shared/datasets \
        --out docs/benchmarks/auto.md
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import importlib.metadata
import json
import pickle
import platform
import sys
import time
from pathlib import Path

import numpy as np

from grist.io.datasets import read_jsonl
from grist.evaluate.metrics import lcs_prf, shingle_counts, shingle_prf
from grist.evaluate.peers import make_peer
from grist.features.matrix import FeatureMatrix
from grist.methods.auto import AutoConfig, select_content
from grist.train.build import BuildReport, label_pages
from grist.features.auto import stage1_features
from grist.classify.boosted import AutoModel, TrainConfig

DATASETS = ("cleaneval-dev", "cleaneval-final", "cleanportaleval", "dragnet", "l3s-gn1",
            "modern-dev", "readability")
PEERS = ("trafilatura", "readability-lxml")


def peer_outputs(peer: str, path: Path, cache: Path, limit: int | None) -> dict[str, str]:
    """Texts of one peer on one dataset (cached); pages that raise give an empty text."""
    target = cache / f"peer-{peer}-{path.name.split('.')[0]}-{limit}.json"
    if target.exists():
        return json.loads(target.read_text())
    extract = make_peer(peer)
    out: dict[str, str] = {}
    for page in read_jsonl(path, limit):
        try:
            out[page.id] = extract(page.html, page.url) or ""
        except Exception:  # noqa: BLE001 - a peer's crash scores as an empty extraction
            out[page.id] = ""
    target.write_text(json.dumps(out))
    return out


def labelled(path: Path, cache: Path, limit: int | None) -> tuple[list, BuildReport]:
    """Labelled pages of one dataset, cached under a digest of the stage-1 feature names."""
    names = ",".join(stage1_features([], None).names).encode()
    target = cache / f"labelled-{path.name.split('.')[0]}-{limit}-{hashlib.sha1(names).hexdigest()[:8]}.pkl"
    if target.exists():
        return pickle.loads(target.read_bytes())
    report = BuildReport()
    pages = list(label_pages(read_jsonl(path, limit), report))
    target.write_bytes(pickle.dumps((pages, report)))
    return pages, report


def scores(texts: dict[str, str], golds: dict[str, str]) -> tuple[float, float]:
    lcs = [lcs_prf(texts.get(k, ""), g).f1 for k, g in golds.items()]
    shingle = [shingle_prf(shingle_counts(texts.get(k, ""), g)).f1 for k, g in golds.items()]
    return float(np.mean(lcs)), float(np.mean(shingle))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets-dir", default="../shared/datasets")
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--cache", default="/tmp/grist-auto-cache")
    parser.add_argument("--held", default=None,
                        help="comma-separated datasets to hold out in turn (default: every one)")
    parser.add_argument("--limit", type=int, default=None, help="pages per dataset (sampling)")
    parser.add_argument("--stage", choices=("peers", "labels", "speed", "ship", "all"), default="all")
    parser.add_argument("--speed-pages", type=int, default=40,
                        help="pages per dataset for the speed comparison")
    parser.add_argument("--rounds", type=int, default=TrainConfig.rounds)
    parser.add_argument("--learning-rate", type=float, default=TrainConfig.learning_rate)
    parser.add_argument("--page-step", type=int, default=1,
                        help="train on every N-th page of the other datasets (faster)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--page-power", type=float, default=TrainConfig.page_power)
    parser.add_argument("--dataset-power", type=float, default=TrainConfig.dataset_power)
    parser.add_argument("--threshold", type=float, default=None,
                        help="fixed threshold (default: chosen on the training pages)")
    parser.add_argument("--fallback-below", type=float, default=AutoConfig.fallback_below,
                        help="keep the whole page when the model keeps less of its words")
    parser.add_argument("--fallback-sweep", default=None, metavar="F1,F2,...",
                        help="also score every held-out model with each of these fallback shares")
    parser.add_argument("--ship-out", default="src/grist/data/auto-1.json.gz",
                        help="--stage ship: where to write the model trained on every page")
    parser.add_argument("--out", default=None, help="write the markdown table here")
    parser.add_argument("--save-models", metavar="DIR", default=None,
                        help="also save each held-out model as DIR/<dataset>.json.gz (for grist "
                        "bench --methods 'auto@DIR/{dataset}.json.gz')")
    args = parser.parse_args()
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    names = args.datasets.split(",")
    paths = {n: Path(args.datasets_dir) / f"{n}.jsonl.gz" for n in names}
    if args.stage == "speed":
        print(speed(paths, args.speed_pages))
        return 0
    if args.stage in ("peers", "all"):
        for peer in PEERS:
            for name in names:
                started = time.perf_counter()
                peer_outputs(peer, paths[name], cache, args.limit)
                print(f"{peer} {name} {time.perf_counter() - started:.1f}s", file=sys.stderr)
    if args.stage == "peers":
        return 0
    data = {}
    for name in names:
        started = time.perf_counter()
        data[name] = labelled(paths[name], cache, args.limit)
        report = data[name][1]
        print(f"labels {name}: {report.pages} pages, {report.skipped} skipped, coverage "
              f"{report.mean_coverage:.4f}, {time.perf_counter() - started:.1f}s", file=sys.stderr)
    if args.stage == "labels":
        return 0
    names1 = stage1_features([], None).names
    config = TrainConfig(rounds=args.rounds, learning_rate=args.learning_rate,
                         threads=args.threads, page_power=args.page_power,
                         dataset_power=args.dataset_power, threshold=args.threshold)
    if args.stage == "ship":
        return ship(data, names1, config, args.ship_out)
    sweep = [float(v) for v in args.fallback_sweep.split(",")] if args.fallback_sweep else []
    rows = []
    for held in args.held.split(",") if args.held else names:
        started = time.perf_counter()
        train = [p for n in names if n != held for p in data[n][0]][:: args.page_step]
        model = AutoModel(config).fit(train, names1)
        if args.save_models:
            Path(args.save_models).mkdir(parents=True, exist_ok=True)
            model.save(Path(args.save_models) / f"{held}.json.gz")
        texts = held_out_texts(model, data[held][0], names1, args.fallback_below)
        golds = {p.id: p.gold for p in read_jsonl(paths[held], args.limit)}
        row = {"dataset": held, "pages": len(golds), "threshold": model.threshold,
               "auto": scores(texts, golds)}
        for peer in PEERS:
            row[peer] = scores(peer_outputs(peer, paths[held], cache, args.limit), golds)
        for share in sweep:
            row[f"fallback {share}"] = scores(held_out_texts(model, data[held][0], names1, share),
                                              golds)
        rows.append(row)
        print(held, json.dumps(row), f"{time.perf_counter() - started:.0f}s", file=sys.stderr)
    table = render(rows, args) + (render_sweep(rows, sweep) if sweep else "")
    print(table)
    if args.out:
        Path(args.out).write_text(table)
    return 0


def held_out_texts(model: AutoModel, pages: list, names1: tuple[str, ...],
                   fallback_below: float) -> dict[str, str]:
    """What ``auto`` keeps of each labelled page, as the method selects it."""
    words = names1.index("num_words")
    texts = {}
    for page in pages:
        _, p2 = model.predict(FeatureMatrix(names1, page.values), page.regions, page.paths)
        keep, _ = select_content(p2, page.values[:, words], model.threshold, fallback_below)
        texts[page.id] = "\n".join(t for t, k in zip(page.texts, keep, strict=True) if k)
    return texts


def render_sweep(rows: list[dict], sweep: list[float]) -> str:
    """LCS F1 / shingle F1 of every held-out dataset for each fallback share."""
    title = ("Fallback sweep (LCS F1 / shingle F1; the fallback keeps the whole page when the "
             "model keeps less than this share of its words):")
    lines = ["", title, "",
             "| dataset | " + " | ".join(f"{v:g}" for v in sweep) + " |",
             "|---|" + "---:|" * len(sweep)]
    for row in rows:
        cells = [f"{row[f'fallback {v}'][0]:.4f} / {row[f'fallback {v}'][1]:.4f}" for v in sweep]
        lines.append(f"| {row['dataset']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def ship(data: dict, names1: tuple[str, ...], config: TrainConfig, out: str) -> int:
    """Train on every labelled page of every dataset (what ``grist train`` does) and save."""
    pages = [p for pages, _ in data.values() for p in pages]
    started = time.perf_counter()
    model = AutoModel(config).fit(pages, names1)
    model.save(out)
    print(f"trained auto on {len(pages)} pages ({sum(len(p.labels) for p in pages)} blocks, "
          f"threshold {model.threshold}) in {time.perf_counter() - started:.1f}s -> {out}",
          file=sys.stderr)
    return 0


def speed(paths: dict[str, Path], per_dataset: int) -> str:
    """Pages per second of grist auto (shipped model, end to end) and the peers, same pages."""
    import grist

    pages = [p for path in paths.values() for p in read_jsonl(path, per_dataset)]
    systems = {"grist auto": lambda html, url: grist.extract(html, url, method="auto").text}
    systems.update({peer: make_peer(peer) for peer in PEERS})
    grist.extract(pages[0].html, method="auto")  # load the model outside the timing
    lines = ["| system | pages | failed | seconds | pages/s |", "|---|---:|---:|---:|---:|"]
    for name, extract in systems.items():
        failed = 0
        started = time.perf_counter()
        for page in pages:
            try:
                extract(page.html, page.url)
            except Exception:  # noqa: BLE001 - failures count as pages done
                failed += 1
        seconds = time.perf_counter() - started
        lines.append(f"| {name} | {len(pages)} | {failed} | {seconds:.1f} | "
                     f"{len(pages) / seconds:.2f} |")
    return "\n".join(lines)


def render(rows: list[dict], args: argparse.Namespace) -> str:
    systems = ("auto", *PEERS)
    lines = [
        "| dataset | pages | threshold | "
        + " | ".join(f"{s} LCS F1 | {s} shingle F1" for s in systems) + " |",
        "|---|---:|---:|" + "---:|" * (2 * len(systems)),
    ]
    for row in rows:
        cells = [f"{row[s][0]:.4f} | {row[s][1]:.4f}" for s in systems]
        lines.append(f"| {row['dataset']} | {row['pages']} | {row['threshold']:.2f} | "
                     + " | ".join(cells) + " |")
    means = [f"{np.mean([r[s][0] for r in rows]):.4f} | {np.mean([r[s][1] for r in rows]):.4f}"
             for s in systems]
    lines.append("| **mean** | | | " + " | ".join(means) + " |")
    versions = ", ".join(f"{p} {importlib.metadata.version(p)}"
                         for p in ("trafilatura", "readability-lxml", "lightgbm", "numpy"))
    header = (
        f"Run {datetime.date.today().isoformat()} on Python {platform.python_version()}; "
        f"{versions}.\nCommand: `{' '.join(sys.argv)}` (limit={args.limit}, rounds={args.rounds}, "
        f"page step={args.page_step}, page power={args.page_power}, "
        f"dataset power={args.dataset_power}, threshold={args.threshold or 'tuned'}, "
        f"fallback below={args.fallback_below})\n"
    )
    return header + "\n" + "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
