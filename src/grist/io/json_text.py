"""JSON text from users and pages, read so that every way it can be unreadable is a ValueError."""

from __future__ import annotations

import json
from typing import Any


def loads(text: str | bytes) -> Any:
    """``json.loads``, with arrays or objects nested past the interpreter's stack (a
    RecursionError from the standard parser) reported as the ValueError any other unreadable
    JSON gives."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("it nests arrays or objects deeper than Python's JSON parser goes") \
            from None
