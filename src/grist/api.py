"""The public entry points: ``extract()`` for one page and ``Extractor`` for many."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from grist.document import Block
from grist.errors import NoTextError, UnknownMethodError
from grist.html.load import load_document
from grist.html.parse import check_structure, parse_document
from grist.limits import Budget, Limits
from grist.methods import DEFAULT_METHOD, get_method, method_config
from grist.result import OUTPUT_FORMATS, Result


@dataclass
class Extractor:
    """A configured extraction pipeline: a method, its config, the caps; reusable across pages.

    ``method`` is a method name or ``name/variant``; ``config`` defaults to that method's (variant's).

    It keeps no state between pages: calling it twice on the same page gives the same result.
    """

    method: str = DEFAULT_METHOD
    config: Any = None
    limits: Limits = field(default_factory=Limits)
    output: str = "text"

    def __post_init__(self) -> None:
        self._method = get_method(self.method)
        if self.config is None:
            self.config = method_config(self.method)
        if self.output not in OUTPUT_FORMATS:
            raise UnknownMethodError(
                f"unknown output format {self.output!r}; choose one of: {', '.join(OUTPUT_FORMATS)}"
            )

    def __call__(
        self, source: bytes | str, url: str | None = None, *, http_charset: str | None = None
    ) -> Result:
        """Extract the main content of one page (bytes or decoded str)."""
        started = time.perf_counter()
        budget = Budget(self.limits.time_budget)
        doc = load_document(source, url, http_charset=http_charset, limits=self.limits)
        if self._method.needs_dom:
            parse_document(doc, self.limits)
            budget.check("parsing")
        else:  # the same documented caps for every method, DOM or not
            check_structure(doc.html, self.limits)
        blocks = self._method.run(doc, self.config, budget)
        budget.check("classification")
        if not any(b.text.strip() for b in blocks):
            raise NoTextError("the page has no visible text")
        result = Result(
            document=doc,
            blocks=blocks,
            method=self.method,
            output=self.output,
            empty_reason=_empty_reason(blocks),
            features=doc.features,
        )
        if self._method.explain is not None:
            complete, config = self._method.explain, self.config
            result.completer = lambda: complete(doc, blocks, config)
        result.timings["total"] = time.perf_counter() - started
        return result


def _empty_reason(blocks: list[Block]) -> str | None:
    if any(b.is_content for b in blocks):
        return None
    return f"no block was classified as content ({len(blocks)} blocks, all boilerplate)"


def extract(
    html: bytes | str,
    url: str | None = None,
    method: str = DEFAULT_METHOD,
    output: str = "text",
    *,
    config: Any = None,
    limits: Limits | None = None,
) -> Result:
    """Extract the main content of one page.

    ``html`` is raw bytes (decoded as a browser would) or an already decoded str. Returns a
    Result (``.text``, ``.title``, ``.blocks``, renderers); ``str(result)`` renders ``output``.
    Raises a ``grist.errors.GristError`` subclass for input that cannot be extracted.
    """
    extractor = Extractor(method=method, config=config, limits=limits or Limits(), output=output)
    return extractor(html, url)
