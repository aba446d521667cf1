"""Reading a request: the body within its cap (413) and the request's deadline (408), raw HTML
or JSON, and the options; and noticing a client that leaves before its answer is ready (499).

A JSON body carries the options and the page (``html`` or ``url``); any other body is the page
itself, with the options in the query string (query parameters also fill in what a JSON body
leaves out).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from typing import Any, TypeVar

from fastapi import Request
from starlette.requests import ClientDisconnect

from grist.errors import GristError
from grist.io.content_encoding import ContentDecoder, decodable
from grist.io.json_text import loads
from grist.service.core import Budget, Service, ServiceError
from grist.service.options import PageInput, RawOptions

RAW_TYPES = ("text/html", "application/xhtml+xml", "text/plain", "application/octet-stream", "")
_POLL = 0.1  # seconds between looks at whether the client is still connected
T = TypeVar("T")


async def read_body(request: Request, cap: int) -> bytes:
    """The request body, decompressed when it has a Content-Encoding grist undoes (gzip with
    every member, deflate, br, stacked ones too), refused with 413 as soon as it (or what it
    decompresses to) passes ``cap`` bytes, and with 400 when its compressed data is damaged or
    cut off. The decoder stops a piece's output at the cap, however much it would expand."""
    declared = request.headers.get("content-length", "")
    too_large = ServiceError(413, "too-large", f"the request body is larger than the limit of "
                             f"{cap} bytes")
    if declared.isdigit() and int(declared) > cap:
        raise too_large
    decoder = _decoder(request.headers.get("content-encoding", ""), cap)
    chunks, size = [], 0
    try:
        async for received in request.stream():
            chunk = decoder.decode(received)
            size += len(chunk)
            if size > cap or decoder.cut:
                raise too_large
            chunks.append(chunk)
        decoder.finish()
    except GristError as exc:
        raise ServiceError(400, "invalid-body", str(exc)) from None
    return b"".join(chunks)


def _decoder(encoding: str, cap: int) -> ContentDecoder:
    """The decoder of the body's Content-Encoding, its output stopped past ``cap`` (none for
    identity); 415 for a coding grist does not undo."""
    decoder = ContentDecoder(encoding, what="the compressed request body", limit=cap)
    if decoder.unknown:
        raise ServiceError(415, "unsupported-media-type", f"the request body's Content-Encoding "
                           f"{encoding!r} is not one grist undoes ({', '.join(decodable())})")
    return decoder


async def receive_body(request: Request, service: Service, budget: Budget) -> bytes:
    """The body (``read_body``) received within the request's ``budget``: 408 for a body that
    does not arrive in time (a stalled upload must not hold its slot), 499 for a client that
    went away before sending all of it."""
    try:
        async with asyncio.timeout(budget.deadline - time.monotonic()):
            return await read_body(request, service.settings.max_body)
    except TimeoutError:
        raise ServiceError(408, "body-timeout", f"the request body did not arrive within the "
                           f"time budget of {budget.seconds:g} s",
                           {"Connection": "close"}) from None
    except ClientDisconnect:
        raise ServiceError(499, "client-disconnected", "the client closed the connection before "
                           "sending the whole body") from None


async def while_connected(request: Request, work: Coroutine[Any, Any, T]) -> T:
    """What ``work`` (fetching and extracting the page, after the body) gives; cancelled, with
    a 499, as soon as the client closes its connection: nobody would read the answer, and a
    slow download or extraction must not go on holding a slot for it."""
    task = asyncio.ensure_future(work)
    try:
        while not (await asyncio.wait({task}, timeout=_POLL))[0]:
            if await request.is_disconnected():
                raise ServiceError(499, "client-disconnected", "the client closed the "
                                   "connection before its answer was ready")
        return task.result()
    finally:
        task.cancel()


def _media_type(request: Request) -> tuple[str, str | None]:
    value = request.headers.get("content-type", "")
    kind, _, params = value.partition(";")
    charset = None
    for param in params.split(";"):
        key, _, val = param.strip().partition("=")
        if key.lower() == "charset" and val:
            charset = val.strip('"')
    return kind.strip().lower(), charset


def request_media(request: Request, *, raw: bool = False) -> tuple[str, str | None]:
    """The body's media type and charset, 415 for one the route does not read (JSON; with
    ``raw``, a page too). Read from the headers alone, so it is said before the request waits
    for a slot or sends its body: a request that cannot succeed is not told to retry (503)."""
    kind, charset = _media_type(request)
    if kind == "application/json" or kind.endswith("+json"):
        return "application/json", charset
    if kind not in RAW_TYPES:
        raise ServiceError(415, "unsupported-media-type", f"send the page as text/html (or JSON "
                           f"with html or url), not {kind}")
    if not raw:
        raise ServiceError(415, "unsupported-media-type", f"{request.url.path} takes JSON with "
                           "html or url")
    return kind, charset


async def parse_request(request: Request, service: Service, model: type[PageInput],
                        budget: Budget, media: tuple[str, str | None]
                        ) -> tuple[Any, str | bytes | None, str | None]:
    """The request's options (a ``model``), its page content (None: fetch the url) and HTTP
    charset, its ``media`` (``request_media``) checked already. A JSON body carries the options
    and the page; any other body is the page itself and the options come from the query string
    (``RawOptions``)."""
    body = await receive_body(request, service, budget)
    kind, charset = media
    query = dict(request.query_params)
    if kind == "application/json":
        options = model.model_validate({**query, **_json_object(body)})
        return options, options.html, None
    if not body:
        raise ServiceError(422, "empty-input", "the request body is empty; send the page's HTML "
                           "or JSON with html or url")
    return RawOptions.model_validate(query), body, charset


def _json_object(body: bytes) -> dict[str, Any]:
    try:
        value = loads(body)
    except ValueError as exc:
        raise ServiceError(400, "invalid-json", f"the body is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise ServiceError(422, "invalid-request", "the JSON body must be an object")
    return value
