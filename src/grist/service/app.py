"""The ASGI application: extraction, methods, health, metrics, site updates and the inspector.

Requests are admitted up to ``max_in_flight`` (503 beyond), bodies are capped (413), URLs are
fetched through the address guard on the event loop, and pages are extracted in the worker pool,
all within the request's time budget (504); a client that leaves before its answer is ready stops
its work (499). Every error is JSON ``{"error", "reason"}`` with a status
that says whose fault it is; no traceback ever leaves the service.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from grist import __version__
from grist.errors import ConfigError, FetchError, GristError
from grist.io.atomic import remove_stale_temporaries
from grist.methods import DEFAULT_METHOD, available_methods, get_method
from grist.render import FORMATS
from grist.service import inspector
from grist.service.core import Page, Service, ServiceError
from grist.service.guard import BlockedAddressError
from grist.service.jobs import JobFailed
from grist.service.metrics import CONTENT_TYPE, MetricsMiddleware
from grist.service.options import LIBRARY_OPTIONS, ExtractRequest, PageInput, supported_options
from grist.service.reading import parse_request, request_media, while_connected
from grist.service.settings import ServiceSettings
from grist.service.sites import model_class

# Served with the extraction output: a browser opening it runs nothing and loads nothing active.
OUTPUT_POLICY = "default-src 'none'; img-src * data:; style-src 'unsafe-inline'; sandbox"


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

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        reasons = {404: "not-found", 405: "method-not-allowed"}
        message = {404: f"no endpoint {request.url.path}; see /openapi.json",
                   405: f"{request.method} is not allowed on {request.url.path}"}
        return _error(service, exc.status_code, reasons.get(exc.status_code, "http-error"),
                      message.get(exc.status_code, str(exc.detail)), dict(exc.headers or {}))

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        return _error(service, 422, "invalid-request", _validation_message(list(exc.errors())))

    @app.exception_handler(ValidationError)
    async def invalid_body(_: Request, exc: ValidationError) -> JSONResponse:
        return _error(service, 422, "invalid-request", _validation_message(list(exc.errors())))

    @app.exception_handler(Exception)
    async def internal(_: Request, exc: Exception) -> JSONResponse:
        # Starlette raises the bug on after this answer (uvicorn logs its traceback, then drops
        # the connection): "Connection: close" tells a keep-alive client not to reuse it.
        return _error(service, 500, "internal-error",
                      f"internal error ({type(exc).__name__}); see the service log",
                      {"Connection": "close"})


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
        try:
            service.settings.sites_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"cannot use --sites-dir {service.settings.sites_dir}: "
                              f"{exc.strerror or exc}") from None

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if service.settings.sites_dir is not None:
            remove_stale_temporaries(service.settings.sites_dir)
        await service.pool.start()
        try:
            yield
        finally:
            await service.pool.close()

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


_SITE_BODY = {"requestBody": {"required": True, "content": {
    "application/json": {"schema": PageInput.model_json_schema()}}}}


def _install_routes(app: FastAPI, service: Service) -> None:
    @app.get("/health", summary="Liveness and load")
    async def health() -> dict[str, Any]:
        return {"status": "ok", "version": __version__, "workers": service.pool.live,
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
        media = request_media(request, raw=True)
        async with service.admitted() as budget:
            options, html, charset = await parse_request(request, service, ExtractRequest,
                                                         budget, media)
            media_type, body, headers = await while_connected(
                request, service.extraction("extract", options, html, budget, charset))
        headers.update({"Content-Security-Policy": OUTPUT_POLICY,
                        "X-Content-Type-Options": "nosniff"})
        return Response(body, media_type=media_type, headers=headers)

    @app.post("/sites/{name}/update", summary="Teach a site model one page",
              openapi_extra=_SITE_BODY)
    async def update_site(name: str, request: Request) -> dict[str, Any]:
        spec = service.site_spec(name)
        media = request_media(request)
        async with service.admitted() as budget:
            page_input, html, _ = await parse_request(request, service, PageInput, budget, media)
            return await while_connected(
                request, service.site_update(spec, html, page_input.url, budget))


__all__ = ["Page", "create_app"]
