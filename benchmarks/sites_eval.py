"""Extraction with a site model against ``auto`` alone, on real dev-set sites and generated ones.

Real sites: every dev-set site with at least 5 labelled pages (``sites_common.dev_sites``). Each
page is extracted by ``auto`` trained without its dataset, and judged with a site model fitted
on the *other* pages of its site (leave-one-page-out; the page's own gold is never seen).
Generated sites (``generated_sites.py``): 4 folds by page; each fold's pages are judged with a
model fitted on the pages of the other folds (all templates mixed).

Per configuration (``--configs``), the word-level LCS and shingle precision / recall / F1 of
``auto`` alone and of ``auto`` with the site model's verdicts are computed per page and averaged
per site, per dataset and over all pages, with what the site model removed (gold or not).
``--alternatives`` adds the other decision rules of ``sites_rules.py``.

    flock /tmp/grist-bench.lock nice -n 10 .venv/bin/python benchmarks/sites_eval.py \\
        --datasets-dir ../shared/datasets --generated build/generated-sites.jsonl.gz \\
        --alternatives --per-site --out docs/benchmarks/sites.md
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import xxhash

from grist.api import Extractor
from grist.document import REPORTED_ROLES, RawPage
from grist.errors import GristError
from grist.evaluate.metrics import lcs_prf, shingle_counts, shingle_prf
from grist.io.datasets import Page
from grist.methods.auto import AutoConfig
from grist.result import Result
from grist.sites.evidence import Evidence
from grist.sites.model import SiteConfig, SiteModel, decide
from grist.train.labels import align

sys.path.insert(0, str(Path(__file__).parent))
import sites_rules  # noqa: E402
from sites_common import (SITE_DATASETS, dev_sites, lodo_auto, provenance,  # noqa: E402
                          read_generated, report)


@dataclass
class Judged:
    """One extracted page: its blocks as ``auto`` labelled them and the site evidence."""

    dataset: str
    site: str
    id: str
    gold: str
    texts: list[str]
    scores: np.ndarray
    kept: np.ndarray
    truth: np.ndarray
    evidence: Evidence | None
    reported: np.ndarray  # blocks of a role reported beside the body (title, byline, ...)
    note: str = ""
    extra: dict = field(default_factory=dict)


def _judge(extractor: Extractor, page: Page, model: SiteModel, dataset: str, site: str) -> Judged:
    result = extractor(RawPage(page.html, url=page.url, input=page.id))
    blocks = result.blocks
    note = ""
    try:
        evidence: Evidence | None = model.evidence(result.document, blocks)
    except GristError as exc:
        evidence, note = None, str(exc)
    return Judged(dataset, site, page.id, page.gold, [b.text for b in blocks],
                  np.array([b.score for b in blocks], dtype=float),
                  np.array([b.is_content for b in blocks]),
                  np.array(align(blocks, page.gold).labels, dtype=bool), evidence,
                  np.array([b.role in REPORTED_ROLES for b in blocks], dtype=bool), note)


def _raw(page: Page) -> RawPage:
    return RawPage(page.html, url=page.url, input=page.id)


def real_sites(datasets_dir: Path, cache: Path, config: SiteConfig,
               datasets: tuple[str, ...]) -> list[Judged]:
    """Leave-one-page-out judgements of every page of every dev site."""
    out = []
    extractors: dict[str, Extractor] = {}
    for (dataset, site), pages in dev_sites(datasets_dir, datasets).items():
        if dataset not in extractors:
            model_path = str(lodo_auto(datasets_dir, dataset, cache))
            extractors[dataset] = Extractor(config=AutoConfig(model_path=model_path))
        raws = [_raw(p) for p in pages]
        for i, page in enumerate(pages):
            model = SiteModel(config, extractor=extractors[dataset]).fit(raws[:i] + raws[i + 1:])
            out.append(_judge(extractors[dataset], page, model, dataset, site))
    return out


def generated_sites(path: Path, datasets_dir: Path, cache: Path, config: SiteConfig,
                    folds: int = 4) -> list[Judged]:
    """Judgements of generated pages, ``folds``-fold by page across all templates."""
    records = read_generated(path)
    out = []
    extractors: dict[str, Extractor] = {}
    source = {r["id"]: r["source"].split("/")[0] for r in records}

    def extractor_of(dataset: str) -> Extractor:
        if dataset not in extractors:
            model_path = str(lodo_auto(datasets_dir, dataset, cache))
            extractors[dataset] = Extractor(config=AutoConfig(model_path=model_path))
        return extractors[dataset]

    def labeller(page: RawPage) -> Result:  # each template's pages by auto trained without it
        return extractor_of(source[page.input])(page)

    for fold in range(folds):
        train = [RawPage(r["html"], url=r["url"], input=r["id"])
                 for i, r in enumerate(records) if i % folds != fold]
        model = SiteModel(config, extractor=labeller).fit(train)
        for record in records[fold::folds]:
            dataset = source[record["id"]]
            extractor_of(dataset)
            page = Page(record["id"], record["html"], record["gold"], "generated",
                        record["url"], record["site"])
            out.append(_judge(extractors[dataset], page, model, "generated", record["template"]))
    return out


def _words(j: Judged) -> np.ndarray:
    return np.array([len(t.split()) for t in j.texts], dtype=float)


def _combiners(judged: list[Judged]) -> dict[str, sites_rules.Rule]:
    """The combined rule per dataset, its logistic regression trained on the other datasets'
    judged blocks (``sites_rules.judged_blocks``), rows weighted by word share of the page."""
    rows, labels, weights, datasets = [], [], [], []
    for j in judged:
        if j.evidence is None:
            continue
        words = _words(j)
        judge = sites_rules.judged_blocks(j.evidence, j.kept)
        rows.append(sites_rules.features(j.evidence, j.scores, words)[judge])
        labels.append(j.truth[judge])
        weights.append(((words + 1) / (words.sum() + len(words)))[judge])
        datasets += [j.dataset] * int(judge.sum())
    x, y, w, d = np.vstack(rows), np.concatenate(labels), np.concatenate(weights), \
        np.array(datasets)
    return {name: sites_rules.combined(sites_rules.fit_logistic(x[d != name], y[d != name],
                                                                w[d != name]))
            for name in sorted(set(datasets)) if np.any(d != name)}


SITE = "auto + site"


def site_keep(j: Judged, config: SiteConfig) -> np.ndarray:
    """What ``auto`` + the site model keeps of a page, as ``SiteModel.relabel`` decides it
    (``grist.sites.model.decide``; nothing changes on a page whose kept blocks are all template
    text, or that matches no cluster of ``min_pages``)."""
    ev = j.evidence
    if ev is None or ev.pages < config.min_pages or ev.empties(j.kept):
        return j.kept
    drops, restores = decide(ev, j.kept, j.reported, config)
    return (j.kept & ~drops) | restores


def decisions(judged: list[Judged], config: SiteConfig, alternatives: bool
              ) -> dict[str, list[np.ndarray]]:
    """What each system keeps of every page: auto alone, auto with the site model's verdicts
    (``site_keep``), and with ``alternatives`` the rules of ``sites_rules`` (``combined``
    trained leave-one-dataset-out)."""
    min_pages = config.min_pages
    out: dict[str, list[np.ndarray]] = {"auto": [j.kept for j in judged],
                                        SITE: [site_keep(j, config) for j in judged]}
    if not alternatives:
        return out
    rules: dict[str, sites_rules.Rule] = {f"alternative: {n}": r
                                          for n, r in sites_rules.RULES.items()}
    combiners = _combiners(judged)
    for name in [*rules, "alternative: combined"]:
        out[name] = []
        for j in judged:
            ev = j.evidence
            rule = rules.get(name) or combiners.get(j.dataset)
            usable = ev is not None and ev.pages >= min_pages and rule is not None
            out[name].append(rule(ev, j.kept, j.scores, _words(j)) if usable else j.kept)
    return out


def page_scores(j: Judged, keep: np.ndarray) -> dict[str, float]:
    text = "\n\n".join(t for t, k in zip(j.texts, keep, strict=True) if k)
    lcs = lcs_prf(text, j.gold)
    shingle = shingle_prf(shingle_counts(text, j.gold))
    return {"lcs_p": lcs.precision, "lcs_r": lcs.recall, "lcs_f1": lcs.f1,
            "sh_p": shingle.precision, "sh_r": shingle.recall, "sh_f1": shingle.f1}


KEYS = ("lcs_p", "lcs_r", "lcs_f1", "sh_p", "sh_r", "sh_f1")


def _mean(rows: list[dict[str, float]]) -> dict[str, float]:
    return {k: float(np.mean([r[k] for r in rows])) for k in KEYS}


def table(judged: list[Judged], kept: dict[str, list[np.ndarray]], by: str) -> list[str]:
    """Markdown rows: per group (``dataset``, ``site`` or ``all``), each system's means."""
    groups: dict[str, list[int]] = defaultdict(list)
    for i, j in enumerate(judged):
        groups["all" if by == "all" else f"{j.dataset} {j.site}" if by == "site"
               else j.dataset].append(i)
    lines = ["| " + by + " | pages | system | LCS P | LCS R | LCS F1 | shingle P | shingle R | "
             "shingle F1 |", "|---|---:|---|---:|---:|---:|---:|---:|---:|"]
    for name, members in sorted(groups.items()):
        for system, keeps in kept.items():
            mean = _mean([page_scores(judged[i], keeps[i]) for i in members])
            lines.append(f"| {name} | {len(members)} | {system} | "
                         + " | ".join(f"{mean[k]:.4f}" for k in KEYS) + " |")
    return lines


