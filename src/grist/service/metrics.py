"""Prometheus metrics of one service instance, and the ASGI middleware that records requests.

Each app has its own registry (no process-wide state): requests by endpoint and status, errors
by kind, a latency histogram per endpoint, pages in flight, busy workers and worker restarts.
The endpoint label is the route's template (``/sites/{name}/update``), so it stays bounded.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_TYPE = CONTENT_TYPE_LATEST
_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class Metrics:
    """The service's instruments in a registry of their own."""

    def __init__(self, busy_workers: Callable[[], float], restarts: Callable[[], float]) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter("grist_http_requests", "HTTP requests answered",
                                ("endpoint", "method", "status"), registry=self.registry)
        self.errors = Counter("grist_errors", "Requests that failed, by kind (the error's reason)",
                              ("reason",), registry=self.registry)
        self.latency = Histogram("grist_http_request_duration_seconds",
                                 "Time from request to response", ("endpoint",),
                                 buckets=_BUCKETS, registry=self.registry)
        self.in_flight = Gauge("grist_pages_in_flight",
                               "Pages being fetched, waiting for a worker or extracted",
                               registry=self.registry)
        busy = Gauge("grist_workers_busy", "Extraction workers running a job",
                     registry=self.registry)
        busy.set_function(busy_workers)
        restarted = Gauge("grist_worker_restarts", "Workers replaced (deadline, crash, job quota)",
                          registry=self.registry)
        restarted.set_function(restarts)

    def exposition(self) -> bytes:
        return generate_latest(self.registry)


def _endpoint(scope: Scope) -> str:
    """The template of the route that answered (``unmatched`` for none). FastAPI records its own
    routes in the scope, not the plain ones it adds (``/openapi.json``, ``/docs``): those are
    found again by matching."""
    route = scope.get("route")
    if route is None:
        route = next((r for r in scope["app"].routes if r.matches(scope)[0] != Match.NONE), None)
    return getattr(route, "path", None) or "unmatched"


class MetricsMiddleware:
    """Counts and times every HTTP request, whatever answered it (a route, a 404, a 413)."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def record_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, record_status)
        finally:
            endpoint = _endpoint(scope)
            self.metrics.requests.labels(endpoint, scope["method"], str(status)).inc()
            self.metrics.latency.labels(endpoint).observe(time.perf_counter() - started)
