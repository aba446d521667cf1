"""Where results go: stdout (one page, or a batch with headers or as JSON lines) or one file per
page, with notes and error records on stderr; and the one-line summary every batch ends with.

Every input gets exactly one record: a result or an error (``{"input": ..., "error": ...,
"reason": ...}`` in JSON lines, with the page's ``url`` and ``date`` when its source gave them),
so the summary's counts add up to the inputs read.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import xxhash
from tqdm import tqdm

from grist.document import RawPage
from grist.errors import GristError
from grist.html.load import without_surrogates
from grist.io.atomic import name_start, remove_stale_temporaries, write_atomically
from grist.render import FORMATS
from grist.render import csv_output
from grist.render.json_output import dumps, result_dict
from grist.result import Result

if TYPE_CHECKING:  # pragma: no cover
    from grist.io.sources import Skipped


def reason_of(exc: BaseException) -> str:
    """The short machine-readable kind of a failure (``internal-error`` for a non-grist one)."""
    return getattr(exc, "reason", "internal-error") if isinstance(exc, GristError) else "internal-error"


def message_of(exc: BaseException) -> str:
    """What a user reads about a failure: the grist message, or the type of an internal error."""
    return str(exc) if isinstance(exc, GristError) else f"{type(exc).__name__}: {exc}"


PAGE_FIELDS = ("url", "date")  # what a page's source says of it, in every record of the page


def page_fields(page: RawPage | None, url: str | None = None,
                date: str | None = None) -> dict[str, Any]:
    """A page's ``PAGE_FIELDS``: its ``url`` (null when unknown) and ``date`` if known (a
    WARC-Date or a JSON line's, not its metadata's); for no page, those its source knew."""
    if page is not None:
        url, date = page.url, page.date
    fields: dict[str, Any] = {"url": url} if page is not None or url else {}
    if date:
        fields["date"] = date
    return fields


def page_output(result: Result, fmt: str, fields: dict[str, Any]) -> str:
    """A page's result in ``fmt`` with its ``page_fields`` where the format has a place for
    them: CSV's ``crawl_date`` column (its ``url`` column is the result's)."""
    if fmt == "csv":
        return csv_output.render(result, result.options, crawl_date=fields.get("date"))
    return result.render(fmt)


def json_line(label: str, fields: dict[str, Any], record: dict[str, Any]) -> str:
    """A page's line of a batch's JSON lines: its input, its ``page_fields``, then its result or
    error record (a result's own ``url`` wins)."""
    return dumps({"input": label, **fields, **record})


class UnwritableOutput(GristError):
    """A page's --out file that cannot be written (a full disk, a read-only folder): the batch
    stops, since every page after it would fail the same way."""


MAX_NAME = 200  # bytes of a file or folder name grist makes, within file systems' 255


def short_name(name: str) -> str:
    """``name`` as a file or folder name: itself, or when longer than ``MAX_NAME`` bytes (a long
    URL, a record's id) its start and a hash of the whole, so names stay distinct."""
    data = os.fsencode(name)
    if len(data) <= MAX_NAME:
        return name
    return f"{name_start(name, MAX_NAME - 17)}-{xxhash.xxh3_64_hexdigest(data)}"

@dataclass
class Summary:
    """What a batch did: pages read, results, errors by kind, files of a folder skipped as not
    HTML, time; ``line()`` says it in one line for stderr, written whether stderr is a terminal
    or not."""

    command: str
    results: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    skipped_files: int = 0  # files of a folder that are not HTML pages
    started: float = field(default_factory=time.perf_counter)
    skipped: Counter[str] = field(default_factory=Counter)  # input records that are not pages
    notes: list[str] = field(default_factory=list)  # more clauses for the line

    @property
    def pages(self) -> int:
        return self.results + sum(self.errors.values())

    def line(self) -> str:
        kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(self.errors.items()))
        errors = sum(self.errors.values())
        skipped = f", {counted(self.skipped_files, 'other file')} skipped" if self.skipped_files else ""
        return (f"grist {self.command}: {counted(self.pages, 'page')}, "
                f"{counted(self.results, 'result')}, {counted(errors, 'error')}"
                f"{f' ({kinds})' if kinds else ''}{skipped} in "
                f"{time.perf_counter() - self.started:.1f} s"
                + "".join(f"; {note}" for note in self.notes))


def skipped_line(label: str, reason: str) -> str:
    """The stderr line naming a file of a folder that is not an HTML page, and why."""
    return f"grist: skipped: {label}: {reason}"


