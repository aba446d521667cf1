"""``grist serve``: extraction over HTTP, and the block inspector (the ``service`` extra).

``create_app(settings)`` builds the ASGI app (FastAPI); ``grist serve`` runs it with uvicorn.
See ``docs/service.md`` for the endpoints, the safety settings and deployment advice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from grist.optional import require
from grist.service.settings import ServiceSettings

if TYPE_CHECKING:  # pragma: no cover
    from fastapi import FastAPI


def create_app(settings: ServiceSettings | None = None, **options: Any) -> FastAPI:
    """The service as an ASGI app (see ``grist.service.app.create_app``); GristError naming the
    extra to install when the service's dependencies are missing."""
    for module in ("fastapi", "uvicorn", "prometheus_client", "nh3"):
        require(module, "service", "the service")
    from grist.service.app import create_app as build

    return build(settings, **options)


__all__ = ["ServiceSettings", "create_app"]
