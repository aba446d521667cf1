"""Seed 003's stream evaluation: cumulative moving-average F1 (Eq. 4) of the URL Tree per site.

Replays, site by site, every site with at least ``--min-pages`` labelled pages of the shared
datasets (their ``site`` field) and of any JSON-lines page set (``url``, ``site``, ``html``,
``gold``, optional ``date``), in time order when every page has a date, else in file order.
Each page is extracted once by ``auto`` (the shipped model, or with ``--lodo DIR`` the model
that never saw the page's dataset); then, for every heuristic, the URL Tree (the page inserted
first, as in the paper) relabels a copy of the blocks, combined with auto (``auto+tree``) and
alone (``tree``, the paper's algorithm). Scores are word-level LCS F1 (Eq. 1-3).

    flock /tmp/grist-bench.lock nice -n 10 .venv/bin/python benchmarks/stream_tree.py \
        --lodo build/lodo --out docs/benchmarks/stream

Writes OUT.md (tables, what the tree removed), OUT.json (every per-page score) and OUT-*.png
(the paper's Figures 4 and 5 for these streams).
"""

from __future__ import annotations

import argparse
import copy
import datetime
import gzip
import importlib.metadata
import json
import platform
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from grist.api import Extractor
from grist.crosspage import apply_verdicts
from grist.document import RawPage
from grist.errors import GristError
from grist.evaluate.metrics import cumulative_moving_average, lcs_prf
from grist.methods.auto import AutoConfig
from grist.stream.hashing import HASHES, block_hashes
from grist.stream.urlkey import url_key
from grist.stream.urltree import UrlTree, parse_date

SAMPLE_TEXTS: list[str] = []  # block texts of the replayed pages, for the hash speed figures
HEURISTICS = ("strict", "strict-support-100", "strict-at-domain", "relaxed-at-domain-500")
DATASETS = ("cleaneval-final", "cleanportaleval", "dragnet", "l3s-gn1", "modern-dev",
            "readability")


@dataclass
class StreamPage:
    url: str
    site: str
    html: str
    gold: str
    dataset: str
    date: str | None = None


@dataclass
class Scores:
    """Per system, per site: the F1 of each page in stream order."""

    f1: dict[str, dict[str, list[float]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list)))
    changes: list[dict] = field(default_factory=list)


def read_pages(path: Path, dataset: str | None = None) -> Iterator[StreamPage]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            record = json.loads(line)
            if record.get("url") and record.get("site") and record.get("gold") is not None:
                yield StreamPage(record["url"], record["site"], record["html"], record["gold"],
                                 dataset or record.get("dataset") or path.name.split(".")[0],
                                 record.get("date"))


def site_streams(paths: list[Path], min_pages: int) -> dict[str, list[StreamPage]]:
    """Sites with at least ``min_pages`` pages, each in time order (file order without dates)."""
    sites: dict[str, list[StreamPage]] = defaultdict(list)
    for path in paths:
        for page in read_pages(path):
            sites[f"{page.dataset}:{page.site}"].append(page)
    streams = {}
    for site, pages in sorted(sites.items()):
        if len(pages) < min_pages:
            continue
        if all(parse_date(p.date) is not None for p in pages):
            pages = sorted(pages, key=lambda p: parse_date(p.date))
        streams[site] = pages
    return streams


def gold_line(text: str) -> str:
    return " " + " ".join(text.casefold().split()) + " "


def make_trees(heuristics: tuple[str, ...], sweep: list[tuple[float, float]]) -> dict[str, UrlTree]:
    """Every tree variant; they share one forest (insertion does not depend on the heuristic)."""
    trees: dict[str, UrlTree] = {}
    for name in heuristics:
        trees[f"auto+tree {name}"] = UrlTree(name)
        trees[f"tree {name}"] = UrlTree(name, combine=False)
    for protect, share in sweep:
        trees[f"auto+tree strict p{protect} s{share}"] = UrlTree(
            "strict", protect_above=protect, share_min=share)
    return trees


