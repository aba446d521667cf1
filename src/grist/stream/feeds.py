"""Feeds: the user's feed list, RSS/Atom (feedparser) and JSON Feed parsing, discovery and item
history.

A *reader* (seed 003 §2) follows one site through one or more feeds and remembers every item it
accepted by a hash of the item's title, description and publication date (and of its link and
the feed's id of it, so that items differing only by these are not one), so an item seen again
in the next poll is not fetched twice. Readers are named after the site's domain unless the
feed list names them.

The feed list is a text file, one feed a line, ``#`` for comments::

    https://www.example.com/rss.xml   every=30m   reader=example
    https://blog.example.org/          # a home page: its <link rel=alternate> feeds are used
"""

from __future__ import annotations

import calendar
import json
import re
import xml.sax
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin

from grist.errors import ConfigError, FeedError
from grist.html.load import without_surrogates
from grist.io.dates import epoch_seconds, iso_date
from grist.io.json_text import loads
from grist.stream.hashing import DEFAULT_HASH, title_hash
from grist.stream.urlkey import domain_of, normalise_url

FEED_TYPES = ("application/rss+xml", "application/atom+xml", "application/rdf+xml",
              "application/feed+json")
_DURATION = re.compile(r"(\d+(?:\.\d+)?)([smhd]?)")
_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}
MAX_TTL = 86_400.0  # a feed's <ttl> is honoured up to a day (a huge one must not stop polling)


@dataclass(frozen=True)
class FeedSpec:
    """A line of the feed list: the URL, its polling interval (seconds, None: the default) and
    the reader it belongs to."""

    url: str
    interval: float | None
    reader: str


@dataclass(frozen=True)
class Entry:
    """A feed item: the page's URL, the metadata the reader hashes, the feed's own id of the item
    (RSS guid, Atom id, JSON Feed id) and, for an item that gives no page, why (``problem``)."""

    url: str | None
    title: str | None
    description: str | None
    date: str | None
    guid: str | None = None
    problem: str | None = None  # "has no link", "is not a JSON object"; url is then None

    def identity(self, hash_name: str = DEFAULT_HASH) -> str:
        """The item-history hash of title, description and date (seed 003 §2), and of the link and
        guid: items that differ only by these (a feed of bare links) are distinct items."""
        fields = (self.title, self.description, self.date, self.url, self.guid)
        return title_hash("\x1f".join(field or "" for field in fields), hash_name)


@dataclass(frozen=True)
class ParsedFeed:
    entries: list[Entry]  # in the feed's order, those without a page (``problem``) included
    ttl: float | None  # seconds the feed asks readers to wait (RSS <ttl>), when it says
    malformed: str | None = None  # what is wrong with a feed read in spite of it (feedparser's
    # bozo on XML that is not well-formed), None for a well-formed one

    def status(self) -> str:
        """The feed's status in the state: how many items it lists, and whether it is empty or
        malformed (its items are kept, but a feed that breaks may soon lose some)."""
        if not self.entries:
            return "ok: the feed is empty (0 items)"
        listed = f"ok: {len(self.entries)} items"
        return f"{listed}, read from a malformed feed ({self.malformed})" if self.malformed \
            else listed


def parse_duration(text: str) -> float:
    """``90``, ``90s``, ``15m``, ``2h``, ``1d`` -> seconds."""
    match = _DURATION.fullmatch(text.strip())
    if not match:
        raise ValueError(f"not a duration: {text!r} (write 90s, 15m, 2h or 1d)")
    return float(match.group(1)) * _UNITS[match.group(2)]


def host_reader(url: str) -> str:
    """The default reader of a feed: its site's domain."""
    return domain_of(normalise_url(url)[0].split("://", 1)[1].split(":")[0])


def read_feed_list(path: str | Path) -> list[FeedSpec]:
    """The feeds of a feed-list file; ConfigError (with the line) for anything malformed."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the feed list {path}: {exc}") from None
    specs: dict[str, FeedSpec] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split("#", 1)[0].split() if not line.lstrip().startswith("#") else []
        if not fields:
            continue
        where = f"{path}:{number}"
        url, options = fields[0], dict(f.partition("=")[::2] for f in fields[1:])
        try:
            reader = options.pop("reader", None) or host_reader(url)
            every = options.pop("every", None)
            interval = parse_duration(every) if every else None
        except ValueError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        if options:
            raise ConfigError(f"{where}: unknown option {next(iter(options))!r} "
                              "(options: every=DURATION, reader=NAME)")
        specs.setdefault(url, FeedSpec(url, interval, reader))
    return list(specs.values())


def _date(entry: dict) -> str | None:
    """The entry's publication (or update, or creation) time in UTC; None when it has none that a
    calendar holds (feeds do say year 9999 in a time zone east of UTC)."""
    for name in ("published_parsed", "updated_parsed", "created_parsed"):
        try:  # feedparser gives UTC fields, so a year-9999 date east of UTC says year 10000
            date = iso_date(calendar.timegm(entry[name])) if entry.get(name) else None
        except ValueError:
            continue
        if date:
            return date
    return None


def _ttl(value: object) -> float | None:
    """Seconds an RSS ``<ttl>`` (minutes) asks for, at most ``MAX_TTL``; None when it is not a
    whole number."""
    text = str(value).strip() if value is not None else ""
    if not (text.isascii() and text.isdigit()):
        return None
    minutes = text.lstrip("0") or "0"
    return MAX_TTL if len(minutes) > 6 else min(int(minutes) * 60.0, MAX_TTL)


def _absolute(base_url: str, link: str) -> str:
    """``link`` resolved against the feed's URL; as written when it cannot be (the page's fetch
    then says what is wrong with it, in the item's error record)."""
    try:
        return urljoin(base_url, link)
    except ValueError:
        return link


