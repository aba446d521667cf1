"""Stop-word lists: the bundled ones (en, de, fr, es), a user's file or set, and a language guess.

Stop-word density (seed 000 §4.1.2, Algorithm 1) is the share of a block's tokens found in the list.
Lists are plain text files in ``grist/data/stopwords/<lang>.txt``, one lower-case word per line.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from importlib import resources
from pathlib import Path

from grist.errors import GristError

AUTO = "auto"
EXTENDED_MARKER = "\n## extended"
_FOLDER = resources.files("grist").joinpath("data", "stopwords")
_ALIASES = {"english": "en", "german": "de", "deutsch": "de", "french": "fr", "français": "fr",
            "spanish": "es", "español": "es"}


def available_languages() -> list[str]:
    """Codes of the bundled stop-word lists."""
    codes = sorted(p.name[:-4] for p in _FOLDER.iterdir() if p.name.endswith(".txt"))
    return sorted(codes, key=lambda code: code != "en")  # English first: it wins ties


def _parse(text: str, extended: bool) -> frozenset[str]:
    """Words of a list file; the part after a ``## extended`` line only when ``extended``."""
    if not extended:
        text = text.partition(EXTENDED_MARKER)[0]
    words = (line.strip().lower() for line in text.splitlines())
    return frozenset(w for w in words if w and not w.startswith("#"))


@lru_cache(maxsize=32)
def _bundled(code: str, extended: bool) -> frozenset[str]:
    path = _FOLDER.joinpath(f"{code}.txt")
    if not path.is_file():
        raise GristError(
            f"no stop-word list for language {code!r}; bundled: {', '.join(available_languages())}"
            " (or pass a file path or a set of words)"
        )
    return _parse(path.read_text(encoding="utf-8"), extended)


def load_stopwords(lang: str | Path | Iterable[str], extended: bool = False) -> frozenset[str]:
    """Return a lower-cased stop-word set from a language code/name, a file path, or any word set.

    A list file holds function words, optionally followed by a ``## extended`` line and frequent
    words of running text; ``extended`` includes those (stop-word density wants them, term
    extraction does not).
    """
    if isinstance(lang, Path) or (isinstance(lang, str) and ("/" in lang or lang.endswith(".txt"))):
        try:
            return _parse(Path(lang).read_text(encoding="utf-8"), extended)
        except OSError as exc:
            raise GristError(f"cannot read stop-word file {lang}: {exc.strerror}") from None
    if isinstance(lang, str):
        code = lang.strip().lower()
        return _bundled(_ALIASES.get(code, code), extended)
    return frozenset(w.lower() for w in lang)


def guess_language(words: Iterable[str], candidates: Iterable[str] | None = None) -> str:
    """Pick the bundled language whose stop list covers the largest share of ``words`` (lower-case)."""
    tokens = list(words)
    best, best_hits = "en", -1
    for code in candidates or available_languages():
        stop = _bundled(code, True)
        hits = sum(map(stop.__contains__, tokens))
        if hits > best_hits:
            best, best_hits = code, hits
    return best