def changes(judged: list[Judged], keep_site: list[np.ndarray], top: int,
            removed: bool) -> list[str]:
    """What the site model took away from auto's output (``removed``) or added to it: words by
    gold label, and the most frequent texts of each kind."""
    gold_words = noise_words = 0
    gold_texts: Counter[str] = Counter()
    noise_texts: Counter[str] = Counter()
    for j, site_keep in zip(judged, keep_site, strict=True):
        for text, before, after, truth in zip(j.texts, j.kept, site_keep, j.truth, strict=True):
            if (before and not after) if removed else (after and not before):
                words = len(text.split())
                if truth:
                    gold_words += words
                    gold_texts[f"{j.site}: {text[:80]}"] += 1
                else:
                    noise_words += words
                    noise_texts[f"{j.site}: {text[:80]}"] += 1
    verb, noun = ("removed from", "removals") if removed else ("added to", "additions")
    lines = [f"Words {verb} auto's output: {noise_words} not in the gold, {gold_words} in "
             f"the gold ({noise_words / max(gold_words + noise_words, 1):.1%} of them noise).",
             "", f"Most frequent {noun} that were gold:", ""]
    lines += [f"- {n}x {t!r}" for t, n in gold_texts.most_common(top)]
    lines += ["", f"Most frequent {noun} that were noise:", ""]
    lines += [f"- {n}x {t!r}" for t, n in noise_texts.most_common(top)]
    return lines


