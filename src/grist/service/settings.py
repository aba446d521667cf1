"""What an operator sets when running the service: caps, the worker pool, fetching, site models."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from grist.service.guard import AddressGuard

MiB = 1024 * 1024


@dataclass(frozen=True)
class ServiceSettings:
    """The service's caps and resources (``grist serve --help`` documents each).

    workers:       extraction processes; one slow page holds one of them, never the others.
    max_in_flight: requests being fetched, waiting for a worker or extracted at once; one more
                   gets 503 at once (with Retry-After) instead of a growing queue.
    max_body:      largest request body accepted (413 above).
    time_budget:   seconds one request may take end to end, fetch, queue and extraction (504).
    fetch_timeout: seconds a URL download may take (within the time budget).
    guard:         which addresses URL fetching may reach (public ones by default).
    sites_dir:     a folder of site models (``<name>.json.gz``) for ``site=`` and
                   ``POST /sites/{name}/update``; None switches both off.
    site_model:    ``module:Class`` of the site models (a grist cross-page model class).
    worker_max_jobs: a worker process is replaced after this many jobs (0: never), which keeps
                   the memory of a long-running service flat whatever the pages leak.
    """

    workers: int = field(default_factory=lambda: max(1, os.cpu_count() or 1))
    max_in_flight: int = 64
    max_body: int = 10 * MiB
    time_budget: float = 10.0
    fetch_timeout: float = 8.0
    guard: AddressGuard = field(default_factory=AddressGuard)
    sites_dir: Path | None = None
    site_model: str = "grist.sites:SiteModel"
    worker_max_jobs: int = 10_000

    def __post_init__(self) -> None:
        if self.workers < 1 or self.max_in_flight < 1:
            raise ValueError("workers and max_in_flight must be at least 1")
        if self.time_budget <= 0 or self.max_body <= 0:
            raise ValueError("time_budget and max_body must be positive")
