"""One versioned file format for every model grist saves: auto's boosted trees, seed 000's tree,
site models; and loading that never serves a stale model.

A model file is JSON (gzip-compressed when its name ends in ``.gz``):
``{"format": "grist-model", "kind": KIND, "version": N, "payload": {...}}``. Reading checks all
three and raises ``ModelError`` with a message a user can act on. Writing goes to a temporary
file renamed into place, so a reader never sees half a model.

Parsed models are cached by the *content* of the file (a 128-bit hash of its bytes), never by
its path: rewriting a model file (``grist train``) changes the next load's result, and loading
the same bytes twice costs one parse. Each load returns its own shallow copy, so assigning to
one model's attributes never reaches another; models keep their arrays read-only.
"""

from __future__ import annotations

import copy
import gzip
import json
import zlib
from collections import OrderedDict
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import xxhash

from grist.errors import ModelError
from grist.io.atomic import write_atomically
from grist.io.content_encoding import GZIP_MAGIC
from grist.io.json_text import loads

FORMAT = "grist-model"
T = TypeVar("T")
_CACHE_SIZE = 8
_parsed: OrderedDict[tuple[str, int, str], Any] = OrderedDict()


def shipped(name: str) -> Path:
    """Path of a model bundled in ``grist/data``."""
    return Path(str(resources.files("grist").joinpath("data", name)))


def encode(kind: str, version: int, payload: dict[str, Any], compress: bool) -> bytes:
    """The bytes of a model file (gzip without a timestamp: same model, same bytes)."""
    data = json.dumps({"format": FORMAT, "kind": kind, "version": version, "payload": payload},
                      sort_keys=True).encode("utf-8")
    return gzip.compress(data, mtime=0) if compress else data


def write_model(path: str | Path, kind: str, version: int, payload: dict[str, Any]) -> None:
    """Write a model file atomically (gzip when the name ends in ``.gz``)."""
    path = Path(path)
    data = encode(kind, version, payload, path.suffix == ".gz")
    try:
        write_atomically(path, data)
    except OSError as exc:
        raise ModelError(f"cannot write model {path}: {exc.strerror or exc}") from None


_WRITTEN_BY = "written by grist train or grist templates --save"


def decode(data: bytes, origin: str, kind: str, version: int) -> dict[str, Any]:
    """The payload of a model file's bytes, after checking format, kind and version."""
    try:
        if data[:2] == GZIP_MAGIC:
            data = gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as exc:
        raise ModelError(f"cannot read model {origin}: the gzip data is damaged ({exc})") from None
    if not data.lstrip()[:1] == b"{":  # (a page or another file given by mistake)
        raise ModelError(f"{origin} is not a grist model file (those are JSON, {_WRITTEN_BY})")
    try:
        document = loads(data)
    except ValueError as exc:
        raise ModelError(f"cannot read model {origin}: cut off or damaged ({exc})") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ModelError(f"{origin} is not a grist model file (its JSON has no \"format\": "
                         f"\"{FORMAT}\"; those are {_WRITTEN_BY})")
    if document.get("kind") != kind:
        raise ModelError(f"{origin} is a grist {document.get('kind')} model, not a {kind} model")
    if document.get("version") != version:
        raise ModelError(f"{origin} is a version {document.get('version')} {kind} model; this "
                         f"grist reads version {version} (train or fit it again with this grist)")
    payload = document.get("payload")
    if not isinstance(payload, dict):
        raise ModelError(f"{origin}: broken {kind} model (no payload)")
    return payload


def load_model(path: str | Path, kind: str, version: int,
               build: Callable[[dict[str, Any]], T]) -> T:
    """Read and build the model at ``path``; the same bytes are parsed once per process.

    ``build`` turns a payload into the model (raising ModelError, KeyError, TypeError or
    ValueError on a broken payload, which become a ModelError).
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ModelError(f"cannot read model {path}: {exc.strerror or exc}") from None
    key = (kind, version, xxhash.xxh3_128_hexdigest(data))
    if key in _parsed:
        _parsed.move_to_end(key)
        return copy.copy(_parsed[key])
    payload = decode(data, str(path), kind, version)
    try:
        model = build(payload)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise ModelError(f"{path}: broken {kind} model: {exc!r}") from None
    _parsed[key] = model
    if len(_parsed) > _CACHE_SIZE:
        _parsed.popitem(last=False)
    return copy.copy(model)