def page_changes(judged: list[Judged], keep_site: list[np.ndarray], top: int) -> list[str]:
    """How many pages the site model made better or worse (LCS F1), and the pages that lost
    the most recall, with the gold blocks it removed there."""
    changes = []
    for j, keep in zip(judged, keep_site, strict=True):
        before, after = page_scores(j, j.kept), page_scores(j, keep)
        lost = [t[:70] for t, k0, k1, g in zip(j.texts, j.kept, keep, j.truth, strict=True)
                if k0 and not k1 and g]
        changes.append((after["lcs_r"] - before["lcs_r"], after["lcs_f1"] - before["lcs_f1"],
                        f"{j.dataset} {j.site} {j.id}", lost))
    f1 = np.array([c[1] for c in changes])
    recall = np.array([c[0] for c in changes])
    changes.sort(key=lambda c: c[0])
    lines = [f"Per page (LCS F1): {int((f1 > 1e-9).sum())} better, {int((f1 < -1e-9).sum())} "
             f"worse, {int((np.abs(f1) <= 1e-9).sum())} unchanged. Recall fell on "
             f"{int((recall < -1e-9).sum())} pages (sum of the falls {recall[recall < 0].sum():.3f}"
             f" over {len(changes)} pages); the largest falls:", ""]
    lines += [f"- {name}: recall {r:+.3f}, F1 {f:+.3f}; gold blocks removed: {lost[:3]}"
              for r, f, name, lost in changes[:top]]
    return lines


