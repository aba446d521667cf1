"""What a named extraction method is: a config dataclass and a function from Document to Blocks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from grist.document import Block, Document
from grist.limits import Budget

RunFunction = Callable[[Document, Any, Budget], list[Block]]


@dataclass(frozen=True)
class Method:
    """A named pipeline.

    run:         takes the Document, an instance of ``config_type`` and the page's time budget,
                 and returns every block of the page with ``label`` and ``reason`` set.
    needs_dom:   the pipeline parses the page into a DOM first (``lineblock`` does not).
    """

    name: str
    summary: str
    config_type: type
    run: RunFunction
    needs_dom: bool = True
