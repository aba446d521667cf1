"""Plain text: the content blocks' text, paragraphs separated by one blank line."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from grist.render import Extraction


def render(result: Extraction) -> str:
    return "\n\n".join(b.text for b in result.content_blocks if b.text)
