"""One running service: admission (503), deadlines, fetching pages, and jobs for the workers.

Requests are admitted up to ``max_in_flight``; each gets a deadline from the time budget that
covers fetching, waiting for a worker and extraction (504 beyond). URLs are fetched through the
address guard in threads; pages are extracted in the worker pool.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from grist.errors import FetchError
from grist.methods import DEFAULT_METHOD
from grist.service.fetching import Fetcher
from grist.service.metrics import Metrics
from grist.service.options import ExtractRequest, RawOptions
from grist.service.pool import PoolTimeout, WorkerCrashed, WorkerPool
from grist.service.settings import ServiceSettings
from grist.service.sites import model_path


class ServiceError(Exception):
    """An error answered as ``{"error": message, "reason": reason}`` with ``status``."""

    def __init__(self, status: int, reason: str, message: str,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.reason, self.message, self.headers = status, reason, message, headers


@dataclass
class Page:
    """A page to work on: its content and where it comes from."""

    content: bytes | str
    url: str | None = None
    charset: str | None = None
    fetched: bool = False


@dataclass
class Service:
    """One running service: its settings, worker pool, fetcher and metrics."""

    settings: ServiceSettings
    preload: dict[str, Page] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.pool = WorkerPool(self.settings.workers, self.settings.worker_max_jobs,
                               warm=(DEFAULT_METHOD,))
        self.fetcher = Fetcher(self.settings)
        self.metrics = Metrics(lambda: self.pool.busy, lambda: self.pool.restarts)
        self.in_flight = 0

    @contextlib.asynccontextmanager
    async def admitted(self) -> AsyncIterator[float]:
        """Admit one page (503 when full); yields the request's deadline (``time.monotonic``)."""
        if self.in_flight >= self.settings.max_in_flight:
            raise ServiceError(503, "overloaded", f"the service is working on "
                               f"{self.in_flight} pages, its limit; retry shortly",
                               {"Retry-After": "1"})
        self.in_flight += 1
        self.metrics.in_flight.inc()
        try:
            yield time.monotonic() + self.settings.time_budget
        finally:
            self.in_flight -= 1
            self.metrics.in_flight.dec()

    async def page(self, html: str | bytes | None, url: str | None, deadline: float,
                   charset: str | None = None) -> Page:
        """The page given, or the page at ``url`` fetched through the guard (504 when the
        request's time budget, not ``--fetch-timeout``, ran out during the download)."""
        if html is not None:
            return Page(html, url, charset)
        assert url is not None
        try:
            fetched = await self.fetcher.fetch(url, deadline)
        except FetchError as exc:
            if time.monotonic() < deadline:  # the fetch's own failure or --fetch-timeout
                raise
            raise self.over_budget(f"the download was cut short ({exc})") from None
        return Page(fetched.content, fetched.url, fetched.charset, fetched=True)

    def over_budget(self, where: str) -> ServiceError:
        """The 504 of a request that used up its time budget; ``where`` says where it went."""
        return ServiceError(504, "timeout", f"the request took longer than its time budget of "
                            f"{self.settings.time_budget:g} s: {where}")

    async def run(self, kind: str, spec: dict[str, Any], deadline: float) -> Any:
        """A worker's answer to the job before ``deadline``: 504 past it, 500 if the worker died."""
        try:
            return await self.pool.run((kind, spec), deadline)
        except PoolTimeout as exc:
            raise self.over_budget(str(exc)) from None
        except WorkerCrashed as exc:
            raise ServiceError(500, "worker-crashed", str(exc)) from None

    def job(self, options: ExtractRequest | RawOptions, page: Page,
            deadline: float) -> dict[str, Any]:
        """The worker's job description for ``page`` extracted with ``options``."""
        if options.time_budget is not None:
            deadline = min(deadline, time.monotonic() + options.time_budget)
        spec: dict[str, Any] = {
            "content": page.content, "url": page.url, "charset": page.charset,
            "method": options.method, "format": options.format,
            "options": options.library_options(), "fetched": page.fetched,
            "seconds": deadline - time.monotonic(),
        }
        if options.site is not None:
            spec.update(self.site_spec(options.site))
        return spec

    def site_spec(self, name: str) -> dict[str, Any]:
        sites_dir = self.settings.sites_dir
        if sites_dir is None:
            raise ServiceError(404, "sites-off", "site models are off; start the service with "
                               "--sites-dir to use them")
        model_path(sites_dir, name)  # refuses names that are not plain file names
        return {"site": name, "sites_dir": str(sites_dir), "site_model": self.settings.site_model}
