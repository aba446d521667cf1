"""The result of extracting one page: labelled blocks, what the method found, and renderers."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from grist import render as renderers
from grist.document import CONTENT, Block, Document

if TYPE_CHECKING:  # pragma: no cover
    from grist.features.matrix import FeatureMatrix


@dataclass
class Result:
    """What ``grist.extract`` returns.

    ``blocks`` holds every block of the page, each labelled; ``content_blocks`` the kept ones.
    ``empty_reason`` says why nothing was kept when ``text`` is empty. ``features`` is the block
    feature matrix when the method computed one; ``warnings`` are notes about the page (a
    fallback, a cross-page model that could not judge it); ``meta`` holds page facts the method
    established (e.g. ``language``). Rendering never changes a Result.
    """

    document: Document
    blocks: list[Block]
    method: str
    output: str = "text"
    empty_reason: str | None = None
    features: FeatureMatrix | None = None
    warnings: list[str] = field(default_factory=list)
    meta: dict[str, str] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    reasons: Callable[[], list[str]] | None = field(default=None, repr=False, compare=False)

    def explained(self) -> Result:
        """This result with every block's complete ``reason``, where the method computes it on
        demand (the learned methods give only their probability until asked, because naming the
        features that decided costs as much as deciding). A new Result; this one is unchanged."""
        if self.reasons is None:
            return self
        full = self.reasons()
        blocks = [replace(b, reason=why) if b.decided_by == "page" else b
                  for b, why in zip(self.blocks, full, strict=True)]
        return replace(self, blocks=blocks, reasons=None)

    def including(self, roles: Collection[str]) -> Result:
        """This result with the blocks of the given roles (``title``, ``caption``, ...; see
        ``grist.document.ROLES``) in the text as well, each saying so in its reason. A new
        Result; this one is unchanged. Methods that name no roles are unaffected."""
        added = [b.role in roles and not b.is_content for b in self.blocks]
        if not any(added):
            return self

        def note(reason: str | None, block: Block) -> str:
            return f"{reason}; {block.role}, kept on request"

        blocks = [replace(b, label=CONTENT, reason=note(b.reason, b)) if add else b
                  for b, add in zip(self.blocks, added, strict=True)]
        reasons = self.reasons
        if reasons is not None:
            def reasons() -> list[str]:
                full = self.reasons()
                return [note(r, b) if add else r
                        for r, b, add in zip(full, self.blocks, added, strict=True)]
        return replace(self, blocks=blocks, empty_reason=None, reasons=reasons)

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
        """Render in ``fmt`` (see ``grist.render.FORMATS``); defaults to the requested output."""
        return renderers.render(self, fmt or self.output)

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
