"""Feeds: the feed list, RSS/Atom/JSON Feed parsing, item history hashes, discovery, which feeds are due."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from grist.errors import FeedError
from grist.stream.feeds import (
    Entry,
    FeedSpec,
    discover_feeds,
    parse_duration,
    parse_feed,
    read_feed_list,
)
from grist.stream.pipeline import Processor, StreamConfig
from grist.stream.runner import Runner
from grist.stream.sink import JsonLinesSink
from grist.stream.store import SqliteStore

RSS = b"""<?xml version="1.0"?><rss version="2.0"><channel><title>News</title><ttl>45</ttl>
<item><title>First</title><link>/a/1.html</link><description>One</description>
<pubDate>Tue, 07 Jan 2020 10:00:00 +0100</pubDate></item>
<item><title>No link</title></item></channel></rss>"""
ATOM = b"""<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">
<title>t</title><entry><title>Second</title><link rel="alternate" href="https://b.example/2"/>
<updated>2020-01-08T00:00:00Z</updated><summary>Two</summary><id>x</id></entry></feed>"""


def test_rss_and_atom_entries_with_absolute_links_and_utc_dates() -> None:
    rss = parse_feed(RSS, "https://a.example/feed.xml")
    assert rss.entries == [Entry("https://a.example/a/1.html", "First", "One",
                                 "2020-01-07T09:00:00+00:00"),
                           Entry(None, "No link", None, None, problem="has no link")]
    assert rss.ttl == 45 * 60 and rss.malformed is None and rss.status() == "ok: 2 items"
    atom = parse_feed(ATOM, "https://b.example/atom")
    assert atom.entries == [Entry("https://b.example/2", "Second", "Two",
                                  "2020-01-08T00:00:00+00:00", "https://b.example/x")]
    assert atom.ttl is None


@pytest.mark.parametrize("content", [b"not xml {", b"<html><body>a page</body></html>", b""])
def test_what_is_not_a_feed_is_a_feed_error(content: bytes) -> None:
    with pytest.raises(FeedError, match="not an RSS or Atom feed"):
        parse_feed(content, "https://a.example/feed")


def test_a_json_feed_gives_its_items_with_utc_dates() -> None:
    feed = json.dumps({"version": "https://jsonfeed.org/version/1.1", "items": [
        {"id": "1", "url": "/j/1", "title": "One", "summary": "S",
         "date_published": "2020-01-07T10:00:00+01:00"},
        {"id": "2", "external_url": "https://c.example/2", "content_text": "T",
         "date_modified": "2020-01-08T00:00:00Z"},
        {"id": "3", "title": "no link"}, "not an item",
        {"id": "4", "url": "https://c.example/4", "date_published": "yesterday"}]}).encode()
    assert parse_feed(b"\xef\xbb\xbf " + feed, "https://c.example/feed.json").entries == [
        Entry("https://c.example/j/1", "One", "S", "2020-01-07T09:00:00+00:00", "1"),
        Entry("https://c.example/2", None, "T", "2020-01-08T00:00:00+00:00", "2"),
        Entry(None, "no link", None, None, "3", "has no link"),
        Entry(None, None, None, None, '"not an item"', "is not a JSON object"),
        Entry("https://c.example/4", None, None, None, "4")]
    lone = parse_feed(b'{"items": [{"url": "/j/\\ud800", "title": "T\\udfff"}]}', "https://c.example/f")
    assert lone.entries == [Entry("https://c.example/j/\ufffd", "T\ufffd", None, None)]
    assert lone.entries[0].identity()  # hashable: no lone surrogate left
    deep = b'{"items": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    for content in (b'{"items": "none"}', b"{broken", b'{"version": "x"}', deep):
        with pytest.raises(FeedError, match="not a JSON feed"):
            parse_feed(content, "https://c.example/feed.json")


@pytest.mark.parametrize(("ttl", "seconds"), [("45", 2700.0), ("\u00b2", None), ("-5", None),
                                              ("9" * 400, 86400.0), ("0000030", 1800.0)])
def test_a_feed_ttl_is_whole_minutes_up_to_a_day(ttl: str, seconds: float | None) -> None:
    rss = RSS.replace(b"<ttl>45</ttl>", f"<ttl>{ttl}</ttl>".encode())
    assert parse_feed(rss, "https://a.example/feed.xml").ttl == seconds


def test_a_date_no_calendar_holds_is_no_date() -> None:
    atom = ATOM.replace(b"2020-01-08T00:00:00Z", b"9999-12-31T23:59:59-14:00")
    [entry] = parse_feed(atom, "https://b.example/atom").entries
    assert entry.url == "https://b.example/2" and entry.date is None


@pytest.mark.parametrize("content", [
    b'<?xml version="1.0" encoding="\xff\xfe"?><rss version="2.0"><channel></channel></rss>',
    RSS.replace(b"One", b"&#99999999999999999999;")])
def test_a_feed_that_breaks_feedparser_is_a_feed_error(content: bytes) -> None:
    with pytest.raises(FeedError, match="not a readable feed"):
        parse_feed(content, "https://a.example/feed.xml")


def test_item_history_hash_covers_title_description_date_link_and_guid() -> None:
    """Items that differed only by their link (a feed of bare links) were one item."""
    base = Entry("https://a.example/1", "T", "D", "2020-01-01", "g")
    assert base.identity() == Entry("https://a.example/1", "T", "D", "2020-01-01", "g").identity()
    others = {Entry(base.url, "T2", "D", "2020-01-01", "g").identity(),
              Entry(base.url, "T", "D2", "2020-01-01", "g").identity(),
              Entry(base.url, "T", "D", "2020-01-02", "g").identity(),
              Entry("https://a.example/2", "T", "D", "2020-01-01", "g").identity(),
              Entry(base.url, "T", "D", "2020-01-01", "h").identity()}
    assert base.identity() not in others and len(others) == 5
    assert len(base.identity("md5")) == 32


def test_discovery_follows_alternate_links_and_skips_comment_feeds() -> None:
    page = ("<html><head><link rel='alternate' type='application/rss+xml' href='/rss'>"
            "<link rel='alternate stylesheet' href='/x.css'>"
            "<link rel='alternate' type='application/atom+xml' title='Comments' href='/c'>"
            "<link rel='alternate' type='application/atom+xml' href='https://f.example/atom'>"
            "</head></html>")
    assert discover_feeds(page, "https://a.example/blog/") == [
        "https://a.example/rss", "https://f.example/atom"]
    with pytest.raises(FeedError, match="neither a feed nor announces one"):
        discover_feeds("<html><p>nothing</p></html>", "https://a.example/")


def test_the_feed_list_reads_options_and_names_readers(tmp_path: Path) -> None:
    path = tmp_path / "feeds.txt"
    path.write_text("# comment\n\nhttps://news.bbc.co.uk/rss.xml every=30m  # inline\n"
                    "https://b.example/atom reader=mine every=2h\nhttps://news.bbc.co.uk/rss.xml\n")
    assert read_feed_list(path) == [FeedSpec("https://news.bbc.co.uk/rss.xml", 1800.0, "bbc.co.uk"),
                                    FeedSpec("https://b.example/atom", 7200.0, "mine")]
    assert [parse_duration(d) for d in ("90", "90s", "15m", "1.5h", "1d")] == [
        90, 90, 900, 5400, 86400]


def test_only_due_feeds_are_polled_unless_once(tmp_path: Path) -> None:
    (tmp_path / "feeds.txt").write_text("https://a.example/rss\nhttps://b.example/home\n")
    store = SqliteStore(tmp_path / "s.db", hash_name="xxh3")
    later = time.time() + 3600
    store.record_poll("https://a.example/rss", {"reader": "a.example", "origin":
                      "https://a.example/rss", "next_poll": later}, [], ())
    store.record_poll("https://b.example/found.xml", {"reader": "b.example", "origin":
                      "https://b.example/home", "next_poll": 0.0}, [], ())
    store.record_poll("https://b.example/home", {"reader": "b.example", "origin":
                      "https://b.example/home", "next_poll": later}, [], ())
    store.record_poll("https://gone.example/rss", {"reader": "g", "origin":
                      "https://gone.example/rss", "next_poll": 0.0}, [], ())  # no longer listed
    sink = JsonLinesSink(tmp_path / "o.jsonl", None)
    runner = Runner(store, Processor(store, sink, StreamConfig()), tmp_path / "feeds.txt",
                    fetcher=None, status=lambda: None)  # type: ignore[arg-type]
    due = [url for url, _ in runner._due_feeds(time.time(), None)]
    assert due == ["https://b.example/found.xml"]
    every = [url for url, _ in runner._due_feeds(time.time(), {"https://b.example/home"})]
    assert every == ["https://a.example/rss", "https://b.example/found.xml"]


def test_a_feed_list_broken_while_the_stream_runs_keeps_the_last_good_one(tmp_path) -> None:
    """An edit with a typo (or a removed file) stopped a running stream with a ConfigError."""
    import os

    from grist.errors import ConfigError
    from grist.stream.runner import FeedList

    path = tmp_path / "feeds.txt"
    path.write_text("https://a.example/rss every=sometimes\n")
    with pytest.raises(ConfigError, match="feeds.txt:1"):  # at the start: the run stops
        FeedList(path, print).current()
    warnings: list[str] = []
    feeds = FeedList(path, warnings.append)
    path.write_text("https://a.example/rss\nhttps://b.example/rss\n")
    assert [s.url for s in feeds.current()] == ["https://a.example/rss", "https://b.example/rss"]
    for broken in ("https://c.example/rss colour=blue\n", None):
        if broken is None:
            path.unlink()
        else:
            path.write_text(broken)
            os.utime(path, (1, 1))  # a new modification time, however fast the test runs
        assert [s.url for s in feeds.current()] == ["https://a.example/rss",
                                                    "https://b.example/rss"]
        assert [s.url for s in feeds.current()] == ["https://a.example/rss",  # told once
                                                    "https://b.example/rss"]
    assert len(warnings) == 2
    assert "unknown option 'colour'" in warnings[0] and "cannot read the feed list" in warnings[1]
    assert all(w.endswith("polling the 2 feed(s) of the list as last read") for w in warnings)
    path.write_text("https://d.example/rss\n")  # mended: read again
    assert [s.url for s in feeds.current()] == ["https://d.example/rss"]
