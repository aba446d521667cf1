"""The dates records and feed items carry (ISO 8601 in JSON lines and JSON Feed, a WARC-Date):
read as moments, written as WARC or ISO 8601 dates."""

from __future__ import annotations

import datetime


def epoch_seconds(value: str | None) -> float | None:
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
    moment = _utc(seconds)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ") if moment else None


def iso_date(seconds: float) -> str | None:
    """A moment in ISO 8601, UTC (``2024-05-06T07:08:09+00:00``, as feed items are dated);
    None outside years 1-9999 (feeds do say year 9999 in a zone east of UTC)."""
    moment = _utc(seconds)
    return moment.isoformat() if moment else None


def _utc(seconds: float) -> datetime.datetime | None:
    try:
        return datetime.datetime.fromtimestamp(seconds, datetime.UTC)
    except (ValueError, OverflowError, OSError):
        return None
