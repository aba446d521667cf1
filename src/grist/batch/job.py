"""A batch job: what to extract and how (``JobConfig``), cut into shards, recorded in ``job.json``.

The plan (its date aside) is a pure function of the inputs and the options, so running the same
command again finds the same shards in the same order and resumes them. Run again after files were
added to its folders, it resumes the job as planned (the new files are not in it); a different
command pointed at the same ``--out`` folder, or inputs of the plan gone missing, is refused with
what differs, instead of mixing two jobs' outputs; a folder in which nothing was extracted yet is
taken over by the new job.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

from grist.dedup.documents import MinHashConfig
from grist.errors import GristError
from grist.io.atomic import write_atomically
from grist.io.dates import warc_date
from grist.io.locks import lock_exclusively
from grist.io.sources import Source, expand, names_a_scheme

JOB_FILE = "job.json"
JOB_FORMAT = "grist-batch-job"
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
    """The job's shards and config, the ``--files-per-shard`` it was cut with and when it was
    planned (a WARC date; each None in a job recorded before grist noted it), as written to
    ``job.json``."""

    config: JobConfig
    shards: list[Shard] = field(default_factory=list)
    files_per_shard: int | None = None
    created: str | None = None

    def to_json(self) -> str:
        return json.dumps({"format": JOB_FORMAT, "version": JOB_VERSION,
                           "config": asdict(self.config), "files_per_shard": self.files_per_shard,
                           "created": self.created,
                           "shards": [asdict(s) for s in self.shards]}, indent=1)

    @classmethod
    def from_json(cls, text: str) -> Plan:
        """The plan ``to_json`` wrote; ValueError when ``text`` is not one of this version."""
        data = json.loads(text)
        if not isinstance(data, dict) or (data.get("format"), data.get("version")) != (
                JOB_FORMAT, JOB_VERSION):
            raise ValueError("not a grist batch job of this version")
        try:
            config = JobConfig(**{key: tuple(value) if isinstance(value, list) else value
                                  for key, value in data["config"].items()})
            shards = [Shard(s["id"], s["kind"], tuple(s["inputs"]), tuple(s["found"]))
                      for s in data["shards"]]
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"not a grist batch job ({exc})") from None
        return cls(config, shards, data.get("files_per_shard"), data.get("created"))

    def inputs(self) -> list[str]:
        """Every input the plan holds, in shard order."""
        return [name for shard in self.shards for name in shard.inputs]


def shard_id(number: int) -> str:
    """The id of a job's shard ``number`` (from 0, in input order); its files are named by it."""
    return f"shard-{number:05d}"


def plan(inputs: Sequence[str | Source], config: JobConfig, files_per_shard: int = 500) -> Plan:
    """Cut the inputs into shards: each WARC and JSON-lines file alone, other pages (files,
    folders searched recursively, URLs) in runs of ``files_per_shard``. An input already
    expanded into a Source (``grist extract``'s) is taken as it is: a folder's file keeps its
    flag, so its worker skips it unless it is HTML."""
    if config.output_format not in OUTPUT_FORMATS:
        raise GristError(f"unknown output format {config.output_format!r}; "
                         f"choose one of {', '.join(OUTPUT_FORMATS)}")
    job = Plan(config, files_per_shard=files_per_shard, created=warc_date(time.time()))
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
        if (item.location if isinstance(item, Source) else item) == "-":
            raise GristError("grist batch reads files, folders and URLs, not stdin")
        for source in [item] if isinstance(item, Source) else _sources(item):
            if source.holds_many:  # a JSON-lines or WARC file: a shard of its own
                flush()
                job.shards.append(Shard(shard_id(len(job.shards)), source.kind,
                                        (absolute(source.location),)))
            elif source.kind == "url":
                loose.append(source.location)
                found.append(False)
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
    """The sources of one input, a folder's WARC files first (each part in path order: jobs
    have always been planned so, and a job planned before resumes as planned)."""
    return sorted(expand([item])[0], key=lambda source: source.kind != "warc")


def write_atomic(path: Path, text: str) -> None:
    """Write a small file of the job's folder so that a kill leaves either the old or the new
    content, never half; its temporary ``NAME.tmp`` (the folder is locked: one writer) is
    overwritten by the next run."""
    write_atomically(path, text.encode("utf-8"), path.with_name(path.name + ".tmp"))


