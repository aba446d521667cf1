"""The public entry points: ``extract()`` for one page and ``Extractor`` for many."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any

from grist.checks import check_flag
from grist.classify.table_units import tables_as_units
from grist.crosspage import CrossPageModel, apply_verdicts
from grist.document import ON_REQUEST, Block, RawPage
from grist.errors import ConfigError, UnreadableInputError
from grist.html.load import load_document
from grist.html.parse import check_structure, parse_document
from grist.html.scripted import no_text_error
from grist.limits import Budget, Limits
from grist.methods import DEFAULT_METHOD, PageContext, get_method, method_config
from grist.render import RenderOptions, check_format
from grist.result import Result

# Extractor's switches: True or False, refused otherwise ("yes" would be read as True)
_FLAGS = ("table_units", "links", "images", "with_metadata", "explain", "with_title",
          "with_byline", "with_captions", "with_comments")


@dataclass
class Extractor:
    """A configured extraction pipeline: a method, its config, the caps; reusable across pages.

    ``method`` is a method name or ``name/variant``; ``config`` defaults to that method's (variant's).
    The method's resources (a model file) are loaded once, when the Extractor is built, and held
    by it. It keeps no state between pages: calling it twice on the same page gives the same result.
    ``table_units``: every data table is kept or dropped whole (``grist.classify.table_units``).
    ``links``, ``images``, ``with_metadata`` and ``explain`` are the rendering options the
    results carry (``grist.render.RenderOptions``); they never change what is extracted.

    The text is the article's body. Methods that name block roles (``auto``) report the title,
    subtitle, bylines, captions and comments as blocks with that ``role``, outside the text;
    ``with_title`` (title and subtitle), ``with_byline``, ``with_captions`` and
    ``with_comments`` put them into it.
    """

    method: str = DEFAULT_METHOD
    config: Any = None
    limits: Limits = field(default_factory=Limits)
    output: str = "text"
    table_units: bool = True
    links: bool = False
    images: bool = False
    with_metadata: bool = False
    explain: bool = False
    with_title: bool = False
    with_byline: bool = False
    with_captions: bool = False
    with_comments: bool = False

    def __post_init__(self) -> None:
        self._method = get_method(self.method)
        if self.config is None:
            self.config = method_config(self.method)
        expected = self._method.config_type
        if not isinstance(self.config, expected):
            raise ConfigError(f"method {self.method!r} needs its config as {expected.__name__}, "
                              f"not {type(self.config).__name__}")
        if not isinstance(self.limits, Limits):
            raise ConfigError(f"limits must be grist.Limits, not {type(self.limits).__name__}")
        check_format(self.output)
        for name in _FLAGS:
            check_flag(self, name)
        self._resources = self._method.load(self.config) if self._method.load else None

    def __call__(
        self,
        source: bytes | str | RawPage | PathLike[str],
        url: str | None = None,
        *,
        http_charset: str | None = None,
        site: CrossPageModel | None = None,
        stream: CrossPageModel | None = None,
    ) -> Result:
        """Extract the main content of one page (bytes, a decoded str, a RawPage, or a file's
        path: an HTML file, gzip-compressed or not).

        ``site`` and ``stream`` are cross-page models (``grist.crosspage``) the extraction reads:
        their evidence may inform the method, and their verdicts override its labels. They are
        never updated here.
        """
        if isinstance(source, RawPage):
            url = url or source.url
            http_charset = http_charset or source.http_charset
            source = source.content
        elif isinstance(source, PathLike):
            from grist.io.sources import read_page_file  # (not on import: it loads the fetcher)

            try:
                source = read_page_file(Path(source), self.limits)
            except UnreadableInputError as exc:
                raise UnreadableInputError(f"{source}: {exc}") from None
        started = time.perf_counter()
        budget = Budget(self.limits.time_budget, self.limits.max_blocks)
        doc = load_document(source, url, http_charset=http_charset, limits=self.limits)
        if self._method.needs_dom:
            parse_document(doc, self.limits)
            budget.check("parsing")
        else:  # the same documented caps for every method, DOM or not
            check_structure(doc.html, self.limits)
        models = _models(site, stream)
        labelled = self._method.run(doc, self.config, PageContext(budget, self._resources, models))
        budget.check("classification")
        blocks = labelled.blocks
        if not any(b.text.strip() for b in blocks):
            raise no_text_error(doc.html)
        notes = list(labelled.notes)
        if self.table_units:
            tables_as_units(blocks)
        result = Result(
            document=doc,
            blocks=blocks,
            method=self.method,
            output=self.output,
            features=labelled.features,
            warnings=notes,
            meta=dict(labelled.meta),
            reasons=labelled.reasons,
            options=RenderOptions(links=self.links, images=self.images,
                                  with_metadata=self.with_metadata, explain=self.explain),
        )
        if self.included_roles:  # before the cross-page models: they may drop what it adds
            result = result.including(self.included_roles)
        apply_verdicts(models, doc, result.blocks, notes)
        result.empty_reason = _empty_reason(result.blocks)
        result.timings["total"] = time.perf_counter() - started
        return result

    @property
    def included_roles(self) -> frozenset[str]:
        """The roles besides the body that this extractor puts into the text."""
        return included_roles(self.with_title, self.with_byline, self.with_captions,
                              self.with_comments)


_READ_OF_MODELS = ("source", "annotate", "relabel")  # (grist.crosspage.evidence, apply_verdicts)


def _models(site: object, stream: object) -> tuple[CrossPageModel, ...]:
    """The cross-page models given, each checked to have what extraction reads of one (a path is
    named as such)."""
    for name, model in (("site", site), ("stream", stream)):
        if model is not None and not all(hasattr(model, a) for a in _READ_OF_MODELS):
            hint = (f" (a saved model is read with grist.SiteModel.load({str(model)!r}))"
                    if isinstance(model, (str, Path)) else "")
            raise ConfigError(f"{name} must be a cross-page model (grist.CrossPageModel), not "
                              f"{type(model).__name__}{hint}")
    return tuple(m for m in (site, stream) if m is not None)


def included_roles(with_title: bool = False, with_byline: bool = False,
                   with_captions: bool = False, with_comments: bool = False) -> frozenset[str]:
    """The block roles the ``with_*`` options add to the body (``ON_REQUEST``)."""
    wanted = {"with_title": with_title, "with_byline": with_byline,
              "with_captions": with_captions, "with_comments": with_comments}
    return frozenset(role for option, roles in ON_REQUEST.items() if wanted[option]
                     for role in roles)


def _empty_reason(blocks: list[Block]) -> str | None:
    if any(b.is_content for b in blocks):
        return None
    return f"no block was classified as content ({len(blocks)} blocks, all boilerplate)"


def extract(
    html: bytes | str | RawPage | PathLike[str],
    url: str | None = None,
    method: str = DEFAULT_METHOD,
    output: str = "text",
    *,
    config: Any = None,
    limits: Limits | None = None,
    site: CrossPageModel | None = None,
    stream: CrossPageModel | None = None,
    links: bool = False,
    images: bool = False,
    with_metadata: bool = False,
    explain: bool = False,
    with_title: bool = False,
    with_byline: bool = False,
    with_captions: bool = False,
    with_comments: bool = False,
) -> Result:
    """Extract the main content of one page.

    ``html`` is raw bytes (decoded as a browser would), an already decoded str, a RawPage, or
    the path of an HTML file (a ``pathlib.Path``; gzip-compressed or not).
    Returns a Result (``.text``, ``.metadata``, ``.blocks``, renderers); ``str(result)`` renders
    ``output`` with links and images (absolute URLs) when ``links`` / ``images``, a metadata
    header when ``with_metadata``, and in JSON every feature value when ``explain``. ``site`` /
    ``stream`` are cross-page models read (never updated) by the extraction. The text is the
    body; ``with_title``, ``with_byline``, ``with_captions`` and ``with_comments`` add those
    blocks (see ``Extractor``). Raises a ``grist.errors.GristError`` subclass for input that
    cannot be extracted.
    """
    extractor = Extractor(method=method, config=config, limits=limits or Limits(), output=output,
                          links=links, images=images, with_metadata=with_metadata,
                          explain=explain, with_title=with_title, with_byline=with_byline,
                          with_captions=with_captions, with_comments=with_comments)
    return extractor(html, url, site=site, stream=stream)
