"""Does ``auto`` depend on English? Its cross-validation models on pages rewritten into unseen
languages.

The dev sets are nearly all English (31 of 3,984 pages are not), so their scores cannot say how
``auto`` does on other languages. This benchmark keeps every page's markup and rewrites its words:

- ``latin``: each word becomes a pseudo-word of the same length and capitals (a language in the
  Latin script that no stop-word list, month name or byline pattern of grist knows);
- ``unspaced``: each word becomes pseudo-letters of the Thai block (some with combining marks)
  and the spaces between words go (a script written without spaces, as Thai, Lao, Khmer and
  Burmese are).

The mapping is one word to one pseudo-word everywhere (the page title included), so repeated
words stay repeated. Entities, tags, scripts, styles and comments are left alone. The rewritten
page segments into the same blocks as the original, so each block ``auto`` keeps on the rewritten
page is scored with its original text against the original gold: the scores of the two runs
differ only by what the rewriting changed in ``auto``'s decisions. Every page is scored by the
site-grouped CV model that never saw its site (``benchmarks/auto_cv.py --save-models DIR``
writes them and their fold table), with the convention of its dataset's gold.

    nice .venv/bin/python benchmarks/auto_cv.py --datasets-dir ../shared/datasets \\
        --validation cv --seeds 7 --peers trafilatura --save-models build/cv34
    nice .venv/bin/python benchmarks/text_languages.py --models build/cv34/cv \\
        --datasets-dir ../shared/datasets
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import grist
from grist.errors import GristError
from grist.evaluate.metrics import shingle_counts, shingle_prf
from grist.io.datasets import gold_convention, read_jsonl
from grist.methods.auto import AutoConfig
from devsets import DATASETS
from reporting import publish

_LATIN = "abcdefghijklmnopqrstuvwxyz"
_THAI_LETTERS = [chr(c) for c in range(0x0E01, 0x0E2F)]  # the consonants
_THAI_MARKS = "\u0e34\u0e35\u0e48\u0e49"  # two vowel signs and two tone marks (combining)
# an entity (kept), or a run of Latin, Greek or Cyrillic letters; text in other scripts (the
# Chinese and Japanese pages of ``readability``) is left as it is
_LETTERS = "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u052f"
_WORD = re.compile(f"&#?\\w+;|[{_LETTERS}]+")
_WORD_RUN = re.compile(f"&#?\\w+;|[{_LETTERS}]+(?:[ \\t]+[{_LETTERS}]+)*")  # words, spaces between
# what is not page text: comments, scripts, styles, tags
_MARKUP = re.compile(r"(<!--.*?-->|<script\b.*?</script\s*>|<style\b.*?</style\s*>|<[^>]*>)",
                     re.S | re.I)


def _digest(word: str) -> bytes:
    return hashlib.blake2b(word.lower().encode(), digest_size=32).digest()


def latin_word(word: str) -> str:
    """A pseudo-word of ``word``'s length with its capitals (first letter or all)."""
    h = _digest(word)
    out = "".join(_LATIN[h[i % 32] % 26] for i in range(len(word)))
    if word.isupper() and len(word) > 1:
        return out.upper()
    return out[0].upper() + out[1:] if word[0].isupper() else out


def unspaced_word(word: str) -> str:
    """As many pseudo-Thai letters as ``word`` has letters, two in five with a mark after."""
    h = _digest(word)
    return "".join(_THAI_LETTERS[h[i % 32] % len(_THAI_LETTERS)]
                   + (_THAI_MARKS[h[(i + 7) % 32] % 4] if h[(i + 3) % 32] % 5 < 2 else "")
                   for i in range(len(word)))


def _latin_text(text: str) -> str:
    return _WORD.sub(lambda m: m[0] if m[0][0] == "&" else latin_word(m[0]), text)


def _unspaced_text(text: str) -> str:
    def run(m: re.Match[str]) -> str:
        return m[0] if m[0][0] == "&" else "".join(map(unspaced_word, m[0].split()))
    return _WORD_RUN.sub(run, text)


REWRITES: dict[str, Callable[[str], str]] = {"latin": _latin_text, "unspaced": _unspaced_text}


def rewrite_html(html: str, rewrite: Callable[[str], str]) -> str:
    """``html`` with ``rewrite`` applied to its text between tags (not to markup, scripts,
    styles or comments)."""
    parts = _MARKUP.split(html)
    return "".join(part if i % 2 else rewrite(part) for i, part in enumerate(parts))