def run_site(pages: list[StreamPage], extractor: Extractor, trees: dict[str, UrlTree],
             scores: Scores, site: str, timing: dict[str, float],
             dump: list | None = None) -> None:
    first = next(iter(trees.values()))
    first.fit([])
    for tree in trees.values():
        tree.forest_ = first.forest_
    for position, page in enumerate(pages):
        raw = RawPage(page.html, url=page.url, input=page.url, date=page.date)
        try:
            result = extractor(raw)
        except GristError:
            for system in ("auto", *trees):
                scores.f1[system][site].append(lcs_prf("", page.gold).f1)
            continue
        scores.f1["auto"][site].append(lcs_prf(result.text, page.gold).f1)
        started = time.process_time()
        hashes = first.hashes(result.blocks)
        timing["hash"] += time.process_time() - started
        started = time.process_time()
        first.insert(first.record(url_key(page.url, result.title or None, first.rules),
                                  page.url, hashes, parse_date(page.date)))
        timing["insert"] += time.process_time() - started
        timing["docs"] += 1
        if len(SAMPLE_TEXTS) < 200_000:
            SAMPLE_TEXTS.extend(b.text for b in result.blocks)
        gold = gold_line(page.gold)
        if dump is not None:
            columns = first.annotate(result.document, result.blocks)
            for block, row in zip(result.blocks, columns.values.tolist(), strict=True):
                dump.append([site, position, block.score, block.label, *row,
                             len(block.text.split()), gold_line(block.text) in gold])
        for system, tree in trees.items():
            blocks = [copy.copy(b) for b in result.blocks]
            started = time.process_time()
            apply_verdicts([tree], result.document, blocks, [])
            timing["relabel"] += time.process_time() - started
            timing["relabels"] += 1
            text = "\n".join(b.text for b in blocks if b.is_content)
            scores.f1[system][site].append(lcs_prf(text, page.gold).f1)
            if system == "auto+tree strict":
                for before, after in zip(result.blocks, blocks, strict=True):
                    if before.label != after.label:
                        scores.changes.append({
                            "site": site, "position": position, "to": after.label,
                            "text": after.text[:160], "words": len(after.text.split()),
                            "in_gold": gold_line(after.text) in gold, "reason": after.reason})


