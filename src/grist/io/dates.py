"""The dates records carry (an ISO 8601 ``date`` in JSON lines, a WARC-Date): read as moments,
written as WARC dates."""

from __future__ import annotations

import datetime


def parse_date(value: str | None) -> float | None:
    """Seconds since the epoch of an ISO 8601 date (UTC when it has no zone); None if unreadable."""
    if not value:
        return None
    try:
        moment = datetime.datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    return moment.timestamp()


def warc_date(seconds: float) -> str | None:
    """A moment as WARC 1.1 writes it (``2024-05-06T07:08:09Z``); None outside years 1-9999."""
    try:
        return datetime.datetime.fromtimestamp(seconds, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (ValueError, OverflowError, OSError):
        return None
