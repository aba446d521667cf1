"""Dates as ISO 8601: from structured values, from a page's URL, and from short lines of text.

Structured values (JSON-LD, ``<meta>``, ``<time datetime>``) are read with
``datetime.fromisoformat`` and, failing that, python-dateutil's parser (RFC 822 dates, "March 5,
2024", ...): the choice is measured in docs/decisions.md. A date is kept only when it lies between
1990 and tomorrow. A value with a time keeps it (``2025-09-04T12:50:36+00:00``); a bare date stays
a date (``2025-09-04``).
"""

from __future__ import annotations

import re
import warnings
from datetime import date, datetime, timedelta

_EARLIEST = date(1990, 1, 1)
_URL_DATE = re.compile(r"/((?:19|20)\d\d)[/-](0?[1-9]|1[0-2])[/-](0?[1-9]|[12]\d|3[01])(?:[/_-]|$)")
_URL_DAY = re.compile(r"(?<!\d)((?:19|20)\d\d)(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?!\d)")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
# A date written in a line of text: "March 5, 2024", "5 March 2024", "2024-03-05", "05/03/2024".
_TEXT_DATE = re.compile(
    r"\b(?:(?:" + "|".join(_MONTHS) + r")[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+(?:19|20)\d\d"
    r"|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:" + "|".join(_MONTHS) + r")[a-z]*\.?,?\s+(?:19|20)\d\d"
    r"|(?:19|20)\d\d-\d\d-\d\d"
    r"|\d{1,2}/\d{1,2}/(?:19|20)\d\d"
    r"|\d{1,2}\.\d{1,2}\.(?:19|20)\d\d)\b",
    re.IGNORECASE,
)


def _plausible(day: date) -> bool:
    return _EARLIEST <= day <= date.today() + timedelta(days=1)


def _format(value: datetime, has_time: bool) -> str:
    return value.isoformat() if has_time else value.date().isoformat()


def parse_date(value: str) -> str | None:
    """``value`` (a structured date) as ISO 8601, or None when it is not a plausible date."""
    value = value.strip()
    if not value or len(value) > 64:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace(" ", "T", 1) if len(value) > 10 else value)
        has_time = len(value) > 10
    except ValueError:
        parsed, has_time = _lenient(value)
        if parsed is None:
            return None
    if not _plausible(parsed.date()):
        return None
    return _format(parsed, has_time and bool(parsed.hour or parsed.minute or parsed.second
                                             or parsed.tzinfo))


def _lenient(value: str, dayfirst: bool = False) -> tuple[datetime | None, bool]:
    """dateutil's reading of a date that is not ISO 8601 (``Thu, 04 Sep 2025 12:00:00 GMT``);
    ``dayfirst`` for the European ``17.05.2021``."""
    from dateutil import parser

    if not any(c.isdigit() for c in value):
        return None, False
    try:
        with warnings.catch_warnings():  # an unknown zone name ("MST") is read as no zone
            warnings.simplefilter("ignore")
            parsed = parser.parse(value, default=datetime(1, 1, 1), dayfirst=dayfirst)
    except (ValueError, OverflowError, TypeError):
        return None, False
    if parsed.year == 1:
        return None, False
    return parsed, bool(parsed.hour or parsed.minute or parsed.tzinfo)


def date_in_url(url: str | None) -> str | None:
    """A publication date written in a URL path (``/2024/05/12/``, ``/20240512-``)."""
    if not url:
        return None
    found = _URL_DATE.search(url) or _URL_DAY.search(url)
    if found is None:
        return None
    try:
        day = date(int(found.group(1)), int(found.group(2)), int(found.group(3)))
    except ValueError:
        return None
    return day.isoformat() if _plausible(day) else None


def date_in_text(text: str) -> str | None:
    """The first plausible date written in a short line of text ("Published March 5, 2024")."""
    found = _TEXT_DATE.search(text)
    if found is None:
        return None
    written = found.group(0)
    parsed, _ = _lenient(written, dayfirst="." in written)
    if parsed is None or not _plausible(parsed.date()):
        return None
    return parsed.date().isoformat()
