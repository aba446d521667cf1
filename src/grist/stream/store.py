"""The stream's state, in SQLite (WAL) by default, behind a small interface (``StreamStore``).

What it holds: the feeds (validators for conditional requests, when each is due), the item
queue with the readers' item history (an item is accepted once per reader and keeps a status:
pending, retry, done, duplicate, failed), every URL key ever accepted (duplicate removal), the
documents the URL Tree holds (its counters are rebuilt from them, so they cannot drift), the
byte offset of each output file and the running totals.

Every step that changes several of these is one transaction (``finish``): a process killed at
any moment (kill -9) leaves the state of the last finished item, and the runner resumes there.
A file of another version, not a grist state file, or corrupt gets a ``StateError``, never a
silent reset.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol

import numpy as np

from grist.errors import StateError
from grist.io.locks import lock_exclusively
from grist.stream.tree import DocRecord

FORMAT, VERSION = "grist-stream-state", 1
COUNTERS = ("feeds_polled", "pages_fetched", "duplicates", "extracted", "errors")
PENDING, RETRY, DONE, DUPLICATE, FAILED = "pending", "retry", "done", "duplicate", "failed"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS feeds (
    url TEXT PRIMARY KEY, reader TEXT NOT NULL, origin TEXT, interval REAL, etag TEXT,
    last_modified TEXT, next_poll REAL NOT NULL DEFAULT 0, polls INTEGER NOT NULL DEFAULT 0,
    failures INTEGER NOT NULL DEFAULT 0, status TEXT);
CREATE TABLE IF NOT EXISTS items (
    id INTEGER PRIMARY KEY AUTOINCREMENT, reader TEXT NOT NULL, item_hash TEXT NOT NULL,
    url TEXT NOT NULL, title TEXT, date TEXT, source TEXT, status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0, next_try REAL NOT NULL DEFAULT 0, reason TEXT,
    url_key TEXT, UNIQUE (reader, item_hash));
CREATE INDEX IF NOT EXISTS items_todo ON items (status, next_try);
CREATE TABLE IF NOT EXISTS url_keys (key TEXT PRIMARY KEY, item INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS docs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT UNIQUE NOT NULL, url TEXT NOT NULL,
    date REAL, hashes BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS sinks (path TEXT PRIMARY KEY, offset INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
"""


@dataclass(frozen=True)
class Item:
    """A page to process: a feed item (or a replayed page) and where it stands."""

    id: int
    reader: str
    url: str
    title: str | None
    date: str | None
    source: str | None
    attempts: int


@dataclass(frozen=True)
class NewItem:
    """An item as a reader found it; ``item_hash`` is its identity in the reader's history. One
    that gives no page (no link) joins the history already failed, its error record written."""

    reader: str
    item_hash: str
    url: str
    title: str | None = None
    date: str | None = None
    source: str | None = None
    status: str = PENDING
    reason: str | None = None


@dataclass(frozen=True)
class Outcome:
    """How an item ended, written in one transaction with everything it changed."""

    status: str
    reason: str | None = None
    url_key: str | None = None
    doc: DocRecord | None = None
    evicted: tuple[str, ...] = ()
    sink: tuple[str, int] | None = None
    counters: tuple[str, ...] = ()
    next_try: float | None = None


class StreamStore(Protocol):
    """What the pipeline needs from its state (SQLite here; another backend keeps this)."""

    def record_poll(self, url: str, fields: dict[str, object], items: Iterable[NewItem],
                    counters: Iterable[str], sink: tuple[str, int] | None = None) -> int: ...
    def known(self, reader: str, hashes: Iterable[str]) -> set[str]: ...
    def due_items(self, now: float, limit: int) -> list[Item]: ...
    def key_item(self, key: str) -> int | None: ...
    def finish(self, item: Item, outcome: Outcome) -> None: ...
    def docs(self) -> Iterator[DocRecord]: ...
    def sink_offset(self, path: str) -> int | None: ...
    def counters(self) -> dict[str, int]: ...
    def feed(self, url: str) -> dict | None: ...
    def feeds(self) -> list[dict]: ...
    def claim(self, new: NewItem) -> Item | None: ...
    def close(self) -> None: ...