def curves(per_site: dict[str, list[float]], length: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean over sites of the CMA after j documents (sites with >= j documents), and counts."""
    means, counts = [], []
    for j in range(1, length + 1):
        values = [list(cumulative_moving_average(f))[j - 1] for f in per_site.values()
                  if len(f) >= j]
        means.append(float(np.mean(values)) if values else np.nan)
        counts.append(len(values))
    return np.array(means), np.array(counts)


def interleaved(per_site: dict[str, list[float]]) -> list[float]:
    """Per-page F1 in the round-robin order of a stream that mixes the sites (Figure 5)."""
    out, depth = [], max(len(v) for v in per_site.values())
    for j in range(depth):
        out.extend(v[j] for v in per_site.values() if len(v) > j)
    return out


def scale_run(docs: int, domains: int, blocks: int, template: int) -> dict[str, float]:
    """Throughput and memory of the tree alone on a synthetic stream (no fetch, no parse)."""
    import tracemalloc

    rng = np.random.default_rng(3)
    tree = UrlTree("strict").fit([])
    templates = [rng.integers(1, 2**63, template, dtype=np.uint64) for _ in range(domains)]
    batches = []
    for i in range(docs):
        d = i % domains
        own = rng.integers(1, 2**63, blocks - template, dtype=np.uint64)
        key = (f"https://www.site{d}.example/section{i % 7}/2024/{1 + i // 9000 % 12:02d}/"
               f"{1 + i // 300 % 28:02d}/story-{i}.html")
        date = 1.7e9 + i * 60.0
        batches.append((key, np.concatenate([templates[d], own]), date))
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    started = time.process_time()
    for key, hashes, date in batches:
        tree.insert(tree.record(key, key, hashes, date))
        tree.forest_.select(key, hashes, tree.heuristic_rule, virtual=False)
    cpu = time.process_time() - started
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    held = len(tree.forest_)
    records = list(tree.forest_.records())
    started = time.process_time()
    UrlTree().restore(records)
    restore = time.process_time() - started
    return {"docs": docs, "domains": domains, "blocks_per_doc": blocks, "held": held,
            "docs_per_s": docs / cpu, "mb_per_1000": (after - before) / held * 1000 / 2**20,
            "restore_docs_per_s": held / restore}


def hash_speed(texts: list[str]) -> dict[str, float]:
    """Blocks hashed per CPU second with each hash family (normalisation included)."""
    out = {}
    for name in HASHES:
        started = time.process_time()
        for _ in range(3):
            block_hashes(texts, name)
        out[name] = 3 * len(texts) / (time.process_time() - started)
    return out


def site_halves(sites: list[str]) -> tuple[set[str], set[str]]:
    """Two halves of the sites (alternating in sorted order) for choosing on one, checking on
    the other."""
    ordered = sorted(sites)
    return set(ordered[0::2]), set(ordered[1::2])


def mean_f1(per_site: dict[str, list[float]], sites: set[str] | None = None) -> float:
    values = [v for s, f in per_site.items() if sites is None or s in sites for v in f]
    return float(np.mean(values)) if values else float("nan")


def plot(scores: Scores, systems: list[str], out: Path, length: int) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    fig, ax = plt.subplots(figsize=(8, 5))
    for site, f in scores.f1["tree strict"].items():
        ax.plot(range(1, len(f) + 1), list(cumulative_moving_average(f)), color="0.7", lw=0.8)
    for system in ("tree strict", "auto", "auto+tree strict"):
        mean, _ = curves(scores.f1[system], length)
        ax.plot(range(1, length + 1), mean, lw=2.2, label=f"{system} (mean over sites)")
    ax.set(xlabel="documents of the site", ylabel="cumulative moving-average F1 (Eq. 4)",
           title="Per site: URL Tree (strict) alone, grey; means over sites", ylim=(0, 1))
    ax.legend(loc="lower right")
    written.append(f"{out.name}-fig4.png")
    fig.savefig(out.parent / written[-1], dpi=110, bbox_inches="tight")
    fig, ax = plt.subplots(figsize=(8, 5))
    for system in systems:
        cma = list(cumulative_moving_average(interleaved(scores.f1[system])))
        ax.plot(range(1, len(cma) + 1), cma, label=f"{system} ({cma[-1]:.3f})",
                lw=2.2 if system in ("auto", "auto+tree strict") else 1.2)
    ax.set(xlabel="documents in the stream (sites interleaved)", ylabel="cumulative F1 (Eq. 4)",
           title="All sites as one stream", ylim=(0.4, 1))
    ax.legend(loc="lower right", fontsize=8)
    written.append(f"{out.name}-fig5.png")
    fig.savefig(out.parent / written[-1], dpi=110, bbox_inches="tight")
    return written


def extractor_for(dataset: str, lodo: Path | None, cache: dict[str, Extractor]) -> Extractor:
    """``auto`` with the model that never saw ``dataset`` (the shipped one without --lodo)."""
    model = lodo / f"{dataset}.json.gz" if lodo else None
    name = str(model) if model and model.exists() else "shipped"
    if name not in cache:
        config = AutoConfig(model_path=None if name == "shipped" else name)
        cache[name] = Extractor(method="auto", config=config)
    return cache[name]


def report(scores: Scores, systems: list[str], args: argparse.Namespace, streams: dict,
           scale: dict, timing: dict, figures: list[str], sweep_rows: list[str],
           hashes: dict[str, float]) -> str:
    auto = scores.f1["auto"]
    length = max(len(v) for v in auto.values())
    versions = {n: importlib.metadata.version(n) for n in ("grist", "numpy", "xxhash")}
    lines = [
        f"# URL Tree stream benchmark ({datetime.date.today().isoformat()})", "",
        f"Command: `{' '.join(sys.argv)}`  ",
        f"Python {platform.python_version()}, " + ", ".join(f"{k} {v}" for k, v in
                                                             versions.items()) + "; "
        "2-core machine shared with other jobs (speeds are CPU time).  ",
        f"`auto` model: {'leave-one-dataset-out models from ' + str(args.lodo) if args.lodo else 'the shipped one'}.  ",
        f"{len(streams)} sites, {sum(len(p) for p in streams.values())} pages "
        f"({', '.join(f'{d}: {n}' for d, n in sorted(_per_dataset(streams).items()))}).", "",
        "## Mean F1 by system", "",
        "| system | mean page F1 | stream CMA (Fig. 5, last) | pages 1-4 | pages 5-10 | "
        "pages 11-20 | pages 21+ |", "|---|---:|---:|---:|---:|---:|---:|"]
    for system in systems:
        per = scores.f1[system]
        cma = list(cumulative_moving_average(interleaved(per)))[-1]
        bands = [_band(per, lo, hi) for lo, hi in ((1, 4), (5, 10), (11, 20), (21, 10**9))]
        lines.append(f"| {system} | {mean_f1(per):.4f} | {cma:.4f} | "
                     + " | ".join(f"{b:.4f}" for b in bands) + " |")
    lines += ["", "## auto + tree against auto alone, after j documents of a site", "",
              "Mean over the sites that have at least j documents of the cumulative moving "
              "average F1 (Eq. 4) after j documents.", "",
              "| j | sites | auto | " + " | ".join(f"{h} - auto" for h in args.heuristics) + " |",
              "|---:|---:|---:|" + "---:|" * len(args.heuristics)]
    auto_curve, counts = curves(auto, length)
    tree_curves = {h: curves(scores.f1[f"auto+tree {h}"], length)[0] for h in args.heuristics}
    for j in range(length):
        lines.append(f"| {j + 1} | {counts[j]} | {auto_curve[j]:.4f} | " + " | ".join(
            f"{tree_curves[h][j] - auto_curve[j]:+.4f}" for h in args.heuristics) + " |")
    lines += ["", "## Per dataset (mean page F1)", "",
              "| dataset | sites | pages | auto | auto+tree strict | tree strict |",
              "|---|---:|---:|---:|---:|---:|"]
    for dataset in sorted({s.split(":")[0] for s in auto}):
        sites = {s for s in auto if s.startswith(dataset + ":")}
        lines.append(f"| {dataset} | {len(sites)} | {sum(len(auto[s]) for s in sites)} | "
                     + " | ".join(f"{mean_f1(scores.f1[x], sites):.4f}"
                                  for x in ("auto", "auto+tree strict", "tree strict")) + " |")
    lines += _changes(scores.changes)
    lines += ["", "## Speed and memory of the tree", "",
              f"On the replayed pages (CPU time per document, excluding fetch, parse and auto): "
              f"block hashing {timing['hash'] / timing['docs'] * 1e3:.3f} ms, insertion "
              f"{timing['insert'] / timing['docs'] * 1e3:.3f} ms, one heuristic's relabel "
              f"{timing['relabel'] / timing['relabels'] * 1e3:.3f} ms.", "",
              f"Synthetic stream ({scale['docs']} documents over {scale['domains']} domains, "
              f"{scale['blocks_per_doc']} blocks each, retention at its defaults; insertion and "
              f"node selection): **{scale['docs_per_s']:.0f} documents/s** on one core, "
              f"**{scale['mb_per_1000']:.2f} MB per 1,000 documents held** (tracemalloc; "
              f"{scale['held']} held), against the paper's 6.5 MB. Rebuilding the tree from "
              f"a state file's documents (start-up): {scale['restore_docs_per_s']:.0f} "
              "documents/s.", "",
              "Block hashing, normalisation included, on the replayed pages' blocks: "
              + ", ".join(f"{name} {speed:,.0f} blocks/s" for name, speed in hashes.items())
              + ".", ""]
    lines += sweep_rows
    lines += ["", "## Figures", ""] + [f"![{f}]({f})" for f in figures]
    return "\n".join(lines) + "\n"


def _per_dataset(streams: dict) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for site, pages in streams.items():
        out[site.split(":")[0]] += len(pages)
    return out


def _band(per_site: dict[str, list[float]], lo: int, hi: int) -> float:
    values = [v for f in per_site.values() for v in f[lo - 1: hi]]
    return float(np.mean(values)) if values else float("nan")


def _changes(changes: list[dict]) -> list[str]:
    """What the tree (strict, combined with auto) changed of auto's labels, and how often it was
    right (a block is "in gold" when its words appear in the gold text)."""
    lines = ["", "## What the tree changed (auto+tree strict)", ""]
    for target in ("boilerplate", "content"):
        group = [c for c in changes if c["to"] == target]
        if not group:
            lines.append(f"No block was turned into {target}.")
            continue
        wrong = [c for c in group if c["in_gold"] == (target == "boilerplate")]
        lines.append(f"- turned into **{target}**: {len(group)} blocks, "
                     f"{sum(c['words'] for c in group)} words; against the gold: "
                     f"{len(wrong)} blocks / {sum(c['words'] for c in wrong)} words wrong.")
    for title, keep in (("Wrongly removed (in the gold), longest first", True),
                        ("Rightly removed (not in the gold), a sample", False)):
        group = [c for c in changes if c["to"] == "boilerplate" and c["in_gold"] == keep]
        group.sort(key=lambda c: -c["words"]) if keep else None
        lines += ["", f"### {title}", "", "| site | doc | words | text |", "|---|---:|---:|---|"]
        for c in group[:: max(1, len(group) // 15)][:15] if not keep else group[:15]:
            text = c["text"].replace("|", "\\|")
            lines.append(f"| {c['site']} | {c['position'] + 1} | {c['words']} | {text} |")
    return lines


def sweep_table(scores: Scores, sweep: list[tuple[float, float]]) -> list[str]:
    if not sweep:
        return []
    a, b = site_halves(list(scores.f1["auto"]))
    lines = ["## Choosing protect_above / share_min on half the sites", "",
             "Mean page F1 minus auto's on each half of the sites (alternating by name); the "
             "defaults were chosen on half A and are checked on half B.", "",
             "| protect_above | share_min | half A | half B |", "|---:|---:|---:|---:|"]
    base_a, base_b = mean_f1(scores.f1["auto"], a), mean_f1(scores.f1["auto"], b)
    for protect, share in sweep:
        per = scores.f1[f"auto+tree strict p{protect} s{share}"]
        lines.append(f"| {protect} | {share} | {mean_f1(per, a) - base_a:+.4f} | "
                     f"{mean_f1(per, b) - base_b:+.4f} |")
    return lines + [""]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets-dir", default="../shared/datasets")
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--pages", nargs="*", default=[], type=Path,
                        help="more JSON-lines page sets (url, site, html, gold, date)")
    parser.add_argument("--min-pages", type=int, default=5)
    parser.add_argument("--lodo", type=Path, default=None,
                        help="folder of leave-one-dataset-out auto models (<dataset>.json.gz)")
    parser.add_argument("--heuristics", nargs="*", default=list(HEURISTICS))
    parser.add_argument("--sweep", nargs="*", default=[], metavar="PROTECT:SHARE")
    parser.add_argument("--scale-docs", type=int, default=40_000)
    parser.add_argument("--dump-blocks", type=Path, default=None,
                        help="write every block's auto score, tree evidence and gold membership")
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks/stream"))
    args = parser.parse_args()
    paths = [Path(args.datasets_dir) / f"{d}.jsonl.gz" for d in args.datasets.split(",") if d]
    streams = site_streams(paths + args.pages, args.min_pages)
    sweep = [tuple(float(v) for v in s.split(":")) for s in args.sweep]
    scores, timing, extractors = Scores(), defaultdict(float), {}
    dump: list | None = [] if args.dump_blocks else None
    for number, (site, pages) in enumerate(streams.items(), start=1):
        trees = make_trees(tuple(args.heuristics), sweep)
        run_site(pages, extractor_for(pages[0].dataset, args.lodo, extractors), trees, scores,
                 site, timing, dump)
        print(f"\r{number}/{len(streams)} sites", end="", file=sys.stderr)
    print(file=sys.stderr)
    systems = ["auto"] + [f"{kind} {h}" for kind in ("auto+tree", "tree") for h in args.heuristics]
    scale = scale_run(args.scale_docs, 20, 70, 40)
    length = max(len(v) for v in scores.f1["auto"].values())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    figures = plot(scores, systems, args.out, length)
    text = report(scores, systems, args, streams, scale, timing, figures,
                  sweep_table(scores, sweep), hash_speed(SAMPLE_TEXTS))
    args.out.with_suffix(".md").write_text(text)
    args.out.with_suffix(".json").write_text(json.dumps(
        {"f1": {k: dict(scores.f1[k]) for k in systems}, "scale": scale}))
    if dump is not None:
        args.dump_blocks.write_text(json.dumps(dump))
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
