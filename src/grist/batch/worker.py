"""The code every worker runs, whatever the executor (local processes or Ray tasks): extract the
pages of one shard into its append-only output, then finish the shard into its final format.

A shard's state lives only in files under ``--out``: ``<shard>.jsonl.part`` (one line per page,
in input order, appended and flushed page by page), ``<shard>.extracted`` (its counts, once every
page has a line) and ``<shard>.done`` (once its final output is in place). After a kill at any
moment, ``resume_point`` cuts a half-written last line and says how many pages are already there,
so the rerun skips exactly those: every page ends up in the output once.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from grist.api import Extractor
from grist.batch.job import JOB_FILE, JobConfig, Plan, Shard, write_atomic
from grist.batch.sites import model_class
from grist.dedup.documents import DocumentSketcher, MinHashConfig
from grist.dedup.minhash import EMPTY
from grist.document import RawPage
from grist.errors import GristError
from grist.io.dates import warc_date
from grist.io.records import FINAL_SUFFIX, write_final
from grist.io.sinks import message_of, page_fields, page_output, reason_of
from grist.io.sources import Source, Unreadable, url_name
from grist.limits import Limits
from grist.methods import method_config, registrations_undone
from grist.render.json_output import dumps

# What a file a folder holds that is not a page is counted as (beside the WARC record types).
NOT_A_PAGE = "file that is not a page"


@dataclass(frozen=True, slots=True)
class Item:
    """One record of a shard: a page to extract, an error already known, or (``skipped`` set) a
    WARC record or a folder's file that is not a page (counted, not written; a file's
    ``reason`` says why it is not a page)."""

    input: str
    source: str
    offset: int | None = None
    page: RawPage | None = None
    error: GristError | None = None
    skipped: str | None = None
    url: str | None = None  # a WARC record's URL and date, known even when its page is not
    date: str | None = None
    reason: str | None = None

    def head(self) -> dict[str, Any]:
        """The fields every output record of this item starts with."""
        head: dict[str, Any] = {"input": self.input, "source": self.source}
        if self.offset is not None:
            head["offset"] = self.offset
        return {**head, **page_fields(self.page, self.url, self.date)}


@dataclass
class ShardCounts:
    """What one shard held: results, errors by kind, records that are not pages by type, and
    each file that is not a page as a record (``skipped_record``) for a caller to name."""

    results: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    duplicates: int = 0
    output_bytes: int | None = None  # the final output's size, in the .done marker
    skipped_files: list[dict[str, Any]] = field(default_factory=list)

    @property
    def pages(self) -> int:
        return self.results + sum(self.errors.values())

    def to_json(self) -> str:
        sized = {} if self.output_bytes is None else {"output_bytes": self.output_bytes}
        return json.dumps({"results": self.results, "errors": dict(self.errors),
                           "skipped": dict(self.skipped), "duplicates": self.duplicates,
                           "skipped_files": self.skipped_files, **sized}, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> ShardCounts:
        data = json.loads(text)
        return cls(data["results"], Counter(data["errors"]), Counter(data["skipped"]),
                   data.get("duplicates", 0), data.get("output_bytes"),
                   data.get("skipped_files", []))

    @classmethod
    def read(cls, marker: Path) -> ShardCounts:
        """The counts a shard's marker holds; GristError when something outside grist damaged
        it (markers are written whole or not at all)."""
        try:
            return cls.from_json(marker.read_text(encoding="utf-8"))
        except (ValueError, KeyError, TypeError) as exc:
            raise GristError(f"{marker} is damaged ({exc}); delete it and the shard's other "
                             f"files ({marker.stem}.*) to extract the shard again") from None


class Reporter(Protocol):
    """Where a worker says which page it is on (the local executor's watchdog listens)."""

    def start(self, number: int, item: Item) -> None: ...

    def done(self, number: int, error: str | None) -> None: ...


class Silent:
    """A reporter that listens to nothing (in-process runs, Ray tasks)."""

    def start(self, number: int, item: Item) -> None:
        pass

    def done(self, number: int, error: str | None) -> None:
        pass


def shard_items(shard: Shard, limits: Limits) -> Iterator[Item]:
    """Every record of the shard, in input order."""
    for index, name in enumerate(shard.inputs):
        kind = shard.kind if shard.kind != "files" else ("url" if "://" in name else "file")
        source = Source(kind, name, url_name(name), name, sniff=shard.in_folder(index))
        for offset, page in source.records(limits):
            if isinstance(page, RawPage):
                yield Item(page.input, name, offset, page=page)
            elif isinstance(page, Unreadable):
                yield Item(page.input, name, offset, error=page.error, url=page.url,
                           date=page.date)
            elif page.record_type:  # a WARC record of a type that holds no page: counted
                yield Item(page.input, name, offset, skipped=page.record_type)
            else:  # a file a source passes over as no page at all: counted, not written
                yield Item(page.input, name, skipped=NOT_A_PAGE, reason=page.reason)


class ShardFiles:
    """The paths of one shard's files (``shard``: its id, ``grist.batch.job.shard_id``) under
    the output folder."""

    def __init__(self, out: Path, shard: str, config: JobConfig) -> None:
        self.part = out / f"{shard}.jsonl.part"
        self.extracted = out / f"{shard}.extracted"
        self.done = out / f"{shard}.done"
        self.final = out / f"{shard}{FINAL_SUFFIX[config.output_format]}"
        self.signatures = out / f"{shard}.minhash"  # one row per line, with --dedup

    def changed_since_done(self) -> bool:
        """Whether the shard finished but its final output is no longer what it wrote (cut or
        removed outside grist): then it must be extracted again."""
        if not self.done.exists():
            return False
        recorded = ShardCounts.read(self.done).output_bytes
        return recorded is not None and (
            not self.final.exists() or self.final.stat().st_size != recorded)


def resume_point(part: Path) -> tuple[int, ShardCounts]:
    """Cut a half-written last line off ``part``; return the complete lines and their counts."""
    counts = ShardCounts()
    if not part.exists():
        return 0, counts
    lines = 0
    with open(part, "rb+") as handle:
        good = 0
        for line in handle:
            if not line.endswith(b"\n"):
                break
            good += len(line)
            lines += 1
            record = json.loads(line)
            if "error" in record:
                counts.errors[record["reason"]] += 1
            else:
                counts.results += 1
        handle.truncate(good)
    return lines, counts


def dedup_config(config: JobConfig) -> MinHashConfig:
    """The MinHash settings of a job's ``--dedup``."""
    return MinHashConfig(threshold=config.dedup_threshold)


def align_signatures(path: Path, lines: int, num_perm: int) -> None:
    """Make the signature file hold exactly one row per output line: cut rows of pages whose
    line was never written, add empty rows for lines the supervisor wrote (lost pages)."""
    row = num_perm * 8
    rows = path.stat().st_size // row if path.exists() else 0
    with open(path, "ab") as handle:
        handle.truncate(min(rows, lines) * row)
        handle.write(np.full((max(0, lines - rows), num_perm), EMPTY, dtype=np.uint64).tobytes())


def result_record(item: Item, extractor: Extractor, config: JobConfig,
                  sites: Any = None) -> dict[str, Any]:
    """The output record of one page (read with its host's site model when ``sites`` has one):
    its result, or its error with the reason."""
    record = item.head()
    try:
        if item.error is not None:
            raise item.error
        assert item.page is not None
        site = sites.for_page(item.page) if sites is not None else None
        result = extractor(item.page, site=site)
        text = page_output(result, config.text_format, record)
    except Exception as exc:  # noqa: BLE001 - one bad page never stops a shard
        return error_record(record, exc)
    record["title"] = result.title
    record["text"] = text
    if "with_metadata" in config.options:
        record["metadata"] = result.metadata.as_dict()
    if result.empty_reason:
        record["empty_reason"] = result.empty_reason
    if result.warnings:
        record["warnings"] = list(result.warnings)
    return record


def skipped_record(item: Item, line: int) -> dict[str, Any]:
    """The record of a file that is not a page: its fields, why (``skipped``), and ``line``, the
    number of the shard's output lines before it, which puts it back in input order."""
    return {**item.head(), "skipped": item.reason, "line": line}


def error_record(head: dict[str, Any], exc: BaseException) -> dict[str, Any]:
    """An error record: the item's fields plus the message and its short reason code."""
    return {**head, "error": message_of(exc), "reason": reason_of(exc)}


def build_extractor(config: JobConfig) -> Extractor:
    """The worker's Extractor, built once and used for every page it extracts (after importing
    the job's plugin modules, which register their own methods)."""
    for module in config.plugins:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise GristError(f"cannot import plugin module {module!r}: {exc}") from None
    return Extractor(method=config.method, config=method_config(config.method, config.model),
                     limits=Limits(time_budget=config.time_budget),
                     **{option: True for option in config.options})


def check_config(config: JobConfig) -> None:
    """Build here what every worker builds (plugins, method and variant, model, site model
    class), so that a mistyped option fails before the job folder is written. The plugins'
    registrations and modules are undone after, so this process (a library caller's, or the
    parent of forked workers, which import the plugins themselves) is left as it was."""
    if config.site_model and not config.site_aware:
        raise GristError(f"a site model ({config.site_model}) is used only with --site-aware")
    fresh = [m for m in config.plugins if m not in sys.modules]
    try:
        with registrations_undone():
            build_extractor(config)
    finally:
        for module in fresh:
            sys.modules.pop(module, None)
    if config.site_aware:
        model_class(config)


def extract_shard(shard: Shard, config: JobConfig, out: Path, extractor: Extractor,
                  reporter: Reporter | None = None, sites: Any = None) -> ShardCounts:
    """Extract every page of the shard not yet in its output; write ``.extracted``; return the
    shard's counts (pages from earlier runs included)."""
    reporter = reporter or Silent()
    files = ShardFiles(out, shard.id, config)
    for marker in (files.done, files.extracted):
        if marker.exists():
            return ShardCounts.read(marker)
    done, counts = resume_point(files.part)
    sketcher = DocumentSketcher(dedup_config(config)) if config.dedup else None
    if sketcher is not None:
        align_signatures(files.signatures, done, sketcher.config.num_perm)
    number = 0
    with open(files.part, "a", encoding="utf-8") as output, \
            open(files.signatures if sketcher else os.devnull, "ab") as signatures:
        for item in shard_items(shard, extractor.limits):
            if item.skipped is not None:
                counts.skipped[item.skipped] += 1
                if item.reason is not None:
                    counts.skipped_files.append(skipped_record(item, number))
                continue
            if number < done:
                number += 1
                continue
            reporter.start(number, item)
            record = result_record(item, extractor, config, sites)
            if sketcher is not None:  # the row first: a kill leaves rows >= lines
                signatures.write(sketcher.signatures([record.get("text", "")]).tobytes())
                signatures.flush()
            output.write(dumps(record) + "\n")
            output.flush()
            if "error" in record:
                counts.errors[record["reason"]] += 1
            else:
                counts.results += 1
            reporter.done(number, record.get("reason"))
            number += 1
        os.fsync(output.fileno())
    write_atomic(files.extracted, counts.to_json())
    return counts


def finish_shard(shard: Shard, config: JobConfig, out: Path,
                 duplicates: dict[int, str] | None = None) -> ShardCounts:
    """Write the shard's final output from its lines (marking or dropping ``duplicates``, a map
    from line number to the input it duplicates), then ``.done``; idempotent after a kill."""
    files = ShardFiles(out, shard.id, config)
    if not files.done.exists():
        counts = ShardCounts.read(files.extracted)
        counts.duplicates = write_final(files.part, files.final, config.output_format,
                                        duplicates or {}, drop=config.dedup == "drop",
                                        date=job_date(out))
        counts.output_bytes = files.final.stat().st_size
        write_atomic(files.done, counts.to_json())
    for leftover in (files.part, files.extracted, files.signatures):
        leftover.unlink(missing_ok=True)
    return ShardCounts.read(files.done)


def job_date(out: Path) -> str | None:
    """When the job in ``out`` was planned, as a WARC date (the date of a WARC output's
    ``warcinfo``, the same in every rerun): job.json's ``created``, or for a job recorded before
    grist noted it, when job.json was written; None without a job.json (a shard run alone)."""
    path = out / JOB_FILE
    try:
        return Plan.from_json(path.read_text(encoding="utf-8")).created \
            or warc_date(path.stat().st_mtime)
    except (OSError, ValueError):
        return None


def run_shard(shard: Shard, config: JobConfig, out: Path, extractor: Extractor,
              reporter: Reporter | None = None, sites: Any = None) -> ShardCounts:
    """Extract a shard and, unless the job deduplicates across shards afterwards, finish it."""
    counts = extract_shard(shard, config, out, extractor, reporter, sites)
    return counts if config.dedup else finish_shard(shard, config, out)
