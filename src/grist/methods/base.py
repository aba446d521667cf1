"""What a named extraction method is: a config dataclass, an optional loader of the resources it
reads (models), and a function from a Document to labelled Blocks."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from grist.document import Block, Document
from grist.limits import Budget

if TYPE_CHECKING:  # pragma: no cover
    from grist.crosspage import CrossPageModel
    from grist.features.matrix import FeatureMatrix


@dataclass(frozen=True)
class PageContext:
    """What a method gets besides the page and its config.

    budget:    the page's time budget (``budget.check(stage)`` between and inside long stages).
    resources: what the method's ``load`` returned for this config (a model), loaded once per
               ``Extractor``; None for methods without one.
    models:    read-only cross-page models (site, stream) whose ``annotate`` columns a learned
               method may read; their verdicts are applied after the method by the Extractor.
    """

    budget: Budget
    resources: Any = None
    models: Sequence[CrossPageModel] = ()


@dataclass
class Labelled:
    """What a method returns: every block of the page labelled, and what it found on the way.

    features: the block feature matrix (row i describes ``blocks[i]``), when the method has one.
    notes:    page-level warnings (e.g. ``auto``'s fallback), shown to the user.
    meta:     page facts the method established (e.g. the stop-word language it guessed).
    reasons:  for methods whose full explanation costs time (learned models), computes each
              block's complete reason on demand (``Result.explained()``); pure, called at most
              when asked.
    """

    blocks: list[Block]
    features: FeatureMatrix | None = None
    notes: list[str] = field(default_factory=list)
    meta: dict[str, str] = field(default_factory=dict)
    reasons: Callable[[], list[str]] | None = None


RunFunction = Callable[[Document, Any, PageContext], Labelled]
LoadFunction = Callable[[Any], Any]


@dataclass(frozen=True)
class Method:
    """A named pipeline.

    run:         takes the Document, an instance of ``config_type`` and the PageContext, and
                 returns every block of the page with ``label`` and ``reason`` set.
    load:        reads what ``run`` needs from its config (a model file) into
                 ``PageContext.resources``; the Extractor calls it once.
    needs_dom:   the pipeline parses the page into a DOM first (``lineblock`` does not).
    variants:    named configurations (ablations, the paper's literal reading), selected as
                 ``"method/variant"`` wherever a method name is accepted.
    """

    name: str
    summary: str
    config_type: type
    run: RunFunction
    load: LoadFunction | None = None
    needs_dom: bool = True
    variants: Mapping[str, Callable[[], Any]] = field(default_factory=dict)


def describe_blocks(doc: Document, budget: Budget,
                    describe: Callable[[list[Block], Document], FeatureMatrix]
                    ) -> tuple[list[Block], FeatureMatrix | None]:
    """Segment the page and compute its feature rows (None when it has no block)."""
    from grist.segment.blocks import segment

    blocks = segment(doc, budget=budget)
    budget.check("segmentation")
    if not blocks:
        return blocks, None
    matrix = describe(blocks, doc)
    budget.check("features")
    return blocks, matrix
