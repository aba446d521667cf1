"""The result of extracting one page: labelled blocks, what the method found, and renderers."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

from grist import render as renderers
from grist.document import CONTENT, Block, Document
from grist.metadata import Metadata, extract_metadata
from grist.render import RenderOptions
from grist.whitespace import count_tokens

if TYPE_CHECKING:  # pragma: no cover
    from grist.features.matrix import FeatureMatrix


@dataclass
class Result:
    """What ``grist.extract`` returns.

    ``blocks`` holds every block of the page, each labelled; ``content_blocks`` the kept ones.
    ``empty_reason`` says why nothing was kept when ``text`` is empty. ``features`` is the block
    feature matrix when the method computed one; ``warnings`` are notes about the page (a
    fallback, a cross-page model that could not judge it); ``meta`` holds page facts the method
    established (e.g. ``language``). ``metadata`` (title, authors, dates, site, language, ...) is
    read from the page when first asked for. ``options`` are the rendering options (links,
    images, metadata header, explanations) ``render`` uses unless told otherwise. Rendering never
    changes a Result.
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
    options: RenderOptions = field(default_factory=RenderOptions)

    def explained(self) -> Result:
        """This result with every block's complete ``reason``, where the method computes it on
        demand (the learned methods give only their probability until asked, because naming the
        features that decided costs as much as deciding). A new Result; this one is unchanged."""
        if self.reasons is None:
            return self
        full = self.reasons()
        blocks = [replace(b, reason=_completed(b, why)) for b, why in zip(self.blocks, full,
                                                                             strict=True)]
        return replace(self, blocks=blocks, reasons=None)

    @cached_property
    def metadata(self) -> Metadata:
        """The page's metadata (JSON-LD, OpenGraph, microdata, ``<meta>``, then the blocks),
        computed on first use: text output does not pay for it."""
        return extract_metadata(self.document, self.blocks)

    def including(self, roles: Collection[str]) -> Result:
        """This result with the blocks of the given roles (``title``, ``caption``, ...; see
        ``grist.document.ROLES``) in the text as well, each saying so in its reason. A new
        Result; this one is unchanged. Methods that name no roles are unaffected, and so are
        blocks a cross-page model dropped (a title that is the site's template stays out)."""
        added = [b.role in roles and not b.is_content and b.decided_by == "page"
                 for b in self.blocks]
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
        """The page's title, cleaned of the site name (``metadata.title``), else its
        ``<title>``."""
        return self.metadata.title or self.document.title

    @property
    def url(self) -> str | None:
        return self.document.url

    @property
    def content_blocks(self) -> list[Block]:
        return [b for b in self.blocks if b.is_content]

    @property
    def text(self) -> str:
        return self.render("text")

    def render(self, fmt: str | None = None, **options: Any) -> str:
        """Render in ``fmt`` (see ``grist.render.FORMATS``; default: the requested output), with
        this result's options changed by ``options`` (``links=True``, ``explain=True``, ...)."""
        return renderers.render(self, fmt or self.output, replace(self.options, **options))

    def to_text(self, **options: Any) -> str:
        return self.render("text", **options)

    def to_markdown(self, **options: Any) -> str:
        return self.render("markdown", **options)

    def to_json(self, **options: Any) -> str:
        return self.render("json", **options)

    def to_html(self, **options: Any) -> str:
        return self.render("html", **options)

    def to_xml(self, **options: Any) -> str:
        """TEI XML (``grist.render.tei``)."""
        return self.render("xml", **options)

    def __str__(self) -> str:
        return self.render()

    def __repr__(self) -> str:
        """A line a console can show: what was kept and how it starts, not the page's source and
        every block (those are ``document`` and ``blocks``)."""
        kept = self.content_blocks
        words = sum(count_tokens(b.text) for b in kept)
        first = kept[0].text if kept else ""
        start = first if len(first) <= 60 else first[:60] + "..."
        why = f", empty_reason={self.empty_reason!r}" if self.empty_reason else ""
        return (f"Result(method={self.method!r}, url={self.url!r}, "
                f"title={self.document.title!r}, kept {len(kept)} of {len(self.blocks)} blocks, "
                f"{words} words, starting {start!r}{why})")


def _completed(block: Block, full: str) -> str | None:
    """The block's reason with the method's complete one: the whole reason when the method
    decided, else inside the ``(page: ...)`` that a table vote or a cross-page model kept."""
    if block.decided_by == "page":
        return full
    reason = block.reason or ""
    head, sep, _ = reason.rpartition(" (page: ")
    return f"{head}{sep}{full})" if sep else reason
