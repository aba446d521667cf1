"""What a named extraction method is: a config dataclass and a function from Document to Blocks."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from grist.document import Block, Document
from grist.limits import Budget

RunFunction = Callable[[Document, Any, Budget], list[Block]]
ExplainFunction = Callable[[Document, list[Block], Any], None]


@dataclass(frozen=True)
class Method:
    """A named pipeline.

    run:         takes the Document, an instance of ``config_type`` and the page's time budget,
                 and returns every block of the page with ``label`` and ``reason`` set.
    needs_dom:   the pipeline parses the page into a DOM first (``lineblock`` does not).
    variants:    named configurations (ablations, the paper's literal reading), selected as
                 ``"method/variant"`` wherever a method name is accepted.
    explain:     for methods whose full explanation costs time (learned models), the step that
                 completes each block's ``reason``; run on demand by ``Result.explain()``.
    """

    name: str
    summary: str
    config_type: type
    run: RunFunction
    needs_dom: bool = True
    variants: Mapping[str, Callable[[], Any]] = field(default_factory=dict)
    explain: ExplainFunction | None = None
