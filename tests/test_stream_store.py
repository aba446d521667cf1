"""The stream state: clear errors for foreign, corrupt or other-version files; atomic steps;
output files cut back to what the state recorded."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from grist.errors import StateError
from grist.stream.sink import FolderSink, JsonLinesSink, open_sink
from grist.stream.store import DONE, NewItem, Outcome, SqliteStore
from grist.stream.tree import DocRecord


def test_a_new_state_file_is_created_and_reopened(tmp_path) -> None:
    store = SqliteStore(tmp_path / "s.db", hash_name="md5")
    assert store.counters() == dict.fromkeys(
        ("feeds_polled", "pages_fetched", "duplicates", "extracted", "errors"), 0)
    store.close()
    assert SqliteStore(tmp_path / "s.db", hash_name="md5").statuses() == {}
    with sqlite3.connect(tmp_path / "s.db") as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


@pytest.mark.parametrize(("setup", "message"), [
    (lambda p: p.write_bytes(b"garbage" * 500), "not a usable grist stream state file"),
    (lambda p: sqlite3.connect(p).execute("CREATE TABLE other (x)").connection.commit(),
     "an SQLite file but not a grist stream state file"),
    (lambda p: _set_meta(p, "version", "99"), "version 99 stream state; this grist reads "
     "version 1"),
    (lambda p: _set_meta(p, "format", "else"), "not a grist stream state file"),
    (lambda p: _set_meta(p, "hash", "md5"), "built with the md5 block hash"),
])
def test_foreign_corrupt_or_other_version_files_are_refused(tmp_path, setup, message) -> None:
    path = tmp_path / "s.db"
    setup(path)
    before = path.read_bytes()
    with pytest.raises(StateError, match=message):
        SqliteStore(path, hash_name="xxh3")
    assert path.read_bytes() == before  # never a silent reset


def _set_meta(path, name: str, value: str) -> None:
    SqliteStore(path, hash_name="xxh3").close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = ? WHERE name = ?", (value, name))


def test_a_truncated_state_file_is_a_state_error(tmp_path) -> None:
    store = SqliteStore(tmp_path / "s.db", hash_name="xxh3")
    store.record_poll("http://f.example/feed", {"reader": "f"},
                      [NewItem("f", str(i), f"http://f.example/{i}") for i in range(500)], ())
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    data = (tmp_path / "s.db").read_bytes()
    (tmp_path / "s.db").write_bytes(data[: len(data) // 2])
    with pytest.raises(StateError):
        store = SqliteStore(tmp_path / "s.db", hash_name="xxh3")
        store.due_items(1e12, 1000)


def test_an_item_is_accepted_once_per_reader_and_finishes_atomically(tmp_path) -> None:
    store = SqliteStore(tmp_path / "s.db", hash_name="xxh3")
    new = [NewItem("r", "h1", "http://x.example/1", "T"), NewItem("r", "h1", "http://x.example/1")]
    assert store.record_poll("feed", {"reader": "r"}, new, ("feeds_polled",)) == 1
    assert store.record_poll("feed", {"reader": "r"}, new[:1], ("feeds_polled",)) == 0
    other = NewItem("s", "h1", "http://x.example/1", "T")
    assert store.record_poll("feed2", {"reader": "s"}, [other], ()) == 1  # another reader
    assert store.counters()["feeds_polled"] == 2
    item = store.due_items(1e12, 10)[0]
    doc = DocRecord("http://x.example/1", "http://x.example/1", np.array([1, 2], np.uint64), 5.0)
    with pytest.raises(StateError):  # the last statement fails: everything before is undone
        store.finish(item, Outcome(DONE, url_key=doc.key, doc=doc, counters=("extracted",),
                                   sink=("/out", None)))
    assert store.key_item(doc.key) is None and list(store.docs()) == []
    assert store.counters()["extracted"] == 0 and store.statuses() == {"pending": 2}
    store.finish(item, Outcome(DONE, url_key=doc.key, doc=doc, counters=("extracted",)))
    assert store.key_item(doc.key) == item.id and store.counters()["extracted"] == 1
    [kept] = store.docs()
    assert kept.key == doc.key and kept.hashes.tolist() == [1, 2] and kept.date == 5.0


def test_lines_written_after_the_last_commit_are_cut_on_reopen(tmp_path) -> None:
    out = tmp_path / "out.jsonl"
    sink = JsonLinesSink(out, None)
    _, committed = sink.write({"n": 1})
    sink.write({"n": 2})  # written, but the process died before the state recorded it
    sink.close()
    JsonLinesSink(out, committed).close()
    assert out.read_text() == '{"n": 1}\n'
    out.write_text("")  # someone emptied the file: refuse rather than guess
    with pytest.raises(StateError, match="changed outside grist"):
        JsonLinesSink(out, committed)


def test_a_folder_gets_one_file_per_page_and_errors_beside(tmp_path) -> None:
    sink = open_sink(tmp_path / "pages", lambda path: None)
    assert isinstance(sink, FolderSink)
    assert sink.write({"url_key": "http://a.example/1", "domain": "a.example", "text": "x"}) is None
    sink.write({"url_key": "http://a.example/1", "domain": "a.example", "text": "y"})  # a rerun
    position = sink.write({"input": "http://a.example/2", "error": "timed out"})
    sink.close()
    files = list((tmp_path / "pages" / "a.example").glob("*.json"))
    assert len(files) == 1 and '"y"' in files[0].read_text()
    assert position[1] == len((tmp_path / "pages" / "errors.jsonl").read_bytes())


def test_a_state_file_serves_one_stream_at_a_time(tmp_path: Path) -> None:
    """Two streams on one state wrote the same page twice before one of them failed."""
    first = SqliteStore(tmp_path / "s.db", hash_name="xxh3")
    with pytest.raises(StateError, match="in use by another grist stream"):
        SqliteStore(tmp_path / "s.db", hash_name="xxh3")
    first.close()
    SqliteStore(tmp_path / "s.db", hash_name="xxh3").close()  # free again once closed
    with pytest.raises(StateError, match="cannot open the state file"):
        SqliteStore(tmp_path / "no" / "s.db", hash_name="xxh3")
