"""The inspector's routes: its page and assets, the analysis of a page, and preloaded pages.

``GET /inspect`` serves a static page (``static/``) whose script asks ``POST /inspect`` for a
page's extraction (every block with its label, role, score, reason, and its text-node range) and
the page itself made inert (``grist.service.view``), shown in an iframe sandboxed without
scripts. The inspector's own page runs only its own script (Content-Security-Policy).
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import Response

from grist.html.load import load_document
from grist.service.core import Service, ServiceError
from grist.service.options import InspectRequest
from grist.service.reading import parse_request, request_media, while_connected

# The parent's policy is inherited by the srcdoc frame: images, styles and fonts of the page
# may load from anywhere; scripts only from the service; nothing may be framed but srcdoc.
POLICY = ("default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self' "
          "'unsafe-inline' *; img-src * data:; font-src * data:; media-src * data:; "
          "frame-src 'self' about:; child-src 'self' about:; form-action 'none'; "
          "base-uri 'self' http: https:; frame-ancestors 'self'; object-src 'none'")
ASSETS = {"inspect.js": "text/javascript; charset=utf-8", "inspect.css": "text/css; charset=utf-8",
          "inspect.html": "text/html; charset=utf-8"}

_INSPECT_BODY = {"requestBody": {"required": True, "content": {
    "application/json": {"schema": InspectRequest.model_json_schema()}}}}


def asset(name: str) -> bytes:
    return resources.files("grist.service").joinpath("static", name).read_bytes()


def _asset_response(name: str) -> Response:
    return Response(asset(name), media_type=ASSETS[name],
                    headers={"Content-Security-Policy": POLICY, "X-Content-Type-Options": "nosniff",
                             "Referrer-Policy": "no-referrer", "Cache-Control": "no-cache"})


def install(app: FastAPI, service: Service) -> None:
    """Add the inspector's routes to ``app``."""
    @app.get("/inspect", summary="The block inspector (a web page)", response_class=Response)
    async def inspector_page() -> Response:
        return _asset_response("inspect.html")

    @app.get("/inspect/{name}", include_in_schema=False, response_class=Response)
    async def inspector_asset(name: str) -> Response:
        if name not in ASSETS:
            raise ServiceError(404, "not-found", f"no inspector file {name!r}")
        return _asset_response(name)

    @app.post("/inspect", summary="Every block of a page with its decision, and the page made "
              "inert for display", response_class=Response, openapi_extra=_INSPECT_BODY)
    async def inspect(request: Request) -> Response:
        media = request_media(request)
        async with service.admitted() as budget:
            options, html, _charset = await parse_request(request, service, InspectRequest,
                                                           budget, media)
            body = await while_connected(request, service.extraction(
                "inspect", options, html, budget, view=options.view, remote=options.remote))
        return Response(body, media_type="application/json")

    @app.get("/inspect/preload/{token}", include_in_schema=False)
    async def preloaded(token: str) -> dict[str, Any]:
        page = service.preload.get(token)
        if page is None:
            raise ServiceError(404, "not-found", "no preloaded page with this token")
        content = page.content
        if isinstance(content, bytes):
            content = load_document(content, page.url, http_charset=page.charset).html
        return {"html": content, "url": page.url}
