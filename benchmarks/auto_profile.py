"""Where ``auto`` spends its time per page: CPU ms/page of each pipeline stage, and end to end.

Runs the stages of ``grist.methods.auto`` one by one on the same pages (``--pages`` from each of
the eight shared datasets, or of those ``--datasets`` names) and sums the process CPU time
(``time.process_time``) of each; every measurement is repeated ``--repeats`` times and the best
kept, so load from other jobs on the machine inflates it less. End to end is
``grist.extract(html, url, method="auto")``.

    nice .venv/bin/python benchmarks/auto_profile.py --pages 15 --repeats 3
    nice .venv/bin/python benchmarks/auto_profile.py --datasets readability --pages 100
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import grist
from grist.document import Document
from grist.io.datasets import read_jsonl
from grist.features.candidates import candidate_features
from grist.features.chars import tokenize
from grist.features.context import context_features, with_neighbours
from grist.features.elementwords import ElementWords
from grist.features.text import block_features
from grist.html.load import load_document
from grist.html.parse import build_dom, check_before_parsing, check_depth
from grist.limits import Limits
from grist.segment.blocks import segment_elements
from grist.features.ancestry import ancestry_features
from grist.features.auto import FAR_COLUMNS
from grist.features.copies import copy_features
from grist.features.markup import markup_features
from grist.classify.boosted import SHIPPED, AutoModel
from grist.classify.roles import derive_roles
from grist.methods.auto import AutoConfig, choose_blocks
from grist.modelfile import shipped
from devsets import DATASETS

STAGES = ("load", "check_structure", "lexbor", "segment", "text", "element words", "context",
          "candidates", "ancestry", "copies + markup", "neighbours", "stage1 forest", "page type",
          "stage2 (features, forest)", "page cut", "roles")


def load_pages(folder: Path, per_dataset: int, names: Sequence[str] = DATASETS) -> list:
    """The first ``per_dataset`` pages of each of the datasets ``names``."""
    return [page for name in names
            for page in read_jsonl(folder / f"{name}.jsonl.gz", per_dataset)]


def stage_times(pages: list) -> dict[str, float]:
    """CPU seconds of each stage summed over the pages (pages that fail are skipped)."""
    model = AutoModel.load(shipped(SHIPPED))
    totals = dict.fromkeys(STAGES, 0.0)
    clock = time.process_time

    def timed(stage: str, step: Callable[[], object]) -> object:
        start = clock()
        out = step()
        totals[stage] += clock() - start
        return out

    for page in pages:
        doc: Document = timed("load", lambda p=page: load_document(p.html, p.url))
        try:
            found, depth_unknown = timed("check_structure",
                                         lambda d=doc: check_before_parsing(d.html, Limits()))
            timed("lexbor", lambda d=doc, f=found: build_dom(
                d, may_hold_noscript=f.named_starts["noscript"] > 0))
            if depth_unknown:
                timed("check_structure", lambda d=doc: check_depth(d.dom, Limits()))
        except grist.GristError:
            continue
        blocks, elements = timed("segment", lambda d=doc: segment_elements(d))
        if not blocks:
            continue
        # as stage1_features runs them: the tokens found once, their characters shared
        tokens = timed("text", lambda b=blocks: tokenize([x.text for x in b]))
        text = timed("text", lambda b=blocks, k=tokens: block_features(b, tokens=k))
        words = text.column("num_words")
        keywords = timed("element words", lambda e=elements: ElementWords(e) if len(e) else None)
        ctx = timed("context", lambda b=blocks, d=doc, w=words, k=tokens, e=keywords:
                    context_features(b, d, w, k.chars, e))
        cand = timed("candidates", lambda b=blocks, w=words: candidate_features(b, w))
        anc = timed("ancestry", lambda b=blocks, e=elements, w=words, t=text, k=keywords:
                    ancestry_features(b, e, w, w * t.column("link_density"), k))
        texts = [b.text for b in blocks]
        rest = timed("copies + markup", lambda x=texts, w=words: copy_features(x, w).hstack(
            markup_features(x, w)))
        matrix = timed("neighbours", lambda t=text, c=ctx, k=cand, a=anc, r=rest: with_neighbours(
            t.hstack(c).hstack(k).hstack(a).hstack(r), FAR_COLUMNS, (-2, 2)))
        p1 = timed("stage1 forest", lambda m=matrix: model.stage1_scores(m)[0])
        types = timed("page type", lambda m=matrix, p=p1: model.page_types(m, p))
        p2 = timed("stage2 (features, forest)", lambda b=blocks, m=matrix, p=p1, k=types:
                   model.stage2_scores(m, [x.region for x in b], [x.path for x in b], p, k)[0])
        cut = timed("page cut", lambda p=p2, w=words, k=types: model.cut(p, w, k))
        timed("roles", lambda m=matrix, p=p2, c=cut: derive_roles(
            m, texts, choose_blocks(p, m, texts, c, AutoConfig())[0].keep))
    return totals


def end_to_end(pages: list) -> float:
    """CPU seconds of ``grist.extract(..., method="auto")`` over the pages."""
    start = time.process_time()
    for page in pages:
        try:
            grist.extract(page.html, page.url, method="auto")
        except grist.GristError:
            pass
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets-dir", default="../shared/datasets", type=Path)
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS), choices=DATASETS,
                        help="which datasets (all by default)")
    parser.add_argument("--pages", type=int, default=15, help="pages per dataset")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    pages = load_pages(args.datasets_dir, args.pages, args.datasets)
    end_to_end(pages[:5])  # warm caches and model loading
    best = dict.fromkeys(STAGES, float("inf"))
    for _ in range(args.repeats):
        for stage, seconds in stage_times(pages).items():
            best[stage] = min(best[stage], seconds)
    n = len(pages)
    print(f"{n} pages, best of {args.repeats}, CPU ms/page")
    for stage in STAGES:
        print(f"  {stage:16s} {1000 * best[stage] / n:7.2f}")
    print(f"  {'sum of stages':16s} {1000 * sum(best.values()) / n:7.2f}")
    total = min(end_to_end(pages) for _ in range(args.repeats))
    print(f"end to end: {1000 * total / n:.2f} ms/page, {n / total:.1f} pages/s")


if __name__ == "__main__":
    main()
