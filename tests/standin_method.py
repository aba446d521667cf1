"""A tiny extraction method registered only in tests, so CLI and contract tests need no real one.

It keeps blocks of three or more words and every heading, list item, table cell and code block.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

import grist.methods
from grist.document import BOILERPLATE, CONTENT, Block, Document
from grist.limits import Budget
from grist.methods.base import Method
from grist.segment.blocks import segment

NAME = "standin"


@dataclass(frozen=True)
class StandinConfig:
    """min_words: shortest ordinary block kept."""

    min_words: int = 3


def _run(doc: Document, config: StandinConfig, budget: Budget) -> list[Block]:
    blocks = segment(doc)
    budget.check("segmentation")
    for block in blocks:
        structural = block.heading or block.list_kind or block.cell or block.preformatted
        if structural or len(block.text.split()) >= config.min_words:
            block.label, block.reason = CONTENT, "standin: long or structural"
        else:
            block.label, block.reason = BOILERPLATE, "standin: short"
    return blocks


METHOD = Method(NAME, "test stand-in", StandinConfig, _run)


@pytest.fixture
def standin(monkeypatch: pytest.MonkeyPatch) -> str:
    """Register the stand-in method for one test; returns its name."""
    monkeypatch.setitem(grist.methods._MODULES, NAME, __name__)
    return NAME
