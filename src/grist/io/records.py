"""Batch result records in their final formats: JSON lines (plain or gzip), Parquet, and WARC
with one ``conversion`` record per extracted page linked to its source record.

Every writer reads a shard's JSON-lines records and writes to a temporary file renamed over the
final one, so a kill leaves the old file or the new one. Duplicates found across the run are
marked (``duplicate_of``) or dropped; a dropped record is still counted in the shard's summary.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from grist import __version__
from grist.io.dates import epoch_seconds, warc_date
from grist.optional import require

FINAL_SUFFIX = {"jsonl": ".jsonl", "jsonl.gz": ".jsonl.gz", "parquet": ".parquet",
                "warc": ".warc.gz"}
_ROW_GROUP = 5000
_CONTROLS = re.compile(r"[\x00-\x1f\x7f]")  # never inside a WARC header value
_NAMESPACE = uuid.UUID("6f1c1a52-6a4e-4f7e-9d43-2a3c6d1b9e10")


def parquet_schema() -> Any:
    """The Parquet columns (one row per page; ``text`` or ``error`` is null)."""
    pa = require("pyarrow", "parquet", "Parquet output")
    return pa.schema([
        ("input", pa.string()), ("source", pa.string()), ("offset", pa.int64()),
        ("url", pa.string()), ("date", pa.string()), ("title", pa.string()),
        ("text", pa.string()), ("error", pa.string()), ("reason", pa.string()),
        ("empty_reason", pa.string()), ("warnings", pa.list_(pa.string())),
        ("duplicate_of", pa.string()),
        ("metadata", pa.string()),  # JSON of the page's metadata (--with-metadata), else null
    ])


def _records(part: Path, duplicates: dict[int, str], drop: bool,
             seen: list[int]) -> Iterator[dict[str, Any]]:
    """The records of a shard's lines with duplicates (line number -> the input duplicated)
    marked or left out (``seen[0]`` counts the duplicates met)."""
    with open(part, encoding="utf-8") as handle:
        for number, line in enumerate(handle):
            record = json.loads(line)
            original = duplicates.get(number)
            if original is not None:
                seen[0] += 1
                if drop:
                    continue
                record["duplicate_of"] = original
            yield record


def write_final(part: Path, final: Path, fmt: str, duplicates: dict[int, str],
                drop: bool, date: str | None = None) -> int:
    """Write ``final`` in ``fmt`` from the JSON lines in ``part`` (``date``: when the job began,
    for a WARC file's ``warcinfo``); returns the duplicates met."""
    tmp = final.with_name(final.name + ".tmp")
    seen = [0]
    if fmt == "jsonl" and not duplicates:
        tmp.unlink(missing_ok=True)
        os.link(part, tmp)  # the lines are already the final output
    elif fmt in ("jsonl", "jsonl.gz"):
        with open(tmp, "wb") as raw, (gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0)
                                      if fmt == "jsonl.gz" else raw) as handle:
            for record in _records(part, duplicates, drop, seen):  # the same bytes every run
                handle.write((json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8"))
    elif fmt == "parquet":
        _write_parquet(_records(part, duplicates, drop, seen), tmp)
    elif fmt == "warc":
        _write_warc(_records(part, duplicates, drop, seen), tmp, final.name, date)
    else:
        raise ValueError(f"unknown output format {fmt!r}")
    os.replace(tmp, final)
    return seen[0]


def _write_parquet(records: Iterator[dict[str, Any]], path: Path) -> None:
    pq = require("pyarrow.parquet", "parquet", "Parquet output")
    pa = require("pyarrow", "parquet", "Parquet output")
    schema = parquet_schema()
    with pq.ParquetWriter(path, schema, compression="zstd") as writer:
        batch: list[dict[str, Any]] = []
        for record in records:
            if isinstance(record.get("metadata"), dict):
                record["metadata"] = json.dumps(record["metadata"], ensure_ascii=False)
            batch.append(record)
            if len(batch) == _ROW_GROUP:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                batch = []
        if batch:
            writer.write_table(pa.Table.from_pylist(batch, schema=schema))


def record_uuid(*parts: str) -> str:
    """A WARC-Record-ID that is the same for the same record in every run."""
    return f"<urn:uuid:{uuid.uuid5(_NAMESPACE, chr(31).join(parts))}>"


def _warc_record(kind: str, headers: dict[str, str], block: bytes, content_type: str) -> bytes:
    lines = [b"WARC/1.1", f"WARC-Type: {kind}".encode()]
    lines += [f"{name}: {_CONTROLS.sub(_escape, value)}".encode()
              for name, value in headers.items()]
    lines += [f"Content-Type: {content_type}".encode(), f"Content-Length: {len(block)}".encode()]
    return b"\r\n".join(lines) + b"\r\n\r\n" + block + b"\r\n\r\n"


def _escape(match: re.Match[str]) -> str:
    """A control character in a header value, percent-escaped: a CR LF from a page's URL or id
    would otherwise start a header (or a record) of its own."""
    return f"%{ord(match.group()):02X}"


def _warc_date(record: dict[str, Any]) -> str:
    """The record's date as WARC writes dates; the source file's time when it has no readable
    one."""
    moment = epoch_seconds(record.get("date")) if isinstance(record.get("date"), str) else None
    if moment is not None and (written := warc_date(moment)):
        return written
    source = record.get("source")
    return warc_date(os.path.getmtime(source) if source and os.path.exists(source) else 0.0) \
        or "1970-01-01T00:00:00Z"


def _write_warc(records: Iterator[dict[str, Any]], path: Path, name: str,
                date: str | None) -> None:
    """One gzip member per record: a ``warcinfo`` dated ``date`` (the job's start, so that a
    rerun writes the same bytes; now when None), then per page a ``conversion`` record (the
    extracted text) or a ``metadata`` record (the error), each ``WARC-Refers-To`` its source
    record when the page came from a WARC file."""
    info = f"software: grist/{__version__}\r\nformat: WARC File Format 1.1\r\n".encode()
    with open(path, "wb") as handle:
        handle.write(gzip.compress(_warc_record(
            "warcinfo", {"WARC-Record-ID": record_uuid("warcinfo", name),
                         "WARC-Date": date or warc_date(time.time()), "WARC-Filename": name},
            info, "application/warc-fields"), mtime=0))
        for record in records:
            headers = {"WARC-Record-ID": record_uuid(record["source"], record["input"]),
                       "WARC-Date": _warc_date(record)}
            if record.get("url"):
                headers["WARC-Target-URI"] = record["url"]
            if str(record["input"]).startswith("<urn:"):
                headers["WARC-Refers-To"] = record["input"]
            if "error" in record:
                block = json.dumps(record, ensure_ascii=False).encode()
                raw = _warc_record("metadata", headers, block, "application/json")
            else:
                extra = {"WARC-Title": " ".join(record.get("title", "").split())}
                if record.get("duplicate_of"):
                    extra["WARC-Duplicate-Of"] = record["duplicate_of"]
                raw = _warc_record("conversion", {**headers, **extra},
                                   record.get("text", "").encode(), "text/plain; charset=utf-8")
            handle.write(gzip.compress(raw, mtime=0))


def read_final(path: Path) -> Iterator[dict[str, Any]]:
    """The records of a final output file, whatever its format (for checks and tools)."""
    name = path.name
    if name.endswith(".parquet"):
        pq = require("pyarrow.parquet", "parquet", "Parquet output")
        for row in pq.read_table(path).to_pylist():
            yield {k: v for k, v in row.items() if v is not None}
    elif name.endswith((".jsonl", ".jsonl.gz")):
        opener = gzip.open if name.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                yield json.loads(line)
    else:
        raise ValueError(f"cannot read {path} as records")

