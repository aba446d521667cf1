"""A tiny extraction method registered only in tests, so CLI and contract tests need no real one.

It keeps blocks of three or more words and every heading, list item, table cell and code block.
It registers through the public ``grist.register_method``, as a third party's method would.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

import grist
from grist.document import BOILERPLATE, CONTENT, Document
from grist.methods import Labelled, Method, PageContext, unregister_method
from grist.segment.blocks import segment

NAME = "standin"


@dataclass(frozen=True)
class StandinConfig:
    """min_words: shortest ordinary block kept; note: a warning every page gets (if set)."""

    min_words: int = 3
    note: str = ""


def _run(doc: Document, config: StandinConfig, ctx: PageContext) -> Labelled:
    blocks = segment(doc)
    ctx.budget.check("segmentation")
    for block in blocks:
        structural = block.heading or block.list_kind or block.cell or block.preformatted
        if structural or len(block.text.split()) >= config.min_words:
            block.label, block.reason = CONTENT, "standin: long or structural"
        else:
            block.label, block.reason = BOILERPLATE, "standin: short"
    return Labelled(blocks, notes=[config.note] if config.note else [])


METHOD = Method(NAME, "test stand-in", StandinConfig, _run,
                variants={"strict": lambda: StandinConfig(min_words=8),
                          "noted": lambda: StandinConfig(note="standin: a page note")})


@pytest.fixture
def standin() -> Iterator[str]:
    """Register the stand-in method for one test; returns its name."""
    grist.register_method(NAME, METHOD)
    yield NAME
    unregister_method(NAME)
