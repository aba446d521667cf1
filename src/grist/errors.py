"""grist's own exception types: every failure a user can meet has one, with a plain message."""

from __future__ import annotations


class GristError(Exception):
    """Base class of every error grist raises on purpose.

    ``reason`` is a short machine-readable code (used in batch error records and JSON output).
    """

    reason = "error"


class UnreadableInputError(GristError):
    """An input that cannot be read: a missing file, a folder where a file was named, no
    permission, or an address grist does not fetch (not http or https)."""

    reason = "unreadable-input"


class EmptyInputError(GristError):
    """The input has no bytes (or only whitespace)."""

    reason = "empty-input"


class NotHTMLError(GristError):
    """The input is not an HTML page (an image, a PDF, an archive, other binary data)."""

    reason = "not-html"


class NoTextError(GristError):
    """The page parsed but holds no visible text at all."""

    reason = "no-text"


class CorruptInputError(GristError):
    """Compressed input (a .gz page) whose data is damaged or cut off."""

    reason = "corrupt-input"


class LimitExceededError(GristError):
    """A documented cap (input size, node count, nesting depth) was hit; see ``grist.Limits``."""

    reason = "limit-exceeded"


class ParseError(GristError):
    """The HTML parser failed on the page (it ran out of memory or gave up)."""

    reason = "parse-failed"


class ExtractionTimeout(GristError):
    """The page took longer than the per-page time budget (``Limits.time_budget``)."""

    reason = "timeout"


class FetchError(GristError):
    """A URL could not be fetched (network error, HTTP error status, too large, not HTML).

    ``retryable``: the failure may pass (a timeout, a refused connection, HTTP 5xx or 429), so
    trying again later makes sense.
    """

    reason = "fetch-failed"

    def __init__(self, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.retryable = retryable


class UnknownMethodError(GristError, ValueError):
    """The requested extraction method (or benchmark peer) does not exist."""

    reason = "unknown-method"


class UnknownFormatError(GristError, ValueError):
    """The requested output format does not exist."""

    reason = "unknown-format"


class ModelError(GristError):
    """A trained model file is missing, unreadable, or of an incompatible version."""

    reason = "model-error"


class DatasetError(GristError):
    """A dataset file or folder is missing or malformed."""

    reason = "dataset-error"


class WarcError(GristError):
    """A WARC record or byte range could not be read (corrupt gzip member, wrong length, cut off)."""

    reason = "warc-error"


class HttpStatusError(GristError):
    """A stored HTTP response whose status is not a success (2xx): a 404 or 500 page, a redirect;
    its body is the server's message, not the page the URL names."""

    reason = "http-status"


class NotWarcError(WarcError):
    """A file given as a WARC file is not one."""

    reason = "not-warc"


class ConfigError(GristError, ValueError):
    """A user's configuration file (a feed list, URL rules) is missing or malformed."""

    reason = "config-error"


class StateError(GristError):
    """A stream state file is corrupt, of another version, or not a grist state file."""

    reason = "state-error"


class FeedError(GristError):
    """A feed could not be read: not XML, no entries, or a page without a feed link."""

    reason = "feed-error"
