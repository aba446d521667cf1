"""How many worker processes a run gets by default (apart, so that reading options is cheap)."""

from __future__ import annotations

import os


def default_jobs() -> int:
    """All the cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
