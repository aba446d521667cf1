"""A batch job: what to extract and how (``JobConfig``), cut into shards, recorded in ``job.json``.

The plan is a pure function of the inputs and the options, so running the same command again
finds the same shards in the same order and resumes them; a different command pointed at the
same ``--out`` folder is refused instead of mixing two jobs' outputs.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

from grist.dedup.documents import MinHashConfig
from grist.errors import GristError
from grist.io.atomic import write_atomically
from grist.io.locks import lock_exclusively
from grist.io.sources import Source, expand, names_a_scheme
from grist.io.warc import is_warc

JOB_FILE = "job.json"
JOB_VERSION = 1
OUTPUT_FORMATS = ("jsonl", "jsonl.gz", "parquet", "warc")


@dataclass(frozen=True)
class JobConfig:
    """How every page of the job is extracted and written (the same in every worker).

    ``page_timeout`` is the hard limit enforced from outside the worker (it is killed and
    replaced); ``time_budget`` the per-page budget checked inside the extraction.
    """

    method: str = "auto"
    model: str | None = None
    time_budget: float = 5.0
    page_timeout: float = 15.0
    text_format: str = "text"
    output_format: str = "jsonl"
    dedup: str | None = None  # None, "mark" or "drop"
    dedup_threshold: float = MinHashConfig.threshold
    site_aware: bool = False
    site_min_pages: int = 5
    site_model: str | None = None  # module:Class of the site model (default grist's SiteModel)
    plugins: tuple[str, ...] = ()  # modules every worker imports first (they register methods)
    options: tuple[str, ...] = ()  # Extractor switches turned on (links, with_metadata, ...)


@dataclass(frozen=True)
class Shard:
    """A unit of work: one WARC or JSON-lines file, or a run of page files (or URLs)."""

    id: str
    kind: str  # warc, jsonl, files
    inputs: tuple[str, ...]
    found: tuple[bool, ...] = ()  # per input: found in a folder, so read only if it is HTML

    def in_folder(self, index: int) -> bool:
        """Whether input ``index`` was found in a folder (and is skipped unless it is HTML)."""
        return index < len(self.found) and self.found[index]


@dataclass
class Plan:
    """The job's shards and config, as written to ``job.json``."""

    config: JobConfig
    shards: list[Shard] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps({"format": "grist-batch-job", "version": JOB_VERSION,
                           "config": asdict(self.config),
                           "shards": [asdict(s) for s in self.shards]}, indent=1)


def shard_id(number: int) -> str:
    """The id of a job's shard ``number`` (from 0, in input order); its files are named by it."""
    return f"shard-{number:05d}"


def plan(inputs: Sequence[str], config: JobConfig, files_per_shard: int = 500) -> Plan:
    """Cut the inputs into shards: each WARC and JSON-lines file alone, other pages (files,
    folders searched recursively, URLs) in runs of ``files_per_shard``."""
    if config.output_format not in OUTPUT_FORMATS:
        raise GristError(f"unknown output format {config.output_format!r}; "
                         f"choose one of {', '.join(OUTPUT_FORMATS)}")
    job = Plan(config)
    loose: list[str] = []
    found: list[bool] = []

    def flush() -> None:
        for start in range(0, len(loose), files_per_shard):
            flags = tuple(found[start:start + files_per_shard])
            job.shards.append(Shard(shard_id(len(job.shards)), "files",
                                    tuple(loose[start:start + files_per_shard]),
                                    flags if any(flags) else ()))
        loose.clear()
        found.clear()

    for item in inputs:
        if item != "-" and is_warc(item):
            if not Path(item).is_file():
                raise GristError(f"{item}: no such file")
            flush()
            job.shards.append(Shard(shard_id(len(job.shards)), "warc",
                                    (absolute(item),)))
            continue
        if item == "-":
            raise GristError("grist batch reads files, folders and URLs, not stdin")
        for source in _sources(item):
            if source.kind == "jsonl":
                flush()
                job.shards.append(Shard(shard_id(len(job.shards)), "jsonl",
                                        (absolute(source.location),)))
            elif source.kind == "url":
                loose.append(source.location)
                found.append(False)
            elif is_warc(source.location):
                flush()
                job.shards.append(Shard(shard_id(len(job.shards)), "warc",
                                        (absolute(source.location),)))
            else:
                loose.append(absolute(source.location))
                found.append(source.sniff)
    flush()
    return job


def absolute(path: str) -> str:
    """``path`` made absolute without following links: a link in a folder is its own input,
    named by its own path (two links to one page are two records, as without a batch). A URL of
    a scheme grist does not fetch stays as it is, to be refused as such."""
    return path if names_a_scheme(path) else os.path.abspath(path)


def _sources(item: str) -> list[Source]:
    """The sources of one input; a folder gives its WARC files as well as its pages."""
    if not Path(item).is_dir():
        return expand([item])[0]
    warcs = sorted(p for p in Path(item).rglob("*") if p.is_file() and is_warc(p))
    found = [Source("file", str(p), p.name, str(p)) for p in warcs]
    try:
        found += [s for s in expand([item])[0] if not is_warc(s.location)]
    except GristError:
        if not found:
            raise
    return found


def write_atomic(path: Path, text: str) -> None:
    """Write a small file of the job's folder so that a kill leaves either the old or the new
    content, never half; its temporary ``NAME.tmp`` (the folder is locked: one writer) is
    overwritten by the next run."""
    write_atomically(path, text.encode("utf-8"), path.with_name(path.name + ".tmp"))


def _other_job(out: Path, held: str) -> str:
    """Why ``out`` cannot take this job: it holds another, or its job file is damaged."""
    try:
        json.loads(held)
    except ValueError:
        return (f"{out / JOB_FILE} is damaged (not JSON): delete it and rerun the command that "
                f"made {out} to resume, or choose another --out")
    return (f"{out} holds another job (different inputs or options); rerun the same command to "
            "resume it, or choose another --out")


@contextmanager
def open_job(out: Path, job: Plan) -> Iterator[None]:
    """Hold ``out`` for this run and record the job in ``out/job.json``, or check that the
    folder holds this same job. A second grist batch on the folder while this one runs is
    refused: both would extract every shard and write each page twice."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        folder = os.open(out, os.O_RDONLY)
    except OSError as exc:
        raise GristError(f"cannot create {out}: {exc.strerror or exc}") from None
    try:
        if not lock_exclusively(folder):
            raise GristError(f"{out} is in use by another grist batch; wait for it to end "
                             "(rerunning it then resumes), or choose another --out")
        _record_job(out, job)
        yield
    finally:
        os.close(folder)


def _record_job(out: Path, job: Plan) -> None:
    path = out / JOB_FILE
    text = job.to_json()
    if path.exists():
        held = path.read_text(encoding="utf-8", errors="replace")
        if held != text:
            raise GristError(_other_job(out, held))
        return
    write_atomic(path, text)
