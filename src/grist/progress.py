"""One progress-bar policy for every command: on stderr, only when it is a terminal and not --quiet."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

from tqdm import tqdm


def progress(
    iterable: Iterable[Any] | None = None, *, quiet: bool = False, **options: Any
) -> tqdm:
    """A tqdm bar on stderr, silent when ``quiet`` or when stderr is not a terminal (logs, CI)."""
    return tqdm(iterable, file=sys.stderr, disable=quiet or not sys.stderr.isatty(), **options)


def note(message: str) -> None:
    """One line on stderr that keeps any progress bars below it intact; printed whether or not
    stderr is a terminal, so a long run in a log says what it has finished."""
    tqdm.write(message, file=sys.stderr)
