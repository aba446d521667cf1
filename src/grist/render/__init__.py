"""Renderers: plain text, Markdown, JSON and cleaned HTML from a Result's content blocks."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from grist.errors import UnknownMethodError

if TYPE_CHECKING:  # pragma: no cover
    from grist.result import Result

_RENDERERS = {
    "text": "grist.render.text",
    "markdown": "grist.render.markdown",
    "json": "grist.render.json_output",
    "html": "grist.render.html_output",
}


def render(result: Result, fmt: str) -> str:
    """Render ``result`` in format ``fmt``."""
    module_name = _RENDERERS.get(fmt)
    if module_name is None:
        raise UnknownMethodError(
            f"unknown output format {fmt!r}; choose one of: {', '.join(_RENDERERS)}"
        )
    return importlib.import_module(module_name).render(result)
