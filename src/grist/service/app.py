"""The ASGI application: extraction, methods, health, metrics, site updates and the inspector.

Requests are admitted up to ``max_in_flight`` (503 beyond), bodies are capped (413), URLs are
fetched through the address guard in threads, and pages are extracted in the worker pool, all
within the request's time budget (504). Every error is JSON ``{"error", "reason"}`` with a status
that says whose fault it is; no traceback ever leaves the service.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import ValidationError

from grist import __version__
from grist.errors import FetchError, GristError
from grist.methods import DEFAULT_METHOD, available_methods, get_method
from grist.render import FORMATS
from grist.service import inspector
from grist.service.fetching import Fetcher
from grist.service.guard import BlockedAddressError
from grist.service.jobs import JobFailed
from grist.service.metrics import CONTENT_TYPE, Metrics, MetricsMiddleware
from grist.service.options import (
    LIBRARY_OPTIONS,
    ExtractRequest,
    InspectRequest,
    PageInput,
    RawOptions,
    supported_options,
)
from grist.service.pool import PoolTimeout, WorkerCrashed, WorkerPool
from grist.service.settings import ServiceSettings
from grist.service.sites import model_class, model_path, remove_stale_temporaries

RAW_TYPES = ("text/html", "application/xhtml+xml", "text/plain", "application/octet-stream", "")


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
        """The page given, or the page at ``url`` fetched through the guard."""
        if html is not None:
            return Page(html, url, charset)
        assert url is not None
        fetched = await self.fetcher.fetch(url, deadline)
        return Page(fetched.content, fetched.url, fetched.charset, fetched=True)

    async def run(self, kind: str, spec: dict[str, Any], deadline: float) -> Any:
        try:
            return await self.pool.run((kind, spec), deadline)
        except PoolTimeout as exc:
            raise ServiceError(504, "timeout", f"the request took longer than its time budget "
                               f"of {self.settings.time_budget:g} s: {exc}") from None
        except WorkerCrashed as exc:
            raise ServiceError(500, "worker-crashed", str(exc)) from None

    def job(self, options: ExtractRequest | RawOptions, page: Page, deadline: float) -> dict[str, Any]:
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


def _error(service: Service, status: int, reason: str, message: str,
           headers: dict[str, str] | None = None) -> JSONResponse:
    service.metrics.errors.labels(reason).inc()
    return JSONResponse({"error": message, "reason": reason}, status_code=status, headers=headers)


def _validation_message(errors: list[Any]) -> str:
    parts = []
    for error in errors:
        where = ".".join(str(p) for p in error.get("loc", ()) if p not in ("body", "query"))
        message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
        parts.append(f"{where}: {message}" if where else message)
    return "invalid request: " + "; ".join(parts)


def _install_error_handlers(app: FastAPI, service: Service) -> None:
    @app.exception_handler(ServiceError)
    async def service_error(_: Request, exc: ServiceError) -> JSONResponse:
        return _error(service, exc.status, exc.reason, exc.message, exc.headers)

    @app.exception_handler(JobFailed)
    async def job_failed(_: Request, exc: JobFailed) -> JSONResponse:
        return _error(service, exc.status, exc.reason, exc.message)

    @app.exception_handler(BlockedAddressError)
    async def blocked(_: Request, exc: BlockedAddressError) -> JSONResponse:
        return _error(service, 403, exc.reason, str(exc))

    @app.exception_handler(FetchError)
    async def fetch_failed(_: Request, exc: FetchError) -> JSONResponse:
        return _error(service, 502, exc.reason, f"could not fetch the page: {exc}")

    @app.exception_handler(GristError)
    async def grist_error(_: Request, exc: GristError) -> JSONResponse:
        return _error(service, 422, exc.reason, str(exc))

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        return _error(service, 422, "invalid-request", _validation_message(list(exc.errors())))

    @app.exception_handler(ValidationError)
    async def invalid_body(_: Request, exc: ValidationError) -> JSONResponse:
        return _error(service, 422, "invalid-request", _validation_message(list(exc.errors())))

    @app.exception_handler(Exception)
    async def internal(_: Request, exc: Exception) -> JSONResponse:
        return _error(service, 500, "internal-error",
                      f"internal error ({type(exc).__name__}); see the service log")


async def read_body(request: Request, cap: int) -> bytes:
    """The request body, refused with 413 as soon as it passes ``cap`` bytes."""
    declared = request.headers.get("content-length", "")
    too_large = ServiceError(413, "too-large", f"the request body is larger than the limit of "
                             f"{cap} bytes")
    if declared.isdigit() and int(declared) > cap:
        raise too_large
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > cap:
            raise too_large
        chunks.append(chunk)
    return b"".join(chunks)


def _media_type(request: Request) -> tuple[str, str | None]:
    value = request.headers.get("content-type", "")
    kind, _, params = value.partition(";")
    charset = None
    for param in params.split(";"):
        key, _, val = param.strip().partition("=")
        if key.lower() == "charset" and val:
            charset = val.strip('"')
    return kind.strip().lower(), charset


async def parse_request(request: Request, service: Service, model: type[ExtractRequest]
                        ) -> tuple[Any, str | bytes | None, str | None]:
    """The request's options, its page content (None: fetch the url) and HTTP charset.

    A JSON body carries options and the page; any other body is the page itself, with the
    options in the query string (query parameters also fill in what a JSON body leaves out).
    """
    body = await read_body(request, service.settings.max_body)
    kind, charset = _media_type(request)
    query = dict(request.query_params)
    if kind == "application/json" or kind.endswith("+json"):
        options = model.model_validate({**query, **_json_object(body)})
        return options, options.html, None
    if kind not in RAW_TYPES:
        raise ServiceError(415, "unsupported-media-type", f"send the page as text/html (or JSON "
                           f"with html or url), not {kind}")
    if model is InspectRequest:
        raise ServiceError(415, "unsupported-media-type", "the inspector takes JSON requests")
    if not body:
        raise ServiceError(422, "empty-input", "the request body is empty; send the page's HTML "
                           "or JSON with html or url")
    return RawOptions.model_validate(query), body, charset


def _json_object(body: bytes) -> dict[str, Any]:
    try:
        value = json.loads(body)
    except ValueError as exc:
        raise ServiceError(400, "invalid-json", f"the body is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise ServiceError(422, "invalid-request", "the JSON body must be an object")
    return value


def _methods() -> dict[str, Any]:
    listed = []
    for name in available_methods():
        method = get_method(name)
        listed.append({"name": name, "summary": method.summary, "variants": list(method.variants),
                       "needs_dom": method.needs_dom, "default": name == DEFAULT_METHOD})
    supported = supported_options()
    return {"default": DEFAULT_METHOD, "methods": listed, "formats": list(FORMATS),
            "options": {"supported": supported,
                        "not_yet": [o for o in LIBRARY_OPTIONS if o not in supported]}}


def create_app(settings: ServiceSettings | None = None, *,
               preload: dict[str, Page] | None = None) -> FastAPI:
    """The service as an ASGI app; the worker pool starts and stops with the app's lifespan.

    ``preload`` holds pages ``grist inspect`` opens in the inspector (by token).
    """
    service = Service(settings or ServiceSettings(), preload or {})
    if service.settings.sites_dir is not None:
        model_class(service.settings.site_model)  # a clear error now, not on the first update

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if service.settings.sites_dir is not None:
            service.settings.sites_dir.mkdir(parents=True, exist_ok=True)
            remove_stale_temporaries(service.settings.sites_dir)
        await service.pool.start()
        try:
            yield
        finally:
            await service.pool.close()
            service.fetcher.close()

    app = FastAPI(title="grist", version=__version__, lifespan=lifespan,
                  summary="Main-content extraction with the reason for every block's decision.",
                  description="POST a page (raw HTML, or JSON with html or url) to /extract; "
                  "open /inspect in a browser to see why each block was kept or dropped.")
    app.state.service = service
    app.add_middleware(MetricsMiddleware, metrics=service.metrics)
    _install_error_handlers(app, service)
    _install_routes(app, service)
    inspector.install(app, service)
    return app


_EXTRACT_BODY = {
    "requestBody": {"required": True, "content": {
        "application/json": {"schema": ExtractRequest.model_json_schema()},
        "text/html": {"schema": {"type": "string"}, "example": "<html>...</html>"},
    }},
    "responses": {"200": {"description": "the extracted page in the requested format",
                          "content": {"text/plain": {}, "text/markdown": {},
                                      "application/json": {}, "text/html": {}}}},
}


def _install_routes(app: FastAPI, service: Service) -> None:
    @app.get("/health", summary="Liveness and load")
    async def health() -> dict[str, Any]:
        return {"status": "ok", "version": __version__, "workers": service.pool.size,
                "busy": service.pool.busy, "in_flight": service.in_flight}

    @app.get("/methods", summary="Methods, variants, formats and request options")
    async def methods() -> dict[str, Any]:
        return _methods()

    @app.get("/metrics", summary="Prometheus metrics", response_class=Response)
    async def metrics() -> Response:
        return Response(service.metrics.exposition(), media_type=CONTENT_TYPE)

    @app.post("/extract", summary="Extract the main content of a page",
              openapi_extra=_EXTRACT_BODY, response_class=Response)
    async def extract(request: Request) -> Response:
        async with service.admitted() as deadline:
            options, html, charset = await parse_request(request, service, ExtractRequest)
            page = await service.page(html, options.url, deadline, charset)
            media_type, body, headers = await service.run(
                "extract", service.job(options, page, deadline), deadline)
        return Response(body, media_type=media_type, headers=headers)

    @app.post("/sites/{name}/update", summary="Teach a site model one page")
    async def update_site(name: str, page_input: PageInput) -> dict[str, Any]:
        spec = service.site_spec(name)
        async with service.admitted() as deadline:
            page = await service.page(page_input.html, page_input.url, deadline)
            spec.update(content=page.content, url=page.url, charset=page.charset)
            return await service.run("update_site", spec, deadline)


__all__ = ["Page", "Service", "ServiceError", "create_app", "parse_request"]