def name_skipped(files: Iterable[Skipped], quiet: bool) -> None:
    """Name each file of a folder that is not an HTML page on stderr (``skipped_line``), unless
    ``quiet``: for commands that collect them while they read and say so at the end."""
    if not quiet:
        for skipped in files:
            print(skipped_line(skipped.input, skipped.reason), file=sys.stderr)


def counted(n: int, noun: str) -> str:
    """``n`` and the noun, plural unless n is 1 ("1 page", "3 pages")."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


class ResultSink:
    """Writes each page's result or error record where the user asked, past the progress bar.

    ``fmt`` is an output format of ``grist.render.FORMATS``; ``out`` a folder for one file per
    page (None: stdout); ``batch`` whether several pages are written (headers or JSON lines).
    """

    def __init__(self, fmt: str, out: Path | None, batch: bool, bar: tqdm, quiet: bool,
                 summary: Summary) -> None:
        self.fmt, self.out, self.batch, self.bar, self.quiet = fmt, out, batch, bar, quiet
        self.summary = summary
        self.used: set[str] = set()
        self.printed = 0
        if out is not None:  # what a run killed mid-write left beside its files
            remove_stale_temporaries(out, recursive=True)

    def _write(self, text: str, stream: TextIO) -> None:
        """Write ``text`` past the progress bar, a name that is not UTF-8 with U+FFFD for each
        of its undecodable bytes (as its JSON gives it), so that the output stays UTF-8."""
        self.bar.write(without_surrogates(text), file=stream)
        stream.flush()

    def result(self, label: str, name: str, result: Result, fields: dict[str, Any]) -> None:
        """Write one page's result (``fields``: its ``page_fields``) and its notes on stderr
        unless quiet."""
        if self.fmt == "json" and self.batch and self.out is None:
            text = json_line(label, fields, result_dict(result, result.options))
        elif self.fmt == "csv":  # the input named; on stdout one table, the header once
            text = csv_output.row(result, result.options, label, fields.get("date"))
            if self.out is not None or not self.printed:
                text = csv_output.header() + "\n" + text
        else:
            text = result.render(self.fmt)
        notes = [f"nothing extracted: {result.empty_reason}"] if result.empty_reason else []
        self.rendered(label, name, text, notes + list(result.warnings))

    def rendered(self, label: str, name: str, text: str, notes: list[str]) -> None:
        """Write one page's already rendered result and its notes (the batch executor's path)."""
        if self.out is not None:
            try:  # a page's file is whole or absent, even when the run is killed
                write_atomically(self._file(name), without_surrogates(text + "\n").encode("utf-8"),
                                 sync=False)
            except (OSError, GristError) as exc:  # a full disk, a folder where the file goes
                # (regular_target): stop, as every page after would fail (a rerun writes all)
                why = exc.strerror or exc if isinstance(exc, OSError) else exc
                raise UnwritableOutput(f"cannot write into {self.out}: {why}") from None
        elif self.batch and self.fmt not in ("json", "csv"):
            gap = "\n" if self.printed else ""
            self._write(f"{gap}==> {label} <==\n{text}", sys.stdout)
        elif text:
            self._write(text, sys.stdout)
        self.summary.results += 1  # (written: a page whose output failed is not counted)
        self.printed += 1
        if self.quiet:
            return
        for note in notes:
            self._write(f"grist: note: {label}: {note}", sys.stderr)

    def skipped(self, label: str, reason: str) -> None:
        """A file of a folder that is not an HTML page: counted, and named unless quiet."""
        self.summary.skipped_files += 1
        if not self.quiet:
            self._write(skipped_line(label, reason), sys.stderr)

    def error(self, label: str, exc: BaseException, fields: dict[str, Any]) -> None:
        """Write one page's error record (JSON lines on stdout, with ``fields``: its
        ``page_fields``) and its line on stderr."""
        reason, message = reason_of(exc), message_of(exc)
        self.summary.errors[reason] += 1
        if self.fmt == "json" and self.out is None:
            self._write(json_line(label, fields, {"error": message, "reason": reason}),
                        sys.stdout)
        self._write(f"grist: error: {label}: {message}", sys.stderr)

    def _file(self, name: str) -> Path:
        assert self.out is not None
        stem, n = name, 1
        while stem in self.used:
            n += 1
            stem = f"{name}-{n}"
        self.used.add(stem)
        path = self.out / ("/".join(map(short_name, stem.split("/"))) + FORMATS[self.fmt].suffix)
        path.parent.mkdir(parents=True, exist_ok=True)
        return path