class SqliteStore:
    """``StreamStore`` in one SQLite file (WAL journal; ``:memory:`` for a throw-away run)."""

    def __init__(self, path: str | Path, *, hash_name: str) -> None:
        self.path = str(path)
        existed = self.path != ":memory:" and Path(self.path).exists()
        self._owner = self._own()
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, timeout=30.0)
            self._check(existed, hash_name)  # before anything writes to a file not ours
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
        except sqlite3.DatabaseError as exc:
            if self._owner is not None:
                self._owner.close()
            raise StateError(f"{self.path} is not a usable grist stream state file ({exc}); "
                             "move it away to start a new state") from None

    def _own(self) -> IO[bytes] | None:
        """An exclusive lock on the state file for this process's life, taken before SQLite
        opens it: a second grist stream on the same state would write the same pages twice. (A
        flock, which SQLite's own locks do not touch; it goes when the process ends, even by
        kill -9.)"""
        if self.path == ":memory:":
            return None
        try:
            handle = open(self.path, "ab")  # noqa: SIM115 - held until close(); makes the file
        except OSError as exc:
            raise StateError(f"cannot open the state file {self.path}: "
                             f"{exc.strerror or exc}") from None
        if not lock_exclusively(handle):
            handle.close()
            raise StateError(f"{self.path} is in use by another grist stream; stop it first, "
                             "or give this one its own --state")
        return handle

    def _check(self, existed: bool, hash_name: str) -> None:
        tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if existed and tables and "meta" not in tables:
            raise StateError(f"{self.path} is an SQLite file but not a grist stream state file")
        with self.transaction():
            for statement in _SCHEMA.split(";"):
                if statement.strip() and not tables:
                    self.db.execute(statement)
            meta = dict(self.db.execute("SELECT name, value FROM meta"))
            if not meta:
                if tables:
                    raise StateError(f"{self.path} has no grist state header (damaged?)")
                self.db.executemany("INSERT INTO meta VALUES (?, ?)", [
                    ("format", FORMAT), ("version", str(VERSION)), ("hash", hash_name),
                    ("created", str(time.time()))])
                self.db.executemany("INSERT INTO counters VALUES (?, 0)", [(c,) for c in COUNTERS])
                return
        if meta.get("format") != FORMAT:
            raise StateError(f"{self.path} is not a grist stream state file")
        if meta.get("version") != str(VERSION):
            raise StateError(f"{self.path} is a version {meta.get('version')} stream state; this "
                             f"grist reads version {VERSION} (use the grist that wrote it, or "
                             "start a new state file)")
        if meta.get("hash") != hash_name:
            raise StateError(f"{self.path} was built with the {meta.get('hash')} block hash, not "
                             f"{hash_name}: its URL Tree cannot be read with another one")

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One atomic step: everything in it is written, or (on any error or kill) nothing."""
        try:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            raise StateError(f"the state file {self.path} failed: {exc}") from None

    # -- feeds ---------------------------------------------------------------------------

    def feed(self, url: str) -> dict | None:
        row = self._query("SELECT * FROM feeds WHERE url = ?", (url,), one=True)
        return dict(row) if row else None

    def record_poll(self, url: str, fields: dict[str, object], items: Iterable[NewItem],
                    counters: Iterable[str], sink: tuple[str, int] | None = None) -> int:
        """One poll of a feed, atomically: its new fields (validators, next poll, status), the
        items no reader has seen yet (queued, or failed), the totals and the output offset.
        Returns how many items were new."""
        added = 0
        with self.transaction():
            self.db.execute("INSERT OR IGNORE INTO feeds (url, reader) VALUES (?, ?)",
                            (url, fields.get("reader", "")))
            if fields:
                names = ", ".join(f"{name} = ?" for name in fields)
                self.db.execute(f"UPDATE feeds SET {names} WHERE url = ?", (*fields.values(), url))
            for it in items:
                cursor = self.db.execute(
                    "INSERT OR IGNORE INTO items (reader, item_hash, url, title, date, source, "
                    "status, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (it.reader, it.item_hash, it.url, it.title, it.date, it.source, it.status,
                     it.reason))
                added += cursor.rowcount
            self._count(counters)
            if sink is not None:
                self.db.execute("INSERT OR REPLACE INTO sinks VALUES (?, ?)", sink)
        return added

    def feeds(self) -> list[dict]:
        """Every feed row (listed feeds and those discovered from listed home pages)."""
        return [dict(row) for row in self._query("SELECT * FROM feeds ORDER BY url")]

    # -- items ---------------------------------------------------------------------------

    def claim(self, new: NewItem) -> Item | None:
        """The item for a stored page, queued if new; None when it already finished (a rerun
        of a replay skips it)."""
        with self.transaction():
            self.db.execute(
                "INSERT OR IGNORE INTO items (reader, item_hash, url, title, date, source, "
                "status) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (new.reader, new.item_hash, new.url, new.title, new.date, new.source, PENDING))
            row = self.db.execute(
                "SELECT id, reader, url, title, date, source, attempts, status FROM items "
                "WHERE reader = ? AND item_hash = ?", (new.reader, new.item_hash)).fetchone()
        return Item(*row[:7]) if row[7] in (PENDING, RETRY) else None

    def known(self, reader: str, hashes: Iterable[str]) -> set[str]:
        """The ``hashes`` already in ``reader``'s item history (seen in an earlier poll)."""
        return {h for h in hashes if self._query(
            "SELECT 1 FROM items WHERE reader = ? AND item_hash = ?", (reader, h), one=True)}

    def due_items(self, now: float, limit: int) -> list[Item]:
        """Items waiting (pending, or a retry whose time has come), oldest first."""
        rows = self._query(
            "SELECT id, reader, url, title, date, source, attempts FROM items WHERE "
            "(status = ? OR (status = ? AND next_try <= ?)) ORDER BY id LIMIT ?",
            (PENDING, RETRY, now, limit))
        return [Item(*row) for row in rows]

    def next_retry(self) -> float | None:
        """When the earliest retry is due (None when no item waits for one)."""
        return self._query("SELECT MIN(next_try) FROM items WHERE status = ?", (RETRY,),
                           one=True)[0]

    def waiting(self) -> int:
        """Items pending or waiting for a retry."""
        return self._query("SELECT COUNT(*) FROM items WHERE status IN (?, ?)",
                           (PENDING, RETRY), one=True)[0]

    def key_item(self, key: str) -> int | None:
        row = self._query("SELECT item FROM url_keys WHERE key = ?", (key,), one=True)
        return row[0] if row else None

    def finish(self, item: Item, outcome: Outcome) -> None:
        """Record an item's outcome and all it changed, atomically."""
        with self.transaction():
            self.db.execute(
                "UPDATE items SET status = ?, reason = ?, url_key = ?, attempts = attempts + 1, "
                "next_try = ? WHERE id = ?",
                (outcome.status, outcome.reason, outcome.url_key, outcome.next_try or 0, item.id))
            if outcome.status == DONE and outcome.url_key:
                self.db.execute("INSERT INTO url_keys VALUES (?, ?)", (outcome.url_key, item.id))
            if outcome.doc is not None:
                doc = outcome.doc
                self.db.execute("INSERT INTO docs (key, url, date, hashes) VALUES (?, ?, ?, ?)",
                                (doc.key, doc.url, doc.date, doc.hashes.astype("<u8").tobytes()))
            self.db.executemany("DELETE FROM docs WHERE key = ?", [(k,) for k in outcome.evicted])
            if outcome.sink is not None:
                self.db.execute("INSERT OR REPLACE INTO sinks VALUES (?, ?)", outcome.sink)
            self._count(outcome.counters)

    def _count(self, names: Iterable[str]) -> None:
        for name in names:
            self.db.execute("UPDATE counters SET value = value + 1 WHERE name = ?", (name,))

    def docs(self) -> Iterator[DocRecord]:
        """The URL Tree's documents in arrival order."""
        for key, url, date, blob in self._query("SELECT key, url, date, hashes FROM docs "
                                                "ORDER BY seq"):
            yield DocRecord(key, url, np.frombuffer(blob, dtype="<u8").astype(np.uint64), date)

    # -- sinks and totals ----------------------------------------------------------------

    def sink_offset(self, path: str) -> int | None:
        row = self._query("SELECT offset FROM sinks WHERE path = ?", (path,), one=True)
        return row[0] if row else None

    def counters(self) -> dict[str, int]:
        return dict(self._query("SELECT name, value FROM counters"))

    def statuses(self) -> dict[str, int]:
        """How many items have each status."""
        return dict(self._query("SELECT status, COUNT(*) FROM items GROUP BY status"))

    def _query(self, sql: str, args: tuple = (), one: bool = False):  # noqa: ANN202
        try:
            self.db.row_factory = sqlite3.Row if sql.startswith("SELECT *") else None
            cursor = self.db.execute(sql, args)
            return cursor.fetchone() if one else cursor.fetchall()
        except sqlite3.DatabaseError as exc:
            raise StateError(f"the state file {self.path} failed: {exc}") from None

    def close(self) -> None:
        self.db.close()
        if self._owner is not None:
            self._owner.close()  # the lock goes with it
