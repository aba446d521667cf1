"""Word and domain lists behind the noise rules: bundled files in ``grist/data`` plus user files.

Every list is a plain text file, one entry per line, ``#`` starts a comment line. A user extends a
list by passing extra files of the same format (``RuleConfig.extra_lists``); no code edits needed.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from importlib import resources
from pathlib import Path

from grist.errors import GristError

LIST_NAMES = ("ad_providers", "ad_keywords", "social", "legal", "iab_sizes", "public_suffixes")


def _parse(text: str) -> list[str]:
    lines = (line.strip().lower() for line in text.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


@lru_cache(maxsize=None)
def bundled_list(name: str) -> tuple[str, ...]:
    """The entries of the bundled list ``grist/data/<name>.txt``."""
    if name not in LIST_NAMES:
        raise GristError(f"unknown rule list {name!r}; lists: {', '.join(LIST_NAMES)}")
    path = resources.files("grist").joinpath("data", f"{name}.txt")
    return tuple(_parse(path.read_text(encoding="utf-8")))


@lru_cache(maxsize=64)
def _user_list(data: bytes) -> tuple[str, ...]:
    """Entries of a user list file's bytes (parsed once per content: a batch rereads the small
    file per page, never parses it twice, and a changed file is always read anew)."""
    return tuple(_parse(data.decode("utf-8")))


def load_list(name: str, extra_files: Iterable[str | Path] = ()) -> tuple[str, ...]:
    """The bundled list ``name`` followed by the entries of each user file in ``extra_files``."""
    entries = list(bundled_list(name))
    for path in extra_files:
        try:
            entries.extend(_user_list(Path(path).read_bytes()))
        except OSError as exc:
            raise GristError(f"cannot read {name} list {path}: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise GristError(f"{name} list {path} is not UTF-8 text") from None
    return tuple(dict.fromkeys(entries))
