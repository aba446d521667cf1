"""What a worker process runs: extraction, the inspector's view, site-model updates.

A job is ``(kind, spec)``; the answer ``("ok", payload)`` or ``("error", (status, reason,
message))``: every failure becomes an HTTP status and a plain message here, so the server never
sees a traceback. Extractors (with their loaded models) are kept per configuration for the
worker's lifetime: the same request always gives the same result.
"""

from __future__ import annotations

import re
import signal
import sys
import traceback
from collections import OrderedDict
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import nh3

from grist.api import Extractor
from grist.document import REPORTED_ROLES, RawPage
from grist.errors import ExtractionTimeout, GristError, LimitExceededError, ModelError
from grist.limits import Limits
from grist.methods import method_config
from grist.render import RenderOptions
from grist.render.json_output import dumps, result_dict
from grist.service.sites import UnknownSiteError, load_site, model_class, update_site
from grist.service.view import locate_blocks, page_view

MEDIA_TYPES = {"text": "text/plain; charset=utf-8", "markdown": "text/markdown; charset=utf-8",
               "json": "application/json", "html": "text/html; charset=utf-8",
               "xml": "application/tei+xml; charset=utf-8", "csv": "text/csv; charset=utf-8"}
_HTML_TAGS = {"html", "head", "meta", "title", "body", "article", "h1", "h2", "h3", "h4", "h5",
              "h6", "p", "ul", "ol", "li", "table", "thead", "tbody", "tr", "th", "td", "pre",
              "code", "blockquote", "a", "img", "em", "strong", "b", "i", "br", "figure",
              "figcaption", "header", "footer", "section", "time", "span", "div", "sup", "sub"}
_HTML_ATTRIBUTES = {"a": {"href", "title"}, "img": {"src", "alt", "title"},
                    "meta": {"charset", "name", "content"},
                    "code": {"class"}, "td": {"colspan", "rowspan"}, "th": {"colspan", "rowspan"},
                    "ol": {"start"}, "li": {"value"}}
_CACHE_SIZE = 16
_URL_SCHEMES = {"http", "https", "mailto", "ftp", "tel"}  # (those the HTML renderer writes)


class JobFailed(Exception):
    """A job's failure as the service reports it: HTTP status, reason code, message."""

    def __init__(self, status: int, reason: str, message: str) -> None:
        super().__init__(message)
        self.status, self.reason, self.message = status, reason, message


# The page ``grist.render.html_output`` writes: the html element's escaped lang, head, body.
_PAGE = re.compile(r'<html(?P<lang> lang="[^"<>]*")?>\n<head>\n(?P<head>.*)\n</head>\n'
                   r"<body>\n(?P<body>.*)\n</body>\n</html>\s*\Z", re.S)


def _clean(fragment: str) -> str:
    return nh3.clean(fragment, tags=_HTML_TAGS, attributes=_HTML_ATTRIBUTES,
                     url_schemes=_URL_SCHEMES, link_rel="noopener noreferrer nofollow")


def _canonical_only(tag: str, attribute: str, value: str) -> str | None:
    return None if tag == "link" and attribute == "rel" and value != "canonical" else value


def _clean_head(fragment: str) -> str:
    """The head's title and metadata; a ``link`` may only name the canonical URL."""
    return nh3.clean(fragment, tags={"title", "meta", "link"},
                     attributes={"meta": _HTML_ATTRIBUTES["meta"], "link": {"rel", "href"}},
                     url_schemes={"http", "https"}, link_rel=None,
                     attribute_filter=_canonical_only)


def sanitise_html(page: str) -> str:
    """The HTML output through an allow-list sanitiser (ammonia): whatever a renderer emits,
    no script, event handler or ``javascript:`` URL leaves the service. Head and body are
    cleaned apart (the sanitiser reads one fragment and drops ``html``, ``head`` and ``body``),
    so the page keeps the shape and the metadata ``grist extract --format html`` gives."""
    match = _PAGE.search(page)
    if match is None:
        return "<!DOCTYPE html>\n" + _clean(page)
    return (f"<!DOCTYPE html>\n<html{match['lang'] or ''}>\n<head>\n{_clean_head(match['head'])}\n"
            f"</head>\n<body>\n{_clean(match['body'])}\n</body>\n</html>")


