"""Renderers: pure functions from an extraction result to text, Markdown, JSON or clean HTML.

``FORMATS`` is the one list of output formats (the CLI's ``--format`` choices and file suffixes
come from it). A renderer reads a result (``Extraction``) and never changes it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from grist.errors import UnknownMethodError

if TYPE_CHECKING:  # pragma: no cover
    from grist.document import Block, Document
    from grist.features.matrix import FeatureMatrix


class Format(NamedTuple):
    """An output format: the module whose ``render`` writes it, and its file suffix."""

    module: str
    suffix: str


FORMATS: dict[str, Format] = {
    "text": Format("grist.render.text", ".txt"),
    "markdown": Format("grist.render.markdown", ".md"),
    "json": Format("grist.render.json_output", ".json"),
    "html": Format("grist.render.html_output", ".html"),
}


class Extraction(Protocol):
    """What renderers read of a result (``grist.Result`` has it all)."""

    document: Document
    blocks: list[Block]
    method: str
    empty_reason: str | None
    features: FeatureMatrix | None
    warnings: list[str]
    meta: dict[str, str]

    @property
    def title(self) -> str: ...

    @property
    def url(self) -> str | None: ...

    @property
    def content_blocks(self) -> list[Block]: ...

    def explained(self) -> Any: ...


def check_format(fmt: str) -> str:
    """``fmt`` if it is a known output format, else UnknownMethodError listing them."""
    if fmt not in FORMATS:
        raise UnknownMethodError(
            f"unknown output format {fmt!r}; choose one of: {', '.join(FORMATS)}"
        )
    return fmt


def renderer(fmt: str) -> Callable[[Extraction], str]:
    """The render function of format ``fmt``."""
    return importlib.import_module(FORMATS[check_format(fmt)].module).render


def render(result: Extraction, fmt: str) -> str:
    """Render ``result`` in format ``fmt``."""
    return renderer(fmt)(result)