def _prf(scores: list[tuple[float, float, float]]) -> tuple[float, float, float]:
    """Mean precision, mean recall and their F1 (as the benchmark suite reports shingle F1)."""
    p, r = (float(np.mean([s[i] for s in scores])) for i in (0, 1))
    return p, r, 2 * p * r / (p + r) if p + r else 0.0


def _interval(diff: np.ndarray, rounds: int = 1000) -> tuple[float, float]:
    """95 % percentile-bootstrap interval of the mean of paired page differences."""
    rng = np.random.default_rng(0)
    means = diff[rng.integers(0, len(diff), size=(rounds, len(diff)))].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", required=True,
                        help="folder of fold{N}.json.gz models and folds.json (auto_cv.py)")
    parser.add_argument("--datasets-dir", default="../shared/datasets")
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--pages", type=int, default=None, help="first N pages of each dataset")
    parser.add_argument("--rewrites", nargs="+", choices=tuple(REWRITES), default=list(REWRITES))
    parser.add_argument("--out", default=None, help="write the table to this file too")
    args = parser.parse_args()
    models = Path(args.models)
    folds = json.loads((models / "folds.json").read_text())
    extractors = {f: grist.Extractor(method="auto", config=AutoConfig(
        model_path=str(models / f"fold{f}.json.gz"))) for f in sorted(set(folds.values()))}
    started = time.strftime("%Y-%m-%dT%H:%M")
    rows = []
    for name in args.datasets.split(","):
        wanted = gold_convention(name)
        scores: dict[str, list] = {"original": [], **{k: [] for k in args.rewrites}}
        unmatched = dict.fromkeys(args.rewrites, 0)
        pages = read_jsonl(Path(args.datasets_dir) / f"{name}.jsonl.gz", limit=args.pages)
        for page in pages:
            key = f"{name}/{page.id}"
            if key not in folds:  # a page the labelled set skipped
                continue
            extract = extractors[folds[key]]
            try:
                original = extract(page.html, url=page.url).including(wanted)
            except GristError:
                original = None
            text = original.text if original is not None else ""
            scores["original"].append(shingle_prf(shingle_counts(text, page.gold)))
            for kind in args.rewrites:
                try:
                    result = extract(rewrite_html(page.html, REWRITES[kind]),
                                     url=page.url).including(wanted)
                except GristError:
                    result = None
                if original is None or result is None:
                    kept = ""
                    unmatched[kind] += (original is None) != (result is None)
                elif len(result.blocks) != len(original.blocks):
                    unmatched[kind] += 1  # scored on its own text against the rewritten gold
                    scores[kind].append(shingle_prf(shingle_counts(
                        result.text, REWRITES[kind](page.gold))))
                    continue
                else:
                    kept = "\n".join(a.text for a, b in zip(original.blocks, result.blocks,
                                                            strict=True) if b.is_content)
                scores[kind].append(shingle_prf(shingle_counts(kept, page.gold)))
        row = {"dataset": name, "pages": len(scores["original"]),
               "original": _prf(scores["original"])}
        base = np.array([s.f1 for s in scores["original"]])
        for kind in args.rewrites:
            diff = np.array([s.f1 for s in scores[kind]]) - base
            row[kind] = (_prf(scores[kind]), float(diff.mean()), _interval(diff), unmatched[kind])
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    return publish(render(rows, args, started), args.out)


def render(rows: list[dict], args: argparse.Namespace, started: str) -> str:
    """A Markdown table: per dataset, shingle P / R / F1 of the original pages and of each
    rewrite, with the paired mean difference of page F1 and its interval."""
    head = ["dataset", "pages", "original F1 (P / R)"]
    for kind in args.rewrites:
        head += [f"{kind} F1 (P / R)", f"{kind} - original, page F1 [95 %]"]
    lines = [
        f"Run {started}-{time.strftime('%H:%M')} on Python {platform.python_version()}, grist "
        f"{grist.__version__}; models: `{args.models}`; command: `benchmarks/text_languages.py "
        f"{' '.join(sys.argv[1:])}`",
        "",
        "| " + " | ".join(head) + " |",
        "|---|" + "---:|" * (len(head) - 1),
    ]
    for row in rows:
        p, r, f = row["original"]
        cells = [row["dataset"], str(row["pages"]), f"{f:.4f} ({p:.3f} / {r:.3f})"]
        for kind in args.rewrites:
            (p, r, f), diff, (lo, hi), unmatched = row[kind]
            note = f"; {unmatched} unmatched" if unmatched else ""
            cells += [f"{f:.4f} ({p:.3f} / {r:.3f})", f"{diff:+.4f} [{lo:+.4f}, {hi:+.4f}]{note}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
