"""The request schema of ``/extract`` and ``/inspect``, and how its options reach the library.

The options of ``grist extract`` are all in the schema. Those the library implements are passed
to ``grist.Extractor`` by name; a request that turns on one the installed grist does not
implement yet gets a 422 naming it. An option becomes live as soon as ``Extractor`` gains a field
of its name; an option the library takes elsewhere needs one line in ``LIBRARY_OPTIONS``.
"""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any
from urllib.parse import urlsplit

import httpx
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from grist.api import Extractor
from grist.errors import GristError
from grist.methods import DEFAULT_METHOD, method_specs
from grist.render import FORMATS

# option -> the Extractor keyword it becomes, and where in grist it comes from
LIBRARY_OPTIONS: dict[str, tuple[str, str]] = {
    "with_title": ("with_title", "block roles"),
    "with_byline": ("with_byline", "block roles"),
    "with_captions": ("with_captions", "block roles"),
    "with_comments": ("with_comments", "block roles"),
    "links": ("links", "output options"),
    "images": ("images", "output options"),
    "metadata": ("with_metadata", "output options"),
    "explain": ("explain", "output options"),
}


class UnsupportedOption(GristError):
    """A request option the installed grist does not implement yet."""

    reason = "unsupported-option"


def _extractor_fields() -> set[str]:
    return {f.name for f in dataclasses.fields(Extractor)}


def supported_options() -> list[str]:
    """The request options the installed library implements."""
    fields = _extractor_fields()
    return [name for name, (keyword, _) in LIBRARY_OPTIONS.items() if keyword in fields]


class ExtractOptions(BaseModel):
    """How to extract: the method, the output format and the options of ``grist extract``."""

    model_config = ConfigDict(extra="forbid")

    method: str = Field(DEFAULT_METHOD, description="an extraction method or method/variant "
                        "(GET /methods lists them)")
    format: str = Field("text", description=f"output format: {', '.join(FORMATS)}")
    with_title: bool = Field(False, description="put the title into the text (block roles)")
    with_byline: bool = Field(False, description="put bylines (author, date lines) into the text")
    with_captions: bool = Field(False, description="put image captions into the text")
    with_comments: bool = Field(False, description="put user comments into the text")
    links: bool = Field(False, description="keep links in Markdown and HTML output")
    images: bool = Field(False, description="keep images in Markdown and HTML output")
    metadata: bool = Field(False, description="add the page's metadata to the output (a "
                           "front-matter header in text and Markdown; JSON always has it)")
    explain: bool = Field(False, description="JSON: every block's complete reason, structure "
                          "and feature values (large)")
    site: str | None = Field(None, description="read this site model (from the service's site "
                             "folder) during extraction")
    time_budget: float | None = Field(None, gt=0, description="seconds this request may take "
                                      "(at most the service's budget)")

    @field_validator("method")
    @classmethod
    def _known_method(cls, value: str) -> str:
        specs = method_specs()
        if value not in specs:
            raise ValueError(f"unknown method {value!r}; choose one of: {', '.join(specs)}")
        return value

    @field_validator("format")
    @classmethod
    def _known_format(cls, value: str) -> str:
        if value not in FORMATS:
            raise ValueError(f"unknown format {value!r}; choose one of: {', '.join(FORMATS)}")
        return value

    def library_options(self) -> dict[str, Any]:
        """The options to pass to ``Extractor``; UnsupportedOption for one turned on that the
        installed grist does not implement."""
        fields = _extractor_fields()
        passed: dict[str, Any] = {}
        for name, (keyword, origin) in LIBRARY_OPTIONS.items():
            value = getattr(self, name)
            if keyword in fields:
                passed[keyword] = value
            elif value:
                raise UnsupportedOption(
                    f"option {name!r} is not supported by this grist yet (it comes with the "
                    f"{origin} work); supported options: "
                    f"{', '.join(supported_options()) or 'none'}")
        return passed


def _check_url(value: str | None) -> str | None:
    """An absolute http(s) URL that httpx takes, its host name decoded (``xn--`` labels are
    IDNA's): ValueError (a 422) for any other, never httpx's own error (a 500)."""
    if value is not None:
        parts = urlsplit(value)
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            raise ValueError("url must be an absolute http:// or https:// URL")
        try:
            parts.port  # noqa: B018 - reading it checks it (99999 is no port)
            httpx.URL(value).host  # noqa: B018 - reading it decodes it, as fetching will
        except UnicodeError as exc:  # (a ValueError too: first)
            raise ValueError(f"the URL's host name is not valid: {exc}") from None
        except (httpx.InvalidURL, ValueError) as exc:
            raise ValueError(f"url is not valid: {exc}") from None
    return value


PageUrl = Annotated[str | None, AfterValidator(_check_url)]


class PageInput(BaseModel):
    """The page: its ``html``, or a ``url`` to fetch. With both, ``url`` is only the page's
    address (for links and site models) and nothing is fetched."""

    model_config = ConfigDict(extra="forbid")

    html: str | None = Field(None, description="the page's HTML")
    url: PageUrl = Field(None, description="an http(s) URL to fetch, or the address of html")

    @model_validator(mode="after")
    def _page_given(self) -> PageInput:
        if self.html is None and self.url is None:
            raise ValueError("give the page as html, or a url to fetch")
        return self


class ExtractRequest(PageInput, ExtractOptions):
    """A JSON request to ``/extract``: the page and how to extract it."""


class InspectRequest(ExtractRequest):
    """What the inspector asks for: a page, a method, and what to send back."""

    view: bool = Field(True, description="send the page itself, made inert, with marked text")
    remote: bool = Field(True, description="let the page view load its stylesheets, images "
                         "and fonts (never scripts)")


class RawOptions(ExtractOptions):
    """Query parameters of a raw-HTML request (the body is the page)."""

    url: PageUrl = Field(None, description="the page's address (nothing is fetched)")
