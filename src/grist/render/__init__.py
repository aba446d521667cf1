"""Renderers: pure functions from an extraction result to text, Markdown, JSON, clean HTML,
TEI XML or a CSV row.

``FORMATS`` is the one list of output formats (the CLI's ``--format`` choices and file suffixes
come from it). A renderer reads a result (``Extraction``) and ``RenderOptions`` and never changes
the result.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from grist.checks import check_flag
from grist.errors import UnknownFormatError

if TYPE_CHECKING:  # pragma: no cover
    from grist.document import Block, Document
    from grist.features.matrix import FeatureMatrix
    from grist.metadata import Metadata


class Format(NamedTuple):
    """An output format: the module whose ``render`` writes it, and its file suffix."""

    module: str
    suffix: str


FORMATS: dict[str, Format] = {
    "text": Format("grist.render.text", ".txt"),
    "markdown": Format("grist.render.markdown", ".md"),
    "json": Format("grist.render.json_output", ".json"),
    "html": Format("grist.render.html_output", ".html"),
    "xml": Format("grist.render.tei", ".xml"),
    "csv": Format("grist.render.csv_output", ".csv"),
}


@dataclass(frozen=True)
class RenderOptions:
    """What a rendering includes besides the main text.

    links:         links as links (Markdown, HTML, TEI), their URLs made absolute.
    images:        images (Markdown, HTML, TEI), their URLs made absolute.
    with_metadata: the page's metadata (a front-matter header in text and Markdown; always in
                   JSON, TEI, CSV and HTML, which have a place for it).
    explain:       JSON: every block's complete reason, structure and feature values (large);
                   without it JSON holds per block only text, role, label, score and reason.
    """

    links: bool = False
    images: bool = False
    with_metadata: bool = False
    explain: bool = False

    def __post_init__(self) -> None:
        for name in ("links", "images", "with_metadata", "explain"):
            check_flag(self, name)


class Extraction(Protocol):
    """What renderers read of a result (``grist.Result`` has it all)."""

    document: Document
    blocks: list[Block]
    method: str
    empty_reason: str | None
    features: FeatureMatrix | None
    warnings: list[str]
    meta: dict[str, str]
    options: RenderOptions

    @property
    def title(self) -> str: ...

    @property
    def url(self) -> str | None: ...

    @property
    def content_blocks(self) -> list[Block]: ...

    @property
    def metadata(self) -> Metadata: ...

    def explained(self) -> Any: ...


def check_format(fmt: str) -> str:
    """``fmt`` if it is a known output format, else UnknownFormatError listing them (TypeError
    when it is not a name at all)."""
    if not isinstance(fmt, str):
        raise TypeError(f"the output format is a name ({', '.join(FORMATS)}), "
                        f"not {type(fmt).__name__}")
    if fmt not in FORMATS:
        raise UnknownFormatError(
            f"unknown output format {fmt!r}; choose one of: {', '.join(FORMATS)}"
        )
    return fmt


def renderer(fmt: str) -> Callable[[Extraction, RenderOptions], str]:
    """The render function of format ``fmt``."""
    return importlib.import_module(FORMATS[check_format(fmt)].module).render


def render(result: Extraction, fmt: str, options: RenderOptions | None = None) -> str:
    """Render ``result`` in format ``fmt`` (with the result's own options unless given)."""
    return renderer(fmt)(result, options if options is not None else result.options)