def _configs(specs: list[str]) -> dict[str, SiteConfig]:
    """``name`` or ``name:key=value,key=value`` -> SiteConfig (``default`` is SiteConfig())."""
    out = {}
    for spec in specs:
        name, _, settings = spec.partition(":")
        changes = {}
        for item in filter(None, settings.split(",")):
            key, _, value = item.partition("=")
            default = getattr(SiteConfig(), key)
            changes[key] = (value == "True") if isinstance(default, bool) else type(default)(value)
        out[name] = replace(SiteConfig(), **changes)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets-dir", type=Path, default=Path("../shared/datasets"))
    parser.add_argument("--cache", type=Path, default=Path("/tmp/grist-sites-cache"))
    parser.add_argument("--generated", type=Path, help="a generated_sites.py file")
    parser.add_argument("--configs", nargs="+", default=["default"])
    parser.add_argument("--datasets", default=",".join(SITE_DATASETS))
    parser.add_argument("--per-site", action="store_true", help="add the per-site table")
    parser.add_argument("--alternatives", action="store_true",
                        help="also score the alternative decision rules of sites_rules.py")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    lines = ["# Site models: extraction with and without (seed 002)", "",
             provenance(" ".join(["python", *sys.argv])), ""]
    for name, config in _configs(args.configs).items():
        started = time.process_time()
        datasets = tuple(args.datasets.split(","))
        key = xxhash.xxh32_hexdigest(repr((config, datasets)).encode())
        target = args.cache / f"judged-real-{name}-{key}.pkl"
        cached = target.exists()
        if cached:
            real = pickle.loads(target.read_bytes())
        else:
            real = real_sites(args.datasets_dir, args.cache, config, datasets)
            target.write_bytes(pickle.dumps(real))
        kept = decisions(real, config, args.alternatives)
        unmatched = Counter(j.note.split(" (")[0] for j in real if j.evidence is None)
        lines += [f"## Real dev-set sites, configuration `{name}`: {config}", "",
                  f"{len(real)} pages of {len({(j.dataset, j.site) for j in real})} sites; "
                  f"{sum(j.evidence is not None for j in real)} matched a cluster "
                  f"({dict(unmatched)}); "
                  + (f"judgements read from {target} (an earlier run of this configuration)."
                     if cached else f"{time.process_time() - started:.0f} CPU s.") + "", ""]
        lines += table(real, kept, "all") + [""] + table(real, kept, "dataset") + [""]
        lines += [f"### What `{SITE}` removes", ""] + changes(real, kept[SITE], args.top, True)
        lines += ["", f"### What `{SITE}` adds", ""] + changes(real, kept[SITE], args.top, False)
        lines += [""] + page_changes(real, kept[SITE], args.top // 2) + [""]
        if args.per_site:
            lines += ["### Per site", ""] + table(real, kept, "site") + [""]
        if args.generated:
            generated = generated_sites(args.generated, args.datasets_dir, args.cache, config)
            gen_kept = decisions(generated, config, False)
            lines += [f"## Generated sites ({args.generated.name}), configuration `{name}`", "",
                      f"{len(generated)} pages of {len({j.site for j in generated})} templates.",
                      ""] + table(generated, gen_kept, "all") + [""]
        print(f"{name}: done", file=sys.stderr)
    return report(lines, args.out)


if __name__ == "__main__":
    sys.exit(main())