class Worker:
    """A worker's state: Extractors by configuration (least recently used dropped first)."""

    def __init__(self) -> None:
        self.extractors: OrderedDict[tuple, Extractor] = OrderedDict()

    def extractor(self, method: str, output: str, options: dict[str, Any],
                  seconds: float) -> Extractor:
        key = (method, output, tuple(sorted(options.items())))
        extractor = self.extractors.get(key)
        if extractor is None:
            extractor = Extractor(method=method, config=method_config(method), output=output,
                                  **options)
            self.extractors[key] = extractor
            if len(self.extractors) > _CACHE_SIZE:
                self.extractors.popitem(last=False)
        self.extractors.move_to_end(key)
        extractor.limits = Limits(time_budget=max(seconds, 0.01))
        return extractor

    def _result(self, spec: dict[str, Any], output: str):
        page = RawPage(spec["content"], url=spec.get("url"), http_charset=spec.get("charset"))
        site = None
        if spec.get("site"):
            site = load_site(Path(spec["sites_dir"]), spec["site"], model_class(spec["site_model"]))
        extractor = self.extractor(spec["method"], output, spec.get("options", {}),
                                   spec["seconds"])
        return extractor(page, site=site)

    def extract(self, spec: dict[str, Any]) -> tuple[str, bytes, dict[str, str]]:
        fmt = spec["format"]
        result = self._result(spec, fmt)
        body = result.render(fmt)
        if fmt == "html":
            body = sanitise_html(body)
        headers = {"X-Grist-Method": result.method, "X-Grist-Blocks": str(len(result.blocks)),
                   "X-Grist-Kept": str(len(result.content_blocks))}
        return MEDIA_TYPES.get(fmt, "text/plain"), body.encode("utf-8"), headers

    def inspect(self, spec: dict[str, Any]) -> bytes:
        result = self._result(spec, "json")
        record = result_dict(result, RenderOptions(explain=True))  # every block's full record
        for block in record["blocks"]:
            block.pop("features", None)  # the reason names the features that decided
        view = page_view(result.document.html, result.url, remote=spec.get("remote", True))
        ranges, counts = locate_blocks(result.blocks, view.texts)
        answer = {"result": record, "blocks": ranges, "located": counts,
                  "apart_roles": sorted(REPORTED_ROLES),
                  "page": view.html if spec.get("view", True) else None}
        if spec.get("fetched"):
            answer["source"] = result.document.html
        return dumps(answer).encode("utf-8")

    def update_site(self, spec: dict[str, Any]) -> dict[str, Any]:
        page = RawPage(spec["content"], url=spec.get("url"), http_charset=spec.get("charset"))
        return update_site(Path(spec["sites_dir"]), spec["site"], model_class(spec["site_model"]),
                           page)

    def warm(self, methods: tuple[str, ...]) -> None:
        """Load the methods' resources (the shipped model) before the first request needs them."""
        for method in methods:
            self.extractor(method, "text", {}, Limits().time_budget)


def _failure(exc: BaseException) -> tuple[int, str, str]:
    """The HTTP status, reason and message of a job's exception."""
    if isinstance(exc, ExtractionTimeout):
        return 504, exc.reason, str(exc)
    if isinstance(exc, UnknownSiteError):
        return 404, exc.reason, str(exc)
    if isinstance(exc, LimitExceededError):
        return 422, exc.reason, str(exc)
    if isinstance(exc, ModelError):
        return 500, exc.reason, str(exc)
    if isinstance(exc, GristError):
        return 422, exc.reason, str(exc)
    if isinstance(exc, MemoryError):
        return 422, "limit-exceeded", "the page needs more memory than the worker has"
    return 500, "internal-error", f"internal error ({type(exc).__name__}); see the service log"


def run_job(worker: Worker, job: tuple) -> tuple:
    kind, spec = job
    try:
        if kind not in ("extract", "inspect", "update_site"):
            raise ValueError(f"unknown job {kind!r}")
        return "ok", getattr(worker, kind)(spec)
    except Exception as exc:  # noqa: BLE001 - every failure becomes an answer, never a crash
        status, reason, message = _failure(exc)
        if status == 500:
            print(f"grist worker: {kind} failed:\n{traceback.format_exc()}", file=sys.stderr)
        return "error", (status, reason, message)


def worker_main(conn: Connection, warm: tuple[str, ...]) -> None:
    """A worker process: warm up, say ready, then answer jobs until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server stops its workers itself
    worker = Worker()
    try:
        worker.warm(warm)
    except GristError as exc:
        print(f"grist worker: cannot load {', '.join(warm)}: {exc}", file=sys.stderr)
    conn.send(("ready",))
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        conn.send(run_job(worker, job))


__all__ = ["JobFailed", "MEDIA_TYPES", "Worker", "run_job", "worker_main"]
