"""Reading a request: the body within its cap (413), raw HTML or JSON, and the options.

A JSON body carries the options and the page (``html`` or ``url``); any other body is the page
itself, with the options in the query string (query parameters also fill in what a JSON body
leaves out).
"""

from __future__ import annotations

import zlib
from typing import Any

from fastapi import Request

from grist.io.json_text import loads
from grist.service.core import Service, ServiceError
from grist.service.options import PageInput, RawOptions

RAW_TYPES = ("text/html", "application/xhtml+xml", "text/plain", "application/octet-stream", "")


async def read_body(request: Request, cap: int) -> bytes:
    """The request body, decompressed when its Content-Encoding is gzip or deflate, refused with
    413 as soon as it (or what it decompresses to) passes ``cap`` bytes."""
    declared = request.headers.get("content-length", "")
    too_large = ServiceError(413, "too-large", f"the request body is larger than the limit of "
                             f"{cap} bytes")
    if declared.isdigit() and int(declared) > cap:
        raise too_large
    inflater = _inflater(request.headers.get("content-encoding", ""))
    chunks, size = [], 0
    async for chunk in request.stream():
        if inflater is not None:
            chunk = _inflate(inflater, chunk, cap - size + 1)
        size += len(chunk)
        if size > cap:
            raise too_large
        chunks.append(chunk)
    if inflater is not None and not inflater.eof and size:
        raise ServiceError(400, "invalid-body", "the compressed request body is cut off")
    return b"".join(chunks)


def _inflater(encoding: str) -> Any:
    """A decompressor for the body's Content-Encoding (None: identity); 415 for others."""
    name = encoding.strip().lower()
    if name in ("", "identity"):
        return None
    if name in ("gzip", "x-gzip", "deflate"):
        return zlib.decompressobj(47)  # gzip or zlib header, told apart by zlib
    raise ServiceError(415, "unsupported-media-type", f"the request body's Content-Encoding "
                       f"{encoding!r} is not one grist reads (gzip, deflate)")


def _inflate(inflater: Any, chunk: bytes, room: int) -> bytes:
    """What ``chunk`` decompresses to, at most ``room`` bytes (a bomb stops at the cap)."""
    try:
        return inflater.decompress(chunk, room)
    except zlib.error as exc:
        raise ServiceError(400, "invalid-body", f"the compressed request body is damaged "
                           f"({exc})") from None


def _media_type(request: Request) -> tuple[str, str | None]:
    value = request.headers.get("content-type", "")
    kind, _, params = value.partition(";")
    charset = None
    for param in params.split(";"):
        key, _, val = param.strip().partition("=")
        if key.lower() == "charset" and val:
            charset = val.strip('"')
    return kind.strip().lower(), charset


async def parse_request(request: Request, service: Service, model: type[PageInput], *,
                        raw: bool = False) -> tuple[Any, str | bytes | None, str | None]:
    """The request's options (a ``model``), its page content (None: fetch the url) and HTTP
    charset. A JSON body carries the options and the page; with ``raw``, any other body is the
    page itself and the options come from the query string (``RawOptions``)."""
    body = await read_body(request, service.settings.max_body)
    kind, charset = _media_type(request)
    query = dict(request.query_params)
    if kind == "application/json" or kind.endswith("+json"):
        options = model.model_validate({**query, **_json_object(body)})
        return options, options.html, None
    if kind not in RAW_TYPES:
        raise ServiceError(415, "unsupported-media-type", f"send the page as text/html (or JSON "
                           f"with html or url), not {kind}")
    if not raw:
        raise ServiceError(415, "unsupported-media-type", f"{request.url.path} takes JSON with "
                           "html or url")
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