def a_few(names: Sequence[str], shown: int = 3) -> str:
    """The first ``shown`` of ``names``, and how many more, for a message."""
    more = f", and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def _held_plan(out: Path, held: str) -> Plan:
    """The plan ``out/job.json`` holds; GristError when it is damaged or not a job of ours."""
    try:
        json.loads(held)
    except ValueError:
        raise GristError(f"{out / JOB_FILE} is damaged (not JSON): delete it and rerun the "
                         f"command that made {out} to resume, or choose another --out") from None
    try:
        return Plan.from_json(held)
    except ValueError as exc:
        raise GristError(f"{out / JOB_FILE} is {exc}; choose another --out") from None


def _unstarted(out: Path) -> bool:
    """Whether ``out`` holds a job's plan and nothing else: no page was extracted yet."""
    return {p.name for p in out.iterdir()} <= {JOB_FILE, JOB_FILE + ".tmp"}


def _changed_options(planned: JobConfig, now: JobConfig) -> list[str]:
    """The command-line options in which ``now`` differs from the planned job's, with values."""
    changed = []
    for key, value in asdict(planned).items():
        given = getattr(now, key)
        if key == "options":  # output switches, named by their own option
            changed += [f"--{o.replace('_', '-')}" for o in sorted(set(value) ^ set(given))]
        elif given != value:
            name = "plugin" if key == "plugins" else key.replace("_", "-")
            changed.append(f"--{name} {_shown(given)} (planned: {_shown(value)})")
    return changed


def _shown(value: object) -> str:
    """An option's value as a message says it (plugins comma-separated, "none" when unset)."""
    if isinstance(value, tuple):
        value = ", ".join(value)
    return "none" if value in (None, "") else str(value)


def _resumable(out: Path, held: Plan, job: Plan) -> Plan:
    """The held plan, when ``job`` is its command run again on inputs that only gained files
    since (the planned job is resumed as planned), or that this version of grist plans
    otherwise while the planned files are all still there (a folder's WARC files under a hidden
    folder were planned before they were passed over like every hidden file); else GristError
    saying what differs."""
    if held.config != job.config:
        raise GristError(f"{out} holds another job (other options: "
                         f"{'; '.join(_changed_options(held.config, job.config))}); rerun its "
                         "command to resume it, or choose another --out")
    planned, found = held.inputs(), job.inputs()
    removed = sorted(name for name in set(planned) - set(found)
                     if names_a_scheme(name) or not Path(name).exists())
    added = sorted(set(found) - set(planned))
    if removed:
        gained = f"; {len(added)} added ({a_few(added)})" if added else ""
        raise GristError(
            f"{out} holds a job with these options whose inputs changed since it was planned: "
            f"{len(removed)} no longer found ({a_few(removed)}){gained}. Put them back and rerun "
            "to finish the planned job, or choose another --out for the inputs as they are now")
    cut = held.files_per_shard
    if not added and set(planned) > set(found):  # (only files this version does not plan)
        return held
    if not added or cut not in (None, job.files_per_shard):
        planned_with = "the --files-per-shard" if cut is None else f"--files-per-shard {cut}"
        raise GristError(f"{out} holds a job of these inputs and options cut into other shards; "
                         f"rerun it with {planned_with} (and input order) it was planned "
                         "with to resume it, or choose another --out")
    return held


@contextmanager
def open_job(out: Path, job: Plan) -> Iterator[Plan]:
    """Hold ``out`` for this run and record the job in ``out/job.json``, or find there the job
    this run resumes (``_record_job``); yields the plan to carry out. A second grist batch on the
    folder while this one runs is refused: both would extract every shard and write each page
    twice."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        folder = os.open(out, os.O_RDONLY)
    except OSError as exc:
        raise GristError(f"cannot create {out}: {exc.strerror or exc}") from None
    try:
        if not lock_exclusively(folder):
            raise GristError(f"{out} is in use by another grist batch; wait for it to end "
                             "(rerunning it then resumes), or choose another --out")
        yield _record_job(out, job)
    finally:
        os.close(folder)


def _record_job(out: Path, job: Plan) -> Plan:
    """The plan this run carries out: ``job``, recorded unless the folder holds it already (or
    recorded over a job of which nothing was extracted yet), or the folder's own job when this
    is its command run again after files were added to its inputs."""
    path = out / JOB_FILE
    text = job.to_json()
    if not path.exists():
        write_atomic(path, text)
        return job
    held = path.read_text(encoding="utf-8", errors="replace")
    if held == text:
        return job
    planned = _held_plan(out, held)
    if _unstarted(out):
        write_atomic(path, text)
        return job
    if (planned.config, planned.shards) == (job.config, job.shards):  # (cut alike all the same)
        return planned
    return _resumable(out, planned, job)
