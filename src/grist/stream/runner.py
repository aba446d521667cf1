"""The live stream (seed 003 Figure 1): poll feeds, fetch new items, process them, forever.

Each feed is polled when it is due (its own interval, a conditional request); new items join
the queue in the state; queued items are fetched concurrently (the fetcher keeps each host
polite) and processed one at a time, in queue order (the tree learns in the same order on every
run), by the ``Processor``. A listed page that is not a feed is
searched for ``<link rel=alternate>`` feeds, which are then polled in its place (the page is
looked at again daily). ``once`` polls every feed once (cron's schedule is then the polling
interval), processes everything due and returns; each run resumes where the last one stopped.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from grist.document import RawPage
from grist.errors import ConfigError, FeedError, FetchError
from grist.io.fetch import AsyncFetcher
from grist.stream.feeds import Entry, FeedSpec, discover_feeds, parse_feed, read_feed_list
from grist.stream.pipeline import Processor, error_record, now_iso
from grist.stream.sink import Position
from grist.stream.store import FAILED, Item, NewItem, SqliteStore

REDISCOVER = 86_400.0  # a home page listed instead of a feed is searched for feeds daily
MAX_BACKOFF = 6 * 3600.0  # a failing feed is polled at least every six hours
BATCH = 32  # items fetched at once (each host still gets its own limit)


@dataclass
class FeedList:
    """The user's feed list, read again when the file changes (edit it while the stream runs).

    A list that cannot be read at the start stops the run (ConfigError). One edited into
    something malformed, or removed, while the stream runs is told to ``rejected`` once, and
    the feeds of the list as last read go on being polled: a typo does not end a stream that
    has run for weeks."""

    path: Path
    rejected: Callable[[str], None]
    mtime: float | None = None  # (None: not read yet)
    specs: tuple[FeedSpec, ...] = ()

    def current(self) -> tuple[FeedSpec, ...]:
        try:
            mtime = self.path.stat().st_mtime
        except OSError:
            mtime = -1.0
        if mtime != self.mtime:
            try:
                self.specs = tuple(read_feed_list(self.path))
            except ConfigError as exc:
                if self.mtime is None:
                    raise
                self.rejected(f"{exc}; polling the {len(self.specs)} feed(s) of the list as "
                              "last read")
            self.mtime = mtime
        return self.specs


class Runner:
    """Owns the loop; ``processor`` does the per-page work, ``status`` is told after each step."""

    def __init__(self, store: SqliteStore, processor: Processor, feeds: Path,
                 fetcher: AsyncFetcher, status: Callable[[], None],
                 warn: Callable[[str], None] = partial(print, file=sys.stderr)) -> None:
        self.store, self.processor, self.fetcher = store, processor, fetcher
        self.feeds = FeedList(feeds, warn)
        self.config = processor.config
        self.status = status
        self.in_flight: set[int] = set()

    # -- feeds ---------------------------------------------------------------------------

    def _due_feeds(self, now: float, polled: set[str] | None) -> list[tuple[str, FeedSpec]]:
        """(feed URL, the listed spec it comes from) of every feed to poll now: those due, or
        with ``polled`` (a run with ``once``) every feed not polled yet in this run."""
        specs = {spec.url: spec for spec in self.feeds.current()}
        rows = {row["url"]: row for row in self.store.feeds()}
        candidates = [(url, specs[url]) for url in specs]
        candidates += [(url, specs[row["origin"]]) for url, row in rows.items()
                       if url not in specs and row["origin"] in specs]
        if polled is not None:
            return [(url, spec) for url, spec in candidates if url not in polled]
        return [(url, spec) for url, spec in candidates
                if url not in rows or rows[url]["next_poll"] <= now]

    async def poll(self, url: str, spec: FeedSpec) -> None:
        """Poll one feed and record the outcome (new items, validators, next poll) atomically."""
        row = self.store.feed(url) or {}
        interval = spec.interval or self.config.interval
        fields: dict[str, object] = {"reader": spec.reader, "origin": spec.url,
                                     "interval": interval, "polls": row.get("polls", 0) + 1}
        try:
            page = await self.fetcher.fetch(url, kinds=None, etag=row.get("etag"),
                                            last_modified=row.get("last_modified"))
            if page.status == 304:
                self._polled(url, fields, interval, "not modified")
                return
            try:  # in a thread: a large feed takes feedparser seconds (5 MB: 12 s of CPU), which
                # the event loop, and the other polls' downloads, waited out whole
                parsed = await asyncio.to_thread(parse_feed, page.content, page.url,
                                                 {"content-type": page.content_type})
            except FeedError:
                if "html" not in page.content_type and b"<html" not in page.content[:2048].lower():
                    raise
                self._discovered(url, spec, fields, discover_feeds(page.content, page.url))
                return
        except (FetchError, FeedError) as exc:
            failures = row.get("failures", 0) + 1
            wait = min(interval * 2 ** min(failures - 1, 8), MAX_BACKOFF)
            fields.update(failures=failures, next_poll=time.time() + wait, status=f"error: {exc}")
            stage = "feed" if isinstance(exc, FeedError) else "feed-fetch"
            position = self.processor.sink.write(error_record(url, stage, exc, reader=spec.reader))
            self._record(url, fields, [], ["feeds_polled", "errors"], position)
            return
        fields.update(etag=page.etag, last_modified=page.last_modified)
        self._polled(url, fields, max(interval, parsed.ttl or 0), parsed.status(),
                     *self._new_items(url, spec.reader, parsed.entries))

    def _new_items(self, url: str, reader: str, entries: list[Entry]
                   ) -> tuple[list[NewItem], list[str], Position | None]:
        """The feed's entries the reader has not seen yet, as items, and what this run counts for
        them: an entry the feed lists twice is a duplicate; one that gives no page gets its
        error record (the last one's position is returned) and joins the history as failed, so
        that it is told once."""
        hashes = [entry.identity(self.config.hash) for entry in entries]
        known = self.store.known(reader, hashes)
        new: dict[str, NewItem] = {}
        counters: list[str] = []
        position = None
        for number, (entry, item_hash) in enumerate(zip(entries, hashes), start=1):
            if item_hash in new:
                counters.append("duplicates")  # the feed lists it twice
            elif item_hash in known:
                continue  # seen in an earlier poll
            elif entry.problem:
                new[item_hash], position = self._pageless(url, reader, number, entry, item_hash)
                counters.append("errors")
            else:
                new[item_hash] = NewItem(reader, item_hash, entry.url, entry.title, entry.date, url)
        return list(new.values()), counters, position

    def _pageless(self, url: str, reader: str, number: int, entry: Entry, item_hash: str
                  ) -> tuple[NewItem, Position | None]:
        """The error record of entry ``number`` of a feed, which gives no page to fetch (no link),
        and its failed item."""
        label = f'"{entry.title}"' if entry.title else "no title"
        exc = FeedError(f"item {number} ({label}) {entry.problem}: there is no page to fetch")
        position = self.processor.sink.write(error_record(url, "feed", exc, reader=reader,
                                                          feed=url, item=number))
        item = NewItem(reader, item_hash, "", entry.title, entry.date, url, FAILED, str(exc))
        return item, position

    def _polled(self, url: str, fields: dict[str, object], wait: float, status: str,
                items: Sequence[NewItem] = (), counters: Sequence[str] = (),
                sink: Position | None = None) -> None:
        fields.update(failures=0, next_poll=time.time() + wait, status=status)
        self._record(url, fields, items, ["feeds_polled", *counters], sink)

    def _record(self, url: str, fields: dict[str, object], items: Sequence[NewItem],
                counters: Sequence[str], sink: Position | None) -> None:
        """A poll's outcome, in the state (one transaction) and in this run's counts."""
        self.store.record_poll(url, fields, items, counters, sink)
        self.processor.session.update(counters)

    def _discovered(self, url: str, spec: FeedSpec, fields: dict[str, object],
                    found: list[str]) -> None:
        for feed in found:
            if self.store.feed(feed) is None:
                self.store.record_poll(feed, {"reader": spec.reader, "origin": spec.url,
                                              "next_poll": 0.0}, [], ())
        self._polled(url, fields, REDISCOVER,
                     f"a page, not a feed: polling the {len(found)} feed(s) it announces")

    # -- items ---------------------------------------------------------------------------

    async def _fetch(self, item: Item) -> tuple[Item, RawPage | FetchError]:
        try:
            page = await self.fetcher.fetch(item.url)
        except FetchError as exc:
            return item, exc
        return item, RawPage(page.content, url=page.url, input=item.url,
                             http_charset=page.charset, date=item.date or now_iso())

    async def process_due(self, stop: asyncio.Event) -> int:
        """Fetch and process the items due now, a batch at a time, until none is left or
        ``stop`` is set; returns how many. Unfinished items stay queued for the next run."""
        done = 0
        while not stop.is_set():
            items = [i for i in self.store.due_items(time.time(), BATCH)
                     if i.id not in self.in_flight]
            if not items:
                return done
            self.in_flight.update(i.id for i in items)
            tasks = [asyncio.ensure_future(self._fetch(i)) for i in items]
            try:
                for task in tasks:  # fetched concurrently, processed in queue order
                    item, outcome = await task
                    if isinstance(outcome, FetchError):
                        self.processor.failure(item, outcome, "fetch")
                    else:
                        self.processor.page(item, outcome, fetched=True)
                    self.in_flight.discard(item.id)
                    done += 1
                    self.status()
                    if stop.is_set():
                        break
            finally:
                for task in tasks:
                    task.cancel()
                self.in_flight.difference_update(i.id for i in items)

    # -- the loop ------------------------------------------------------------------------

    async def run(self, once: bool, stop: asyncio.Event) -> None:
        polled: set[str] = set()
        while not stop.is_set():
            due = self._due_feeds(time.time(), polled if once else None)
            await asyncio.gather(*(self.poll(url, spec) for url, spec in due))
            polled.update(url for url, _ in due)
            self.status()
            await self.process_due(stop)
            if once and not self._due_feeds(time.time(), polled):
                return
            if not once:
                try:
                    await asyncio.wait_for(stop.wait(), timeout=self._idle())
                except TimeoutError:
                    pass

    def _idle(self) -> float:
        """Seconds until the next feed or retry is due (at most a minute, at least a second)."""
        times = [row["next_poll"] for row in self.store.feeds()]
        times.append(self.store.next_retry() or time.time() + 60)
        return max(1.0, min(60.0, min(times) - time.time()))
