"""Where the stream's records go, written so that a kill at any moment duplicates nothing.

A JSON-lines file grows by one line per record; the line is flushed and synced to disk *before*
the state records the file's new length in the same transaction as the item's outcome. On
restart the file is cut back to the recorded length, dropping a line whose item was not
recorded as finished (that item runs again and writes it again). A folder gets one JSON file per
page (written under a temporary name and renamed, so a rerun replaces it) and its error
records in ``errors.jsonl``, kept as above.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import xxhash

from grist.errors import StateError
from grist.io.atomic import remove_stale_temporaries, write_atomically
from grist.io.sinks import short_name

Position = tuple[str, int]


def _line(record: dict[str, Any]) -> bytes:
    return (json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


class Sink(Protocol):
    def write(self, record: dict[str, Any]) -> Position | None:
        """Write one record durably; returns the (file, length) the state must record."""

    def close(self) -> None: ...


class JsonLinesSink:
    """One JSON object per line, appended to ``path`` (see the module doc)."""

    def __init__(self, path: str | Path, committed: int | None) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        size = self.path.stat().st_size if self.path.exists() else 0
        if committed is not None and self.path.exists() and size < committed:
            raise StateError(f"{self.path} is shorter ({size} bytes) than the state recorded "
                             f"({committed} bytes): it was changed outside grist; move it away "
                             "to start a new output file")
        self.handle = open(self.path, "ab")  # noqa: SIM115 - kept open for the whole run
        if committed is not None and size > committed:
            self.handle.truncate(committed)  # lines of items that did not finish
        self.key = str(self.path.resolve())

    def write(self, record: dict[str, Any]) -> Position:
        try:
            self.handle.write(_line(record))
            self.handle.flush()
            os.fsync(self.handle.fileno())
        except OSError as exc:  # a full disk: stop; the rerun cuts the partial line
            raise StateError(f"cannot write {self.path}: {exc.strerror or exc}") from None
        return self.key, self.handle.tell()

    def close(self) -> None:
        with contextlib.suppress(OSError):  # the failed write said why; a rerun cuts its line
            self.handle.close()


class FolderSink:
    """One ``<domain>/<hash of the URL key>.json`` file per page; errors in ``errors.jsonl``.
    The temporaries a killed run left in a domain's folder are removed the first time this run
    writes there (``grist.io.atomic.remove_stale_temporaries``)."""

    def __init__(self, folder: str | Path, committed: int | None) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.errors = JsonLinesSink(self.folder / "errors.jsonl", committed)
        self.entered: set[Path] = set()  # domain folders written into by this run

    @property
    def key(self) -> str:
        return self.errors.key

    def write(self, record: dict[str, Any]) -> Position | None:
        if "error" in record or not record.get("url_key"):
            return self.errors.write(record)
        folder = short_name(record.get("domain") or "pages")
        target = self.folder / folder / f"{xxhash.xxh3_64_hexdigest(record['url_key'].encode())}.json"
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.parent not in self.entered:
                remove_stale_temporaries(target.parent)
                self.entered.add(target.parent)
            write_atomically(target, _line(record))
        except OSError as exc:
            raise StateError(f"cannot write {target}: {exc.strerror or exc}") from None
        return None

    def close(self) -> None:
        self.errors.close()


def open_sink(out: str | Path,
              committed: Callable[[str], int | None]) -> JsonLinesSink | FolderSink:
    """A JSON-lines file when ``out`` ends in ``.jsonl``, else a folder; ``committed(path)`` is
    the length the state recorded for a file (by its resolved path), None when it has none."""
    path = Path(out)
    try:
        if path.suffix == ".jsonl":
            return JsonLinesSink(path, committed(str(path.resolve())))
        return FolderSink(path, committed(str((path / "errors.jsonl").resolve())))
    except OSError as exc:  # a folder that cannot be made, a file where the folder should be
        raise StateError(f"cannot write the output {path}: {exc.strerror or exc}") from None
