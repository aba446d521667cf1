"""The result of extracting one page: labelled blocks plus renderers for every output format."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from grist.document import Block, Document

OUTPUT_FORMATS = ("text", "markdown", "json", "html")


@dataclass
class Result:
    """What ``grist.extract`` returns.

    ``blocks`` holds every block of the page, each labelled; ``content_blocks`` the kept ones.
    ``empty_reason`` says why nothing was kept when ``text`` is empty.
    ``features`` is the block feature matrix when the method computed one.
    ``completer`` completes the blocks' reasons on demand (see ``explain``).
    """

    document: Document
    blocks: list[Block]
    method: str
    output: str = "text"
    empty_reason: str | None = None
    features: Any = None
    timings: dict[str, float] = field(default_factory=dict)
    completer: Callable[[], None] | None = field(default=None, repr=False)

    def explain(self) -> Result:
        """Complete every block's ``reason`` where the method defers it (the learned methods give
        only their probability until asked); JSON output calls this. Idempotent; returns self."""
        if self.completer is not None:
            completer, self.completer = self.completer, None
            completer()
        return self

    @property
    def title(self) -> str:
        return self.document.title

    @property
    def url(self) -> str | None:
        return self.document.url

    @property
    def content_blocks(self) -> list[Block]:
        return [b for b in self.blocks if b.is_content]

    @property
    def text(self) -> str:
        return self.render("text")

    def render(self, fmt: str | None = None) -> str:
        """Render in ``fmt`` (text, markdown, json, html); defaults to the requested output."""
        from grist.render import render

        return render(self, fmt or self.output)

    def to_text(self) -> str:
        return self.render("text")

    def to_markdown(self) -> str:
        return self.render("markdown")

    def to_json(self) -> str:
        return self.render("json")

    def to_html(self) -> str:
        return self.render("html")

    def __str__(self) -> str:
        return self.render()
