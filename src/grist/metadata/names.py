"""Clean titles and author names as pages declare them.

A ``<title>`` (and often ``og:title``) carries the site's name: "Story | Site", "Site - Story",
"Story — Site". ``clean_title`` removes a leading or trailing segment that names the site (the
declared site name or the host), or, when none does, keeps the one segment the article's own
heading repeats. Authors lose "By", handles' "@", e-mail and profile URLs, and
lists are split on "and", "&", ";" and ","; what bylines hold besides names (dates, reading
times, labels such as "Posted" or "Name *", phrases of lower-case words) is not a name.
"""

from __future__ import annotations

import re

from grist.clean.domains import host_of
from grist.features.tokens import DAY_WORDS, MONTH_WORDS, alternation
from grist.whitespace import visible_text

_SEPARATORS = re.compile(r"\s+(?:[|\-–—:·•»«/]|::)\s+")
_NON_WORD = re.compile(r"[\W_]+")
_BY = re.compile(r"^(?:(?:written|posted|published|reviewed|edited)\s+)?by[:\s]+", re.IGNORECASE)
_SPLIT_AUTHORS = re.compile(r"\s*(?:;|&|\band\b|\bund\b|\bet\b|,|\|)\s*", re.IGNORECASE)
_NOT_A_NAME = re.compile(r"https?://|www\.|@.*\.|\d{3,}|^\W+$")
_LONGEST_NAME = 60
_MONTHS = alternation(MONTH_WORDS)
_WEEKDAYS = alternation(d for d in DAY_WORDS if d.endswith("day"))
_SHORT_DAYS = alternation(d for d in DAY_WORDS if not d.endswith("day"))
# What bylines hold after names: dates ("August 16", "1 February", "Sunday"), times, reading
# times and ages ("8 min read", "6 days ago"); a name ends where one begins.
_DATE_PART = re.compile(
    rf"(?:{_MONTHS})\.?\s*\d{{1,2}}\b|\b\d{{1,2}}\.?\s+(?:{_MONTHS})\b"
    rf"|\b(?:{_WEEKDAYS})\b|\b\d{{1,2}}:\d{{2}}\b"
    r"|\b\d+\s*(?:min|mins|minutes?|hours?|hrs?|days?|weeks?|months?|years?)\b",
    re.IGNORECASE)
# Labels around bylines, and what starts with one ("Posted under Cars").
_LABEL = re.compile(
    r"^(?:posted|updated|published|released|last updated|release date|reading time)\b"
    r"|^(?:name|author|authors|admin|days|comments?|reply|share|get in touch"
    rf"|{_SHORT_DAYS})\W*$", re.IGNORECASE)


def _reads_as_sentence(name: str) -> bool:
    """Three words or more, most of them lower-case: a phrase, not a name."""
    words = name.split()
    return len(words) >= 3 and 2 * sum(w[:1].islower() for w in words) > len(words)


def _squash(text: str) -> str:
    return _NON_WORD.sub("", text.casefold())


def site_names(sitename: str | None, url: str | None) -> set[str]:
    """Squashed forms that name the site: its declared name and its host's main label."""
    names = set()
    if sitename:
        names.add(_squash(sitename))
    if url:
        host = host_of(url).removeprefix("www.")
        if host:
            names.add(_squash(host))
            labels = host.split(".")
            names.add(_squash(labels[-2] if len(labels) > 1 else labels[0]))
    names.discard("")
    return names


def _names_site(segment: str, names: set[str]) -> bool:
    squashed = _squash(segment)
    return bool(squashed) and any(
        squashed == n or (len(n) > 3 and len(squashed) > 3 and (n in squashed or squashed in n))
        for n in names)


def clean_title(title: str, sitename: str | None = None, url: str | None = None,
                heading: str | None = None) -> str:
    """``title`` without the site name the page appended or prepended to it (named by
    ``sitename`` or the host of ``url``; else the segment the page's ``heading`` begins with)."""
    title = visible_text(title)
    parts = _SEPARATORS.split(title)
    if len(parts) < 2:
        return title
    count = len(parts)
    names = site_names(sitename, url)
    if names:
        while len(parts) > 1 and _names_site(parts[-1], names):
            parts.pop()
        while len(parts) > 1 and _names_site(parts[0], names):
            parts.pop(0)
        if len(parts) < count:
            return _rejoin(title, parts)
    said = _squash(heading or "")
    if said.startswith(_squash(title)):  # the heading repeats the whole title
        return title
    matching = [p for p in parts if _squash(p) and said.startswith(_squash(p))]
    return matching[0] if len(matching) == 1 else title


def _rejoin(title: str, parts: list[str]) -> str:
    """The span of ``title`` from the first kept part to the last (separators inside kept)."""
    start = title.find(parts[0])
    end = title.rfind(parts[-1]) + len(parts[-1])
    return title[start:end].strip() if 0 <= start < end else " ".join(parts)


def clean_authors(value: str) -> list[str]:
    """The people named in an author field or byline, in order, without duplicates."""
    value = visible_text(value)
    value = _BY.sub("", value).strip()
    if _reads_as_sentence(value):
        return []
    found: list[str] = []
    seen: set[str] = set()
    for name in _SPLIT_AUTHORS.split(value):
        name = name.strip(" .-–—:").removeprefix("@")
        name = _BY.sub("", name).strip()
        date = _DATE_PART.search(name, 0, 2 * _LONGEST_NAME)  # (bounded: names are short)
        if date:
            name = name[: date.start()].strip(" ,.-–—:(")
        if len(name) < 2 or len(name) > _LONGEST_NAME or _NOT_A_NAME.search(name):
            continue
        if _LABEL.search(name) or _reads_as_sentence(name):
            continue
        if not any(c.isalpha() for c in name):
            continue
        if name.casefold() not in seen:
            seen.add(name.casefold())
            found.append(name)
    return found
