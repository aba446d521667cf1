"""The saved form of a site model's fields, and reading it back field by field: a broken file
is refused with a ModelError that says which field is wrong and how, never with the KeyError or
base64 error met deep inside."""

from __future__ import annotations

import base64
import binascii
from typing import Any

import numpy as np

from grist.errors import ModelError

_KINDS = {type(None): "null", bool: "true or false", int: "a whole number", float: "a number",
          str: "text", list: "a list", dict: "an object"}


def broken(problem: str) -> ModelError:
    """The error for a model file whose fields are wrong (``problem`` says which and how)."""
    return ModelError(f"broken site model: {problem}")


def _kind(value: object) -> str:
    """What a JSON value is, in words."""
    return _KINDS.get(type(value), type(value).__name__)


def entry(data: dict[str, Any], name: str, kind: type, where: str = "its") -> Any:
    """``data[name]``; a ModelError when it is missing or not a ``kind`` (``where``: whose
    field it is, e.g. ``cluster 2's``)."""
    if name not in data:
        raise broken(f"{where} '{name}' field is missing")
    value = data[name]
    if type(value) is not kind:
        raise broken(f"{where} '{name}' field is {_kind(value)}, not {_KINDS[kind]}")
    return value


def entries(data: dict[str, Any], name: str, kind: type, where: str = "its") -> list[Any]:
    """The list ``data[name]``; a ModelError unless each of its items is a ``kind``."""
    values = entry(data, name, list, where)
    odd = [v for v in values if type(v) is not kind]
    if odd:
        raise broken(f"{where} '{name}' field holds {_kind(odd[0])} where {_KINDS[kind]} "
                     "belongs")
    return values


def pack(array: np.ndarray, dtype: str) -> str:
    """An array as base64 of its little-endian bytes (compact inside a JSON model file)."""
    return base64.b64encode(np.ascontiguousarray(array, dtype=dtype).tobytes()).decode("ascii")


def array(data: dict[str, Any], name: str, dtype: str, where: str) -> np.ndarray:
    """The array ``pack`` saved as ``data[name]``; a ModelError when it is not base64 or its
    bytes are not whole numbers of ``dtype``."""
    try:
        raw = base64.b64decode(entry(data, name, str, where), validate=True)
    except binascii.Error:
        raise broken(f"{where} '{name}' field is not valid base64") from None
    size = np.dtype(dtype).itemsize
    if len(raw) % size:
        raise broken(f"{where} '{name}' field is cut off ({len(raw)} bytes are not whole "
                     f"{size}-byte numbers)")
    return np.frombuffer(raw, dtype=dtype).copy()
