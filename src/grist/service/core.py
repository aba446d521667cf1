"""One running service: admission (503), deadlines, fetching pages, and jobs for the workers.

Requests are admitted up to ``max_in_flight``; each gets a Budget, the time that covers receiving
the body, fetching, waiting for a worker and extraction (504 beyond), cut shorter by a request's
own ``time_budget``. URLs are fetched through the address guard on the event loop; pages are
extracted in the worker pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

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


@dataclass(frozen=True)
class Budget:
    """A request's time: the seconds it may take and its deadline (a ``time.monotonic`` value)."""

    seconds: float
    deadline: float

    def within(self, seconds: float | None) -> Budget:
        """This budget cut to ``seconds`` counted from the same start (a request's own
        ``time_budget``), when that is shorter."""
        if seconds is None or seconds >= self.seconds:
            return self
        return Budget(seconds, self.deadline - self.seconds + seconds)


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
    async def admitted(self) -> AsyncIterator[Budget]:
        """Admit one page (503 when full); yields the request's budget, from now."""
        if self.in_flight >= self.settings.max_in_flight:
            raise ServiceError(503, "overloaded", f"the service is working on "
                               f"{self.in_flight} pages, its limit; retry shortly",
                               {"Retry-After": "1"})
        self.in_flight += 1
        self.metrics.in_flight.inc()
        try:
            yield Budget(self.settings.time_budget,
                         time.monotonic() + self.settings.time_budget)
        finally:
            self.in_flight -= 1
            self.metrics.in_flight.dec()

    async def page(self, html: str | bytes | None, url: str | None, budget: Budget,
                   charset: str | None = None) -> Page:
        """The page given, or the page at ``url`` fetched through the guard, the download
        stopped at the budget's deadline (504; 502 for ``--fetch-timeout``)."""
        if html is not None:
            return Page(html, url, charset)
        assert url is not None
        try:
            async with asyncio.timeout(budget.deadline - time.monotonic()):
                fetched = await self.fetcher.fetch(url)
        except TimeoutError:
            raise self.over_budget(budget, "the download was still running; it was "
                                   "stopped") from None
        return Page(fetched.content, fetched.url, fetched.charset, fetched=True)

    @staticmethod
    def over_budget(budget: Budget, where: str) -> ServiceError:
        """The 504 of a request that used up its time budget; ``where`` says where it went."""
        return ServiceError(504, "timeout", f"the request took longer than its time budget of "
                            f"{budget.seconds:g} s: {where}")

    async def run(self, kind: str, spec: dict[str, Any], budget: Budget) -> Any:
        """A worker's answer to the job before the deadline: 504 past it, 500 if the worker
        died. The service's budget, not a request's shorter one, stops a worker: a client
        asking for less time must not get workers killed and restarted."""
        try:
            return await self.pool.run((kind, spec), budget.deadline)
        except PoolTimeout as exc:
            raise self.over_budget(budget, str(exc)) from None
        except WorkerCrashed as exc:
            raise ServiceError(500, "worker-crashed", str(exc)) from None

    def job(self, options: ExtractRequest | RawOptions, page: Page,
            budget: Budget) -> dict[str, Any]:
        """The worker's job description for ``page`` extracted with ``options`` in what is left
        of ``budget`` (the request's own)."""
        spec: dict[str, Any] = {
            "content": page.content, "url": page.url, "charset": page.charset,
            "method": options.method, "format": options.format,
            "options": options.library_options(), "fetched": page.fetched,
            "seconds": budget.deadline - time.monotonic(),
        }
        if options.site is not None:
            spec.update(self.site_spec(options.site))
        return spec

    async def extraction(self, kind: str, options: ExtractRequest | RawOptions,
                         html: str | bytes | None, budget: Budget, charset: str | None = None,
                         **extra: Any) -> Any:
        """A worker's ``kind`` job (extract, inspect) on the page given or fetched, within the
        request's own time budget (``options.time_budget``, fetch included)."""
        own = budget.within(options.time_budget)
        page = await self.page(html, options.url, own, charset)
        return await self.run(kind, {**self.job(options, page, own), **extra}, budget)

    async def site_update(self, spec: dict[str, Any], html: str | None, url: str | None,
                          budget: Budget) -> Any:
        """A worker's update of the site model of ``spec`` with the page given or fetched."""
        page = await self.page(html, url, budget)
        return await self.run("update_site", {**spec, "content": page.content, "url": page.url,
                                              "charset": page.charset}, budget)

    def site_spec(self, name: str) -> dict[str, Any]:
        sites_dir = self.settings.sites_dir
        if sites_dir is None:
            raise ServiceError(404, "sites-off", "site models are off; start the service with "
                               "--sites-dir to use them")
        model_path(sites_dir, name)  # refuses names that are not plain file names
        return {"site": name, "sites_dir": str(sites_dir), "site_model": self.settings.site_model}
