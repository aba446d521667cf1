"""``auto`` on pages whose markup names its parts in German, French or Spanish.

The shared datasets are English pages with English id/class words (``comment``, ``related``,
``footer``, ...), which ``auto``'s features read. Sites in other languages often name their parts
in their own language (``kommentare``, ``publicidad``, ``pied-de-page``). This script takes the
first ``--pages`` pages of every dataset, rewrites the English keywords inside their id and class
values into each language (``TRANSLATIONS``: the text of the page is left alone), extracts each
version with ``auto`` and scores it against the gold: shingle F1 of the original markup against
the translated markup shows how much the class words' language costs. It also counts, over
every element of the (untranslated) pages, the id/class tokens each alias of
``grist/data/class_aliases.txt`` matches: an alias that English markup uses for something else
would show up there.

    .venv/bin/python benchmarks/class_languages.py --datasets-dir ../shared/datasets --pages 60
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter
from pathlib import Path

import grist
from grist.evaluate.aggregate import score_page, summarize
from grist.features.keywords import class_aliases
from grist.io.datasets import gold_convention, read_jsonl
from reporting import publish
from devsets import DATASETS

# English keyword -> its word in each language, as sites of that language write it in markup.
TRANSLATIONS = {
    "comment": {"de": "kommentar", "fr": "commentaire", "es": "comentario"},
    "reply": {"de": "antwort", "fr": "reponse", "es": "respuesta"},
    "related": {"de": "aehnliche", "fr": "similaires", "es": "relacionados"},
    "recommend": {"de": "empfehlung", "fr": "recommande", "es": "recomendado"},
    "popular": {"de": "meistgelesen", "fr": "populaires", "es": "masleidos"},
    "share": {"de": "teilen", "fr": "partage", "es": "compartir"},
    "social": {"de": "sozial", "fr": "sociaux", "es": "sociales"},
    "advert": {"de": "werbung", "fr": "publicite", "es": "publicidad"},
    "ads": {"de": "anzeigen", "fr": "annonces", "es": "publicidad"},
    "ad": {"de": "anzeige", "fr": "annonce", "es": "publicidad"},
    "sponsor": {"de": "gesponsert", "fr": "sponsorise", "es": "patrocinado"},
    "subscribe": {"de": "abonnieren", "fr": "abonnement", "es": "suscripcion"},
    "footer": {"de": "fusszeile", "fr": "piedepage", "es": "piedepagina"},
    "header": {"de": "kopfbereich", "fr": "entete", "es": "cabecera"},
    "sidebar": {"de": "seitenleiste", "fr": "barrelaterale", "es": "barralateral"},
    "breadcrumb": {"de": "brotkrumen", "fr": "ariane", "es": "migas"},
    "author": {"de": "autor", "fr": "auteur", "es": "autor"},
    "date": {"de": "datum", "fr": "date", "es": "fecha"},
    "caption": {"de": "bildunterschrift", "fr": "legende", "es": "leyenda"},
    "article": {"de": "artikel", "fr": "article", "es": "articulo"},
    "content": {"de": "inhalt", "fr": "contenu", "es": "contenido"},
    "title": {"de": "titel", "fr": "titre", "es": "titulo"},
    "search": {"de": "suche", "fr": "recherche", "es": "buscador"},
    "tag": {"de": "schlagwort", "fr": "etiquette", "es": "etiquetas"},
    "gallery": {"de": "galerie", "fr": "galerie", "es": "galeria"},
}
LANGUAGES = ("de", "fr", "es")
_ATTRIBUTE = re.compile(r"""(\s(?:class|id)\s*=\s*)(["'])(.*?)\2""", re.I | re.S)
_KEYS = sorted(TRANSLATIONS, key=len, reverse=True)  # longest first: "advert" before "ad"
_SHORT = re.compile(r"(?<![a-z])(ads?)(?![a-z])")  # short keywords: whole words only
_LONG = re.compile("|".join(k for k in _KEYS if len(k) > 3))
_TOKEN = re.compile(r"[a-z0-9]+")


def translate(html: str, language: str) -> str:
    """The page with the English keywords of its id and class values in ``language``."""
    def word(match: re.Match) -> str:
        return TRANSLATIONS[match.group(0).lower()][language]

    def value(match: re.Match) -> str:
        text = match.group(3)
        lowered = text.lower()
        if not _LONG.search(lowered) and not _SHORT.search(lowered):
            return match.group(0)
        text = _SHORT.sub(word, _LONG.sub(word, lowered))
        return f"{match.group(1)}{match.group(2)}{text}{match.group(2)}"

    return _ATTRIBUTE.sub(value, html)


def alias_hits(pages: list) -> Counter:
    """How many id/class tokens of the pages' elements each alias matches."""
    whole, inside = {}, []
    for keyword, aliases in class_aliases().items():
        for alias in aliases:
            if alias.endswith("*"):
                inside.append((alias, alias[:-1], keyword))
            else:
                whole[alias] = keyword
    hits: Counter = Counter()
    for page in pages:
        for match in _ATTRIBUTE.finditer(page.html):
            for token in _TOKEN.findall(match.group(3).lower()):
                if token in whole:
                    hits[f"{token} ({whole[token]})"] += 1
                for alias, stem, keyword in inside:
                    if stem in token:
                        hits[f"{alias} ({keyword}) in {token}"] += 1
    return hits


def score(pages: list, language: str | None) -> dict:
    """Shingle scores of ``auto`` on the pages (translated into ``language`` unless None)."""
    rows = []
    for page in pages:
        html = page.html if language is None else translate(page.html, language)
        try:
            text = grist.extract(html, page.url, method="auto",
                                 **_options(gold_convention(page.dataset))).text
        except grist.GristError:
            text = ""
        rows.append(score_page(page.id, text, page.gold))
    return summarize(rows, rounds=200)


def _options(convention: frozenset[str]) -> dict[str, bool]:
    """The ``--with-*`` options that give a dataset's gold convention."""
    return {"with_title": "title" in convention, "with_captions": "caption" in convention,
            "with_comments": "comment" in convention, "with_byline": "byline" in convention}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets-dir", default="../shared/datasets")
    parser.add_argument("--pages", type=int, default=60, help="first N pages of each dataset")
    parser.add_argument("--out", help="write the Markdown report here")
    args = parser.parse_args()
    pages = [p for name in DATASETS
             for p in read_jsonl(Path(args.datasets_dir) / f"{name}.jsonl.gz", args.pages)]
    started = time.process_time()
    changed = sum(translate(p.html, "de") != p.html for p in pages)
    lines = [f"Command: `{' '.join(sys.argv)}`", "",
             f"{len(pages)} pages ({args.pages} of each dataset); the German rewrite changes the "
             f"markup of {changed}.", "",
             "| markup | shingle P | shingle R | shingle F1 | LCS F1 |",
             "|---|---:|---:|---:|---:|"]
    for language in (None, *LANGUAGES):
        s = score(pages, language)
        label = "English (as published)" if language is None else f"keywords in {language}"
        lines.append(f"| {label} | {s['sh_p']:.4f} | {s['sh_r']:.4f} | {s['sh_f1']:.4f} "
                     f"| {s['lcs_f1']:.4f} |")
        print(label, f"{s['sh_f1']:.4f}", file=sys.stderr)
    hits = alias_hits(pages)
    lines += ["", "Alias matches among the id/class tokens of these pages as published (mostly "
              "English; the `readability` and modern-dev sets hold some French, German, Spanish "
              f"and Portuguese pages): {sum(hits.values())}" + (":" if hits else "."), ""]
    lines += [f"- {name}: {count}" for name, count in hits.most_common(30)]
    lines += ["", f"{time.process_time() - started:.0f} CPU s."]
    return publish("\n".join(lines), args.out)


if __name__ == "__main__":
    sys.exit(main())