def parse_feed(content: bytes, base_url: str, headers: dict[str, str] | None = None) -> ParsedFeed:
    """The entries of an RSS, Atom or JSON Feed document; FeedError when it is not a feed."""
    if content.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
        return parse_json_feed(content, base_url)
    import feedparser
    from feedparser.exceptions import ThingsNobodyCaresAboutButMe as Harmless

    try:
        parsed = feedparser.parse(content, response_headers={"content-location": base_url,
                                                             **(headers or {})})
    except Exception as exc:  # noqa: BLE001 - feedparser 6.0.14 raises on some damaged feeds
        # (an encoding declaration that is not UTF-8, a character reference past U+10FFFF)
        raise FeedError(f"not a readable feed ({type(exc).__name__}: {exc})") from None
    bozo = parsed.get("bozo_exception")
    if not parsed.get("version") and not parsed.entries:
        detail = f": {_xml_problem(bozo)}" if bozo else ""
        raise FeedError(f"not an RSS or Atom feed{detail}")
    # a bozo that is Harmless (an encoding override, a media type not XML's) leaves the feed whole
    malformed = _xml_problem(bozo) if bozo and not isinstance(bozo, Harmless) else None
    entries = [_feed_entry(entry, base_url, malformed) for entry in parsed.entries]
    if malformed and not any(entry.url for entry in entries):
        raise FeedError(f"a malformed feed from which no item with a link could be read: "
                        f"{malformed}")
    return ParsedFeed(entries, _ttl(parsed.feed.get("ttl")), malformed)


def _xml_problem(exc: Exception) -> str:
    """What feedparser found wrong with a feed (its ``bozo_exception``), with the line and
    column of an XML error."""
    if isinstance(exc, xml.sax.SAXParseException):
        return f"{exc.getMessage()} at line {exc.getLineNumber()}, column {exc.getColumnNumber()}"
    return str(exc)


def _feed_entry(entry: dict, base_url: str, malformed: str | None) -> Entry:
    """An RSS or Atom entry as an ``Entry``; its link is the first ``href`` when it has no
    ``link``. A linkless entry of a ``malformed`` feed says so: the damage may have eaten it."""
    hrefs = (_text(other, "href") for other in entry.get("links", ()))
    link = _text(entry, "link") or next(filter(None, hrefs), None)
    damage = f" (the feed is malformed: {malformed})" if malformed else ""
    return Entry(_absolute(base_url, link) if link else None, _text(entry, "title"),
                 _text(entry, "summary") or _text(entry, "description"), _date(entry),
                 _text(entry, "id"), None if link else f"has no link{damage}")


def parse_json_feed(content: bytes, base_url: str) -> ParsedFeed:
    """The items of a JSON Feed (jsonfeed.org, 1.0 and 1.1): ``url`` (or ``external_url``),
    ``title``, ``summary`` (or ``content_text``) and ``date_published`` (or ``date_modified``)."""
    try:
        feed = loads(content)
    except ValueError as exc:
        raise FeedError(f"not a JSON feed: {exc}") from None
    items = feed.get("items") if isinstance(feed, dict) else None
    if not isinstance(items, list):
        raise FeedError("not a JSON feed: no list of 'items'")
    return ParsedFeed([_json_entry(item, base_url) for item in items], None)


def _json_entry(item: object, base_url: str) -> Entry:
    """A JSON Feed item as an ``Entry``; one that is not an object is told apart from others by
    its JSON text."""
    if not isinstance(item, dict):
        return Entry(None, None, None, None, json.dumps(item), "is not a JSON object")
    link = _text(item, "url") or _text(item, "external_url")
    return Entry(_absolute(base_url, link) if link else None, _text(item, "title"),
                 _text(item, "summary") or _text(item, "content_text"),
                 _json_date(_text(item, "date_published") or _text(item, "date_modified")),
                 _text(item, "id"), None if link else "has no link")


def _text(item: dict, name: str) -> str | None:
    """A string field of an entry, lone surrogates (a JSON ``\\ud800``) replaced so that it can
    be hashed and written; None when it is absent, blank or not a string."""
    value = item.get(name)
    return without_surrogates(value) if isinstance(value, str) and value.strip() else None


def _json_date(value: str | None) -> str | None:
    """An RFC 3339 date of a JSON Feed in UTC, as RSS and Atom dates are given."""
    moment = epoch_seconds(value)
    return iso_date(moment) if moment is not None else None


def discover_feeds(html: bytes | str, base_url: str) -> list[str]:
    """Feed URLs a page announces with ``<link rel=alternate type=...rss/atom...>``, comment
    feeds left out; FeedError when there is none."""
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(html if isinstance(html, str) else html.decode("utf-8", "replace"))
    found: list[str] = []
    for link in tree.css("link[rel][href]"):
        attrs = link.attributes
        rels = (attrs.get("rel") or "").lower().split()
        kind = (attrs.get("type") or "").lower().split(";")[0].strip()
        title = (attrs.get("title") or "").lower()
        href = (attrs.get("href") or "").strip()
        if "alternate" in rels and kind in FEED_TYPES and href and "comment" not in title + href:
            found.append(_absolute(base_url, href))
    if not found:
        raise FeedError("the page is neither a feed nor announces one (no <link rel=alternate "
                        "type=application/rss+xml or atom+xml>)")
    return list(dict.fromkeys(found))
