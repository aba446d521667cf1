"""Documented caps that keep every extraction bounded in size, depth and time."""

from __future__ import annotations

import time
from dataclasses import dataclass

from grist.errors import ExtractionTimeout


@dataclass(frozen=True)
class Limits:
    """Caps applied to every page; hitting one raises a grist error that names the cap.

    max_bytes:   largest accepted input (bytes, or UTF-8 size of a str); default 20 MiB.
    max_tags:    most tags (``<`` characters followed by a letter or ``/``) a page may hold.
    max_depth:   deepest element nesting accepted (browsers stop nesting at 512; we allow more).
    time_budget: seconds one page may take end to end (checked between pipeline stages).
    """

    max_bytes: int = 20 * 1024 * 1024
    max_tags: int = 400_000
    max_depth: int = 4_000
    time_budget: float = 5.0


class Budget:
    """A per-page deadline; ``check(stage)`` raises ExtractionTimeout once it has passed."""

    __slots__ = ("deadline", "seconds")

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.deadline = time.perf_counter() + seconds

    def check(self, stage: str) -> None:
        if time.perf_counter() > self.deadline:
            raise ExtractionTimeout(
                f"page exceeded the time budget of {self.seconds:g} s during {stage} "
                "(raise Limits.time_budget to allow more)"
            )
