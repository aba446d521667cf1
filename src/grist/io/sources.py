"""Where pages come from: files, folders, stdin, URLs and JSON-lines files, read as RawPages.

``expand(inputs)`` turns what a user typed into ``Source``s without reading them (a folder of a
million files costs a directory walk, not a million reads); ``Source.pages()`` then yields a
``RawPage`` per page, or an ``Unreadable`` record naming the input and the reason, so that a
caller can report every input exactly once and go on. Every command that reads pages
(``extract``, ``dedup``, ``templates``, ``stream --replay``, ``batch``) reads them through here.
"""

from __future__ import annotations

import gzip
import json
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grist.document import RawPage
from grist.errors import DatasetError, GristError, LimitExceededError
from grist.io.fetch import FetchConfig, fetch, is_url
from grist.limits import Limits

PAGE_GLOB = "*.htm*"  # what a folder holds: pages (recursively)
JSON_LINES_SUFFIXES = (".jsonl", ".ndjson")
_UNSAFE = str.maketrans({c: "_" for c in ':/?&=#%*"<>|\\ '})


@dataclass(frozen=True)
class Unreadable:
    """An input that gave no page: which one, and the grist error saying why."""

    input: str
    error: GristError


PageOrError = RawPage | Unreadable


def is_json_lines(path: str | Path) -> bool:
    """Whether a file name says JSON lines (``.jsonl``, ``.ndjson``, optionally ``.gz``)."""
    name = str(path).lower().removesuffix(".gz")
    return name.endswith(JSON_LINES_SUFFIXES)


def json_records(location: str) -> Iterator[tuple[str, dict[str, Any] | GristError]]:
    """``(label, record)`` for every non-empty line of a JSON-lines file (``-``: stdin), the label
    being ``FILE:LINE``; a line that is not a JSON object gives a DatasetError in its place. A
    file that cannot be opened at all raises DatasetError."""
    handle: Any
    if location == "-":
        handle = sys.stdin
    else:
        path = Path(location)
        opener = gzip.open if path.suffix == ".gz" else open
        try:
            handle = opener(path, "rt", encoding="utf-8", errors="replace")
        except OSError as exc:
            raise DatasetError(f"cannot read {location}: {exc.strerror or exc}") from None
    try:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            label = f"{location}:{number}"
            try:
                record = json.loads(line)
            except ValueError as exc:
                yield label, DatasetError(f"line {number} is not JSON ({exc.msg})")
                continue
            if not isinstance(record, dict):
                yield label, DatasetError(f"line {number} is not a JSON object")
                continue
            yield label, record
    except (OSError, EOFError) as exc:  # a truncated or corrupt .gz
        raise DatasetError(f"cannot read {location}: {exc}") from None
    finally:
        if handle is not sys.stdin:
            handle.close()


def record_page(label: str, record: dict[str, Any]) -> PageOrError:
    """The page of a JSON-lines record: its ``html`` (and ``url``, ``date`` when present)."""
    html = record.get("html")
    if not isinstance(html, str):
        return Unreadable(label, DatasetError("the record has no 'html' string field"))
    url = record.get("url")
    name = record.get("id") or record.get("input")
    return RawPage(html, url=url if isinstance(url, str) else None,
                   input=f"{label} ({name})" if isinstance(name, str) and name else label,
                   date=record.get("date") if isinstance(record.get("date"), str) else None)


def read_capped(path: Path | None, limits: Limits) -> bytes:
    """A file's (or stdin's, for None) bytes, refusing more than the size cap before reading."""
    try:
        if path is None:
            data = sys.stdin.buffer.read(limits.max_bytes + 1)
        elif path.stat().st_size > limits.max_bytes:
            raise _too_large(limits)
        else:
            data = path.read_bytes()
    except OSError as exc:
        raise GristError(exc.strerror or str(exc)) from None
    if len(data) > limits.max_bytes:
        raise _too_large(limits)
    return data


def _too_large(limits: Limits) -> LimitExceededError:
    return LimitExceededError(
        f"the page is larger than {limits.max_bytes / 1048576:.1f} MiB (Limits.max_bytes)"
    )


@dataclass(frozen=True)
class Source:
    """One input: ``kind`` is ``file``, ``stdin``, ``url`` or ``jsonl``; ``input`` names it in
    outputs and errors; ``name`` is the stem of its output file; ``location`` its path or URL."""

    kind: str
    input: str
    name: str
    location: str = ""

    def pages(self, limits: Limits | None = None,
              fetch_config: FetchConfig | None = None) -> Iterator[PageOrError]:
        """The input's pages (one, or one per JSON line), each a RawPage or an Unreadable."""
        limits = limits or Limits()
        if self.kind == "jsonl":
            for label, record in json_records(self.location):
                if isinstance(record, GristError):
                    yield Unreadable(label, record)
                else:
                    yield record_page(label, record)
            return
        try:
            if self.kind == "url":
                page = fetch(self.location, fetch_config)
                yield RawPage(page.content, url=page.url, input=self.input,
                              http_charset=page.charset)
                return
            path = None if self.kind == "stdin" else Path(self.location)
            yield RawPage(read_capped(path, limits), input=self.input)
        except GristError as exc:
            yield Unreadable(self.input, exc)


def url_name(url: str) -> str:
    """A file stem for a URL's output file."""
    return url.split("://", 1)[-1].translate(_UNSAFE).strip("_") or "page"


def expand(inputs: Sequence[str]) -> tuple[list[Source], bool]:
    """The sources the inputs name, and whether they form a batch (several inputs, a folder or
    a JSON-lines file). ``-`` is stdin; a folder is searched recursively for pages; a missing
    path or an empty folder raises GristError before anything is read."""
    sources: list[Source] = []
    batch = len(inputs) > 1
    for item in inputs:
        if item == "-":
            sources.append(Source("stdin", "<stdin>", "stdin"))
        elif is_url(item):
            sources.append(Source("url", item, url_name(item), item))
        elif Path(item).is_dir():
            batch = True
            root = Path(item)
            files = sorted(p for p in root.rglob(PAGE_GLOB) if p.is_file())
            if not files:
                raise GristError(f"{item}: no {PAGE_GLOB} files in this folder")
            sources += [Source("file", str(p), str(p.relative_to(root).with_suffix("")), str(p))
                        for p in files]
        elif is_json_lines(item):
            batch = True
            if not Path(item).is_file():
                raise GristError(f"{item}: no such file")
            sources.append(Source("jsonl", item, Path(item).name.split(".")[0], item))
        else:
            sources.append(Source("file", item, Path(item).stem or "page", item))
    return sources, batch
