"""The protocol of cross-page models (a site model, a URL Tree) and how extraction reads them.

A cross-page model learns from many pages of a site or a stream. It has an estimator's life
cycle: ``fit(pages)`` and ``update(page)`` learn and return the model, fitted attributes end in
``_``, ``save(path)`` and ``load(path)`` persist it in a versioned file. Extraction only *reads*
it, in two ways:

- ``annotate(doc, blocks)`` gives extra block columns (template evidence, repeat counts) that a
  learned method may use as features;
- ``relabel(doc, blocks)`` gives verdicts with reasons (``None`` where the model has no opinion),
  which override the method's labels.

Whoever owns a model (a batch job, the stream runner, the service) calls ``update``; every call
of ``grist.extract(page, site=..., stream=...)`` stays deterministic and stateless.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence, Sized
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Protocol, runtime_checkable

from grist.document import BOILERPLATE, CONTENT, Block, Document, RawPage
from grist.errors import GristError
from grist.features.matrix import FeatureMatrix


@dataclass(frozen=True)
class Verdict:
    """A cross-page model's decision on one block: the label, why, and which model (``source``)."""

    label: str
    reason: str
    source: str

    def __post_init__(self) -> None:
        if self.label not in (CONTENT, BOILERPLATE):
            raise ValueError(f"a verdict's label is {CONTENT!r} or {BOILERPLATE!r}, not {self.label!r}")


@runtime_checkable
class CrossPageModel(Protocol):
    """What a site model or a stream model offers (see the module doc).

    ``source`` names the model in ``Block.decided_by`` and in reasons (``site``, ``tree``).
    """

    source: str

    def fit(self, pages: Iterable[RawPage]) -> CrossPageModel: ...

    def update(self, page: RawPage) -> CrossPageModel: ...

    def annotate(self, doc: Document, blocks: Sequence[Block]) -> FeatureMatrix: ...

    def relabel(self, doc: Document, blocks: Sequence[Block]) -> list[Verdict | None]: ...

    def save(self, path: str | Path) -> None: ...

    @classmethod
    def load(cls, path: str | Path) -> CrossPageModel: ...


def checked_page(page: object, model: str) -> RawPage:
    """``page`` when it is a RawPage; a TypeError saying how to make one otherwise (a page given
    as its HTML failed deep inside with ``'str' object has no attribute 'url'``)."""
    if not isinstance(page, RawPage):
        raise TypeError(f"{model} learns from grist.RawPage objects (RawPage(html, url=...)), "
                        f"not {type(page).__name__}")
    return page


def _ask(model: CrossPageModel, question: str, answer: Callable[[], Sized],
         blocks: Sequence[Block], notes: list[str]) -> Sized | None:
    """A model's per-block answer (annotate or relabel), or None with a note when the model
    cannot judge the page (a GristError); an answer of the wrong length is a bug of the model."""
    try:
        rows = answer()
    except GristError as exc:
        notes.append(f"{model.source} model: {exc}; page-level result")
        return None
    if len(rows) != len(blocks):
        raise GristError(f"the {model.source} model's {question} gave {len(rows)} rows for "
                         f"{len(blocks)} blocks")
    return rows


def evidence(models: Sequence[CrossPageModel], doc: Document, blocks: Sequence[Block],
             notes: list[str]) -> FeatureMatrix | None:
    """The models' extra block columns side by side (None without models); a model that cannot
    annotate this page (a GristError) adds a note and no columns."""
    matrix: FeatureMatrix | None = None
    for model in models:
        columns = _ask(model, "annotate()", partial(model.annotate, doc, blocks), blocks, notes)
        if isinstance(columns, FeatureMatrix):
            matrix = columns if matrix is None else matrix.hstack(columns)
    return matrix


def apply_verdicts(models: Sequence[CrossPageModel], doc: Document, blocks: Sequence[Block],
                   notes: list[str]) -> None:
    """Let each model relabel the blocks it has an opinion on, in order (a later model wins).

    The method's own reason is kept after the model's: ``<model reason> (page: <reason>)``.
    A model that cannot judge this page (a GristError) adds a note and changes nothing.
    """
    for model in models:
        verdicts = _ask(model, "relabel()", partial(model.relabel, doc, blocks), blocks, notes)
        for block, verdict in zip(blocks, verdicts or (), strict=False):
            if verdict is None:
                continue
            page_reason = block.reason if block.decided_by == "page" else None
            block.label = verdict.label
            block.reason = verdict.reason + (f" (page: {page_reason})" if page_reason else "")
            block.decided_by = verdict.source
