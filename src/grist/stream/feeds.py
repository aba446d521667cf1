"""Feeds: the user's feed list, RSS/Atom parsing (feedparser), discovery and item history.

A *reader* (seed 003 §2) follows one site through one or more feeds and remembers every item it
accepted by a hash of the item's title, description and publication date, so an item seen again
in the next poll is not fetched twice. Readers are named after the site's domain unless the
feed list names them.

The feed list is a text file, one feed a line, ``#`` for comments::

    https://www.example.com/rss.xml   every=30m   reader=example
    https://blog.example.org/          # a home page: its <link rel=alternate> feeds are used
"""

from __future__ import annotations

import calendar
import datetime
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin

from grist.errors import ConfigError, FeedError
from grist.stream.hashing import DEFAULT_HASH, title_hash
from grist.stream.urlkey import domain_of, normalise_url

FEED_TYPES = ("application/rss+xml", "application/atom+xml", "application/rdf+xml",
              "application/feed+json")
_DURATION = re.compile(r"(\d+(?:\.\d+)?)([smhd]?)")
_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


@dataclass(frozen=True)
class FeedSpec:
    """A line of the feed list: the URL, its polling interval (seconds, None: the default) and
    the reader it belongs to."""

    url: str
    interval: float | None
    reader: str


@dataclass(frozen=True)
class Entry:
    """A feed item: the page's URL, and the metadata the reader hashes."""

    url: str
    title: str | None
    description: str | None
    date: str | None

    def identity(self, hash_name: str = DEFAULT_HASH) -> str:
        """The item-history hash of title, description and date (seed 003 §2)."""
        return title_hash("\x1f".join((self.title or "", self.description or "", self.date or "")),
                          hash_name)


@dataclass(frozen=True)
class ParsedFeed:
    entries: list[Entry]
    ttl: float | None  # seconds the feed asks readers to wait (RSS <ttl>), when it says


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
    for name in ("published_parsed", "updated_parsed", "created_parsed"):
        parsed = entry.get(name)
        if parsed:
            seconds = calendar.timegm(parsed)
            return datetime.datetime.fromtimestamp(seconds, datetime.UTC).isoformat()
    return None


def parse_feed(content: bytes, base_url: str, headers: dict[str, str] | None = None) -> ParsedFeed:
    """The entries of an RSS or Atom document; FeedError when it is not a feed."""
    import feedparser

    parsed = feedparser.parse(content, response_headers={"content-location": base_url,
                                                         **(headers or {})})
    if not parsed.get("version") and not parsed.entries:
        problem = parsed.get("bozo_exception")
        detail = f": {problem}" if problem else ""
        raise FeedError(f"not an RSS or Atom feed{detail}")
    entries = []
    for entry in parsed.entries:
        link = entry.get("link") or next((ln.get("href") for ln in entry.get("links", ())
                                          if ln.get("href")), None)
        if not link:
            continue
        entries.append(Entry(urljoin(base_url, link), entry.get("title"),
                             entry.get("summary") or entry.get("description"), _date(entry)))
    ttl = parsed.feed.get("ttl")
    return ParsedFeed(entries, float(ttl) * 60 if ttl and str(ttl).isdigit() else None)


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
            found.append(urljoin(base_url, href))
    if not found:
        raise FeedError("the page is neither a feed nor announces one (no <link rel=alternate "
                        "type=application/rss+xml or atom+xml>)")
    return list(dict.fromkeys(found))
