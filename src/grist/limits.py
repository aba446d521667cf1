"""Documented caps that keep every extraction bounded in size, depth and time."""

from __future__ import annotations

import time
from dataclasses import dataclass

from grist.checks import check_seconds, check_whole
from grist.errors import ExtractionTimeout


@dataclass(frozen=True)
class Limits:
    """Caps applied to every page; hitting one raises a grist error that names the cap.

    max_bytes:   largest accepted input (bytes, or UTF-8 size of a str); default 20 MiB.
    max_tags:    most tags (``<`` characters followed by a letter, ``/`` or ``!``) a page may
                 hold, and most elements the HTML parser may build for it (it re-opens unclosed
                 formatting tags in every block: those count too), checked before parsing.
    max_depth:   deepest element nesting accepted (browsers stop nesting at 512; we allow more),
                 as the parser would build it, checked before parsing.
    max_blocks:  most text blocks a page may be cut into (each block costs every method
                 per-block features and memory); real pages hold a few thousand.
    time_budget: seconds one page may take end to end (checked between pipeline stages and
                 inside their long loops).
    """

    max_bytes: int = 20 * 1024 * 1024
    max_tags: int = 400_000
    max_depth: int = 4_000
    max_blocks: int = 100_000
    time_budget: float = 5.0

    def __post_init__(self) -> None:
        for name in ("max_bytes", "max_tags", "max_depth", "max_blocks"):
            check_whole(self, name, least=1)
        check_seconds(self, "time_budget", above_zero=True)  # (0 would fail every page)


class Budget:
    """A per-page deadline; ``check(stage)`` raises ExtractionTimeout once it has passed.

    Long stages call ``check`` inside their loops (every few thousand steps), so no stage runs
    far past the deadline. ``max_blocks`` is the page's block cap (Limits.max_blocks), checked
    by segmentation as blocks are made.
    """

    __slots__ = ("deadline", "max_blocks", "seconds")

    def __init__(self, seconds: float, max_blocks: int | None = None) -> None:
        self.seconds = seconds
        self.max_blocks = max_blocks
        self.deadline = time.perf_counter() + seconds

    def check(self, stage: str) -> None:
        if time.perf_counter() > self.deadline:
            raise ExtractionTimeout(
                f"page exceeded the time budget of {self.seconds:g} s during {stage} "
                "(raise the time budget to allow more: --time-budget, Limits.time_budget)"
            )
