"""A page's metadata: title, authors, dates, site, language, description, image, categories,
tags, canonical URL and page type.

Every field is taken from the most trusted source that has a usable value: JSON-LD, then
OpenGraph / Twitter cards, microdata, ``<meta>`` and ``<link>``, and last the page's blocks
(bylines and date lines: blocks with the ``byline`` role when the method assigns roles, else
short "By ..." lines near the top). ``Result.metadata`` computes it on first use, so extraction
that never asks for it does not pay for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from selectolax.lexbor import LexborHTMLParser

from grist.document import Block, Document
from grist.metadata.dates import date_in_text, date_in_url, parse_date
from grist.metadata.language import page_language
from grist.metadata.names import byline_authors, clean_authors, clean_title
from grist.metadata.pagetype import page_type
from grist.metadata.sources import Candidates, read_candidates
from grist.render.inline import safe_url
from grist.whitespace import visible_text

_TOP_BLOCKS = 60  # bylines and date lines are looked for among the first blocks
_WINDOW = 15  # ... and this many blocks around the first block of main content
_DATED_LINE = re.compile(r"publish|posted|updated|written|date", re.IGNORECASE)
_MAX_DESCRIPTION = 1000


@dataclass(frozen=True)
class Metadata:
    """What a page says about itself. Dates are ISO 8601 (a date, or a date and time when the
    page gives one); ``language`` an ISO 639-1 code; ``page_type`` one of article, forum,
    product, listing, docs, other; ``url`` the canonical URL (else the page's). ``base_url`` is
    what relative links resolve against (``<base href>``, else the page's URL)."""

    title: str | None = None
    authors: tuple[str, ...] = ()
    date: str | None = None
    date_modified: str | None = None
    sitename: str | None = None
    language: str | None = None
    description: str | None = None
    image: str | None = None
    categories: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    url: str | None = None
    page_type: str = "other"
    base_url: str | None = field(default=None, compare=False)

    @property
    def author(self) -> str | None:
        """The authors joined with "; " (None when the page names none)."""
        return "; ".join(self.authors) or None

    def as_dict(self) -> dict[str, Any]:
        """The fields as JSON-ready values, in a fixed order (authors as one ``author``)."""
        return {
            "title": self.title, "author": self.author, "date": self.date,
            "date_modified": self.date_modified, "sitename": self.sitename,
            "language": self.language, "description": self.description, "image": self.image,
            "categories": list(self.categories), "tags": list(self.tags), "url": self.url,
            "page_type": self.page_type,
        }


def _first(values: list[str]) -> str | None:
    for value in values:
        value = visible_text(value)
        if value:
            return value
    return None


def _listed(values: list[str]) -> tuple[str, ...]:
    """The comma-separated items of the first value that has any, without duplicates."""
    for value in values:
        items: list[str] = []
        for item in value.split(","):
            item = visible_text(item)
            if item and item.casefold() not in (i.casefold() for i in items) and len(item) < 80:
                items.append(item)
        if items:
            return tuple(items)
    return ()


def _field(found: Candidates, name: str) -> list[str]:
    """Candidates for a field in order of trust: JSON-LD and cards, microdata, ``<meta>``."""
    return found.get(name, []) + found.get(f"micro_{name}", []) + found.get(f"meta_{name}", [])


def _bylines(blocks: list[Block]) -> list[Block]:
    """Blocks that may name the author or the date: role ``byline`` when the method assigns
    roles, else short lines around the start of the main content (nearest first), then near
    the top of the page."""
    if any(b.role is not None for b in blocks):
        return [b for b in blocks if b.role == "byline"]
    start = next((i for i, b in enumerate(blocks) if b.is_content), 0)
    window = sorted(range(max(0, start - _WINDOW), min(len(blocks), start + _WINDOW)),
                    key=lambda i: abs(i - start))
    order = window + [i for i in range(min(len(blocks), _TOP_BLOCKS)) if abs(i - start) >= _WINDOW]
    return [blocks[i] for i in order if len(blocks[i].text) <= 120]


def _authors(found: Candidates, blocks: list[Block]) -> tuple[str, ...]:
    for value in _field(found, "author") + found.get("markup_author", []):
        names = [n for n in clean_authors(value) if len(n.split()) <= 5]
        if names:
            return tuple(names)
    for block in _bylines(blocks):
        text = block.text
        if block.role == "byline" or text[:3].lower() == "by ":
            names = byline_authors(text)
            if names and len(names[0].split()) <= 4:
                return tuple(names[:3])
    return ()


def _date(found: Candidates, url: str | None, blocks: list[Block]) -> str | None:
    """The first declared date; a date in the URL a day away from it wins (the declared one is
    often in UTC, the URL's and the page's in local time)."""
    in_url = date_in_url(url)
    for value in _field(found, "date") + found.get("time", []):
        parsed = parse_date(value)
        if parsed:
            if in_url and abs((date.fromisoformat(parsed[:10]) - date.fromisoformat(in_url))
                              .days) == 1:
                return in_url
            return parsed
    if in_url:
        return in_url
    for text in found.get("markup_date", []):
        found_date = date_in_text(text)
        if found_date:
            return found_date
    for block in _bylines(blocks):
        found_date = date_in_text(block.text)
        if found_date:
            return found_date
    for block in blocks:  # a dated line anywhere: "Posted on April 13, 2023", "May 2, 2024"
        text = block.text
        if len(text) <= 60 and (_DATED_LINE.search(text) or len(text) <= 24):
            found_date = date_in_text(text)
            if found_date:
                return found_date
    return None


def _first_date(values: list[str]) -> str | None:
    for value in values:
        parsed = parse_date(value)
        if parsed:
            return parsed
    return None


def _text(blocks: list[Block]) -> str:
    kept = [b.text for b in blocks if b.is_content] or [b.text for b in blocks]
    out, size = [], 0
    for text in kept:
        out.append(text)
        size += len(text)
        if size > 4000:
            break
    return "\n".join(out)


def _heading(blocks: list[Block]) -> str | None:
    """The text of the page's first top-level heading the method kept (else any first one)."""
    top = [b for b in blocks if b.heading == 1]
    kept = [b for b in top if b.is_content]
    return (kept or top)[0].text if top else None


def extract_metadata(doc: Document, blocks: list[Block]) -> Metadata:
    """The page's metadata from its DOM (parsed here when the method did not) and its blocks."""
    dom = doc.dom if doc.dom is not None else LexborHTMLParser(doc.html)
    found = read_candidates(dom)
    page_url = safe_url(doc.url, None) if doc.url else None  # a malformed URL is no URL
    base = safe_url(found["base"][0], page_url) if found.get("base") else None
    base = base or page_url
    canonical = None
    for href in found.get("canonical", []) + found.get("url", []):
        canonical = safe_url(href, base)
        if canonical and canonical.startswith(("http://", "https://")):
            break
        canonical = None
    url = canonical or page_url
    sitenames = _field(found, "sitename")  # (with handles' "@": see ``clean_title``)
    sitename = _first([v.removeprefix("@") for v in sitenames])
    title = _first(_field(found, "title") + [doc.title])
    image = _first(_field(found, "image"))
    description = _first(_field(found, "description"))
    return Metadata(
        title=clean_title(title, sitenames, url, _heading(blocks)) if title else None,
        authors=_authors(found, blocks),
        date=_date(found, url, blocks),
        date_modified=_first_date(_field(found, "modified")),
        sitename=sitename,
        language=page_language(_text(blocks), found.get("language", [])
                               + found.get("html_lang", []) + found.get("meta_language", [])),
        description=description[:_MAX_DESCRIPTION] if description else None,
        image=safe_url(image, base) if image else None,
        categories=_listed(_field(found, "categories")),
        tags=_listed(_field(found, "tags")),
        url=url,
        page_type=page_type(found.get("ld_type", []), _first(found.get("type", [])), url,
                            blocks),
        base_url=base,
    )
