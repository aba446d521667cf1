"""One page through the stream: URL key, duplicate removal, extraction with the URL Tree, output.

The same ``Processor`` serves the live runner (pages fetched from feed items) and replay (stored
pages). For each item it ends in exactly one state transaction (``StreamStore.finish``), after
the output record is on disk (``grist.stream.sink``): done (a record written, the document in the
tree), duplicate (its URL key was accepted before), retry (a failure that may pass; tried again
later) or failed (an error record with the reason).
"""

from __future__ import annotations

import datetime
import math
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from grist.api import Extractor
from grist.document import RawPage
from grist.errors import FetchError, GristError
from grist.io.dates import epoch_seconds
from grist.io.fetch import FetchConfig
from grist.limits import Limits
from grist.result import Result
from grist.stream.hashing import DEFAULT_HASH
from grist.stream.sink import Sink
from grist.stream.store import DONE, DUPLICATE, FAILED, RETRY, Item, Outcome, SqliteStore
from grist.stream.tree import Retention
from grist.stream.urlkey import branch, url_key
from grist.stream.urltree import UrlTree

BLOCK_FIELDS = ("index", "text", "label", "decided_by", "reason", "score", "role")


@dataclass(frozen=True)
class StreamConfig:
    """Everything a stream run is configured with (the CLI's flags).

    interval: default seconds between two polls of a feed (a feed-list line may set its own);
    max_attempts: tries of a page whose failure may pass before it gets its error record;
    retry_delay: seconds before the first retry of such a page (doubling after each).
    """

    method: str = "auto"
    heuristic: str = "strict"
    combine: bool = True
    hash: str = DEFAULT_HASH
    rules: str | None = None
    retention: Retention = field(default_factory=Retention)
    fetch: FetchConfig = field(default_factory=FetchConfig)
    limits: Limits = field(default_factory=Limits)
    interval: float = 900.0
    max_attempts: int = 4
    retry_delay: float = 300.0


def now_iso() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def error_record(source: str, stage: str, exc: GristError, message: str | None = None,
                 **extra: Any) -> dict[str, Any]:
    """An error record as every grist command writes them (``input``, ``error``, ``reason``),
    with the stage that failed (feed, feed-fetch, fetch, extract, url-key, input) and when."""
    return {"input": source, "error": message or str(exc), "reason": exc.reason, "stage": stage,
            "at": now_iso(), **extra}


class Processor:
    """Turns items and their pages into outcomes (see the module doc); counts this run."""

    def __init__(self, store: SqliteStore, sink: Sink, config: StreamConfig) -> None:
        self.store, self.sink, self.config = store, sink, config
        self.tree = UrlTree(config.heuristic, combine=config.combine, hash=config.hash,
                            rules=config.rules, retention=config.retention)
        self.tree.restore(store.docs())
        self.extractor = Extractor(method=config.method, limits=config.limits)
        self.session: Counter[str] = Counter()

    def exit_status(self) -> int:
        """1 when a feed or an item got an error record in this run, else 0: the convention of
        ``grist extract`` and ``grist batch``, so that cron reports a run with failures."""
        return 1 if self.session["errors"] else 0

    def _finish(self, item: Item, outcome: Outcome) -> str:
        self.store.finish(item, outcome)
        self.session.update(outcome.counters)
        return outcome.status

    def failure(self, item: Item, exc: GristError, stage: str, fetched: bool = False,
                source: str | None = None) -> str:
        """A page that could not be fetched or extracted: retried later when the failure may
        pass and tries remain, else its error record (``source`` names it, default its URL)."""
        attempts = item.attempts + 1
        counted = ("pages_fetched",) if fetched else ()
        if isinstance(exc, FetchError) and exc.retryable and attempts < self.config.max_attempts:
            wait = self.config.retry_delay * 2 ** (attempts - 1)
            return self._finish(item, Outcome(RETRY, str(exc), next_try=time.time() + wait,
                                              counters=counted))
        tries = f" (after {attempts} tries)" if attempts > 1 else ""
        record = error_record(source or item.url, stage, exc, f"{exc}{tries}",
                              reader=item.reader, feed=item.source)
        position = self.sink.write(record)
        return self._finish(item, Outcome(FAILED, str(exc), sink=position,
                                          counters=(*counted, "errors")))

    def page(self, item: Item, page: RawPage, fetched: bool) -> str:
        """Process the page of ``item`` (``page.url`` is the response URL); ``fetched``: it was
        downloaded now (not replayed). The ``_cid_`` is the item's title, or the page's own
        ``<title>`` when the item has none (a stored page), as seed 003 §6 suggests."""
        key: str | GristError | None = None
        if item.title:  # the key is known before any parsing
            key = self._key(item, page, item.title)
            if not isinstance(key, str) or self.store.key_item(key) is not None:
                return self._duplicate_or_bad(item, key, fetched)
        try:
            result = self.extractor(page, stream=self.tree)
        except GristError as exc:
            return self.failure(item, exc, "extract", fetched)
        if key is None:
            key = self._key(item, page, result.title or None)
            if not isinstance(key, str) or self.store.key_item(key) is not None:
                return self._duplicate_or_bad(item, key, fetched)
        record = self.tree.record(key, page.url or item.url, self.tree.hashes(result.blocks),
                                  epoch_seconds(page.date) or time.time())
        evicted = tuple(self.tree.insert(record))
        position = self.sink.write(self._output(item, page, key, result))
        counters = ("pages_fetched", "extracted") if fetched else ("extracted",)
        return self._finish(item, Outcome(DONE, url_key=key, doc=record, evicted=evicted,
                                          sink=position, counters=counters))

    def _key(self, item: Item, page: RawPage, title: str | None) -> str | GristError:
        """The page's URL key, or the error saying why its URL gives none."""
        try:
            return url_key(page.url or item.url, title, self.tree.rules, self.tree.hash)
        except ValueError as exc:
            return GristError(f"the page's URL gives no URL key: {exc}")

    def _duplicate_or_bad(self, item: Item, key: str | GristError, fetched: bool) -> str:
        counted = ("pages_fetched",) if fetched else ()
        if isinstance(key, GristError):
            return self.failure(item, key, "url-key", fetched)
        first = self.store.key_item(key)
        return self._finish(item, Outcome(DUPLICATE, f"same URL key as item {first}",
                                          url_key=key, counters=(*counted, "duplicates")))

    def _output(self, item: Item, page: RawPage, key: str, result: Result) -> dict[str, Any]:
        blocks = [{name: getattr(b, name) for name in BLOCK_FIELDS} for b in result.blocks]
        for block in blocks:
            score = block["score"]
            block["score"] = float(score) if score is not None and math.isfinite(score) else None
        return {"url": page.url, "request_url": item.url, "url_key": key,
                "domain": branch(key)[0], "title": item.title or result.title,
                "date": page.date, "reader": item.reader, "feed": item.source,
                "method": result.method, "text": result.text,
                "empty_reason": result.empty_reason, "warnings": list(result.warnings),
                "tree_blocks": sum(b.decided_by == self.tree.source for b in result.blocks),
                "blocks": blocks}
