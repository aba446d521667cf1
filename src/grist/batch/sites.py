"""``grist batch --site-aware``: a site model for every host with enough pages, fitted before the
pages are extracted, without holding the corpus in memory.

1. **scan** (one task per shard): count each host's pages and note where its first
   ``SAMPLE`` pages are (a WARC file and offset, a JSON-lines line, a file), not the pages.
2. The supervisor adds the counts up; hosts with at least ``site_min_pages`` pages are dealt,
   whole, into groups of about ``GROUP_PAGES`` sample pages.
3. **fit** (one task per group): read the group's sample pages from where they are, fit one site
   model (it keeps each host's templates apart), save it under ``sites/``.
4. The extraction looks a page's host up in ``sites/index.json`` and extracts with that host's
   model (a worker keeps the last few models it loaded); other hosts are extracted page by page.

Every step leaves files that a rerun finds, so a killed job resumes where it stopped.
"""

from __future__ import annotations

import importlib
import json
from collections import OrderedDict
from pathlib import Path
from typing import Any

from grist.batch.job import JobConfig, Plan, Shard, write_atomic
from grist.crosspage import CrossPageModel
from grist.document import RawPage
from grist.errors import GristError
from grist.io.sources import Source, Unreadable, url_name
from grist.io.warc import read_record
from grist.limits import Limits
from grist.sites.pages import site_of

SAMPLE = 40  # pages per host a site model is fitted on
GROUP_PAGES = 2000  # sample pages per site model file
MODEL = "grist.sites:SiteModel"
_CACHED = 4  # site models a worker keeps loaded


def model_class(config: JobConfig) -> Any:
    """The site model class (``module:Class``; grist's SiteModel unless the job names another)."""
    module, _, name = (config.site_model or MODEL).partition(":")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise GristError(f"--site-aware needs a site model ({config.site_model or MODEL}): "
                         f"{exc}") from None


def sites_dir(out: Path) -> Path:
    return out / "sites"


def scan_shard(shard: Shard, out: Path, limits: Limits) -> None:
    """Write ``sites/<shard>.hosts.json``: per host, its page count and where its first
    pages are."""
    from grist.batch.worker import shard_items

    target = sites_dir(out) / f"{shard.id}.hosts.json"
    if target.exists():
        return
    hosts: dict[str, list[Any]] = {}
    for number, item in enumerate(i for i in shard_items(shard, limits) if i.skipped is None):
        if item.page is None:
            continue
        entry = hosts.setdefault(site_of(item.page.url, "host"), [0, []])
        entry[0] += 1
        if len(entry[1]) < SAMPLE:
            entry[1].append([item.source, item.offset, number])
    hosts.pop("", None)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(target, json.dumps(hosts, sort_keys=True))


def plan_models(job: Plan, out: Path) -> list[dict[str, list[list[Any]]]]:
    """Groups of hosts (host -> sample references) that each get one site model."""
    totals: dict[str, int] = {}
    samples: dict[str, list[list[Any]]] = {}
    for shard in job.shards:
        found = json.loads((sites_dir(out) / f"{shard.id}.hosts.json").read_text())
        for host, (count, refs) in found.items():
            totals[host] = totals.get(host, 0) + count
            kept = samples.setdefault(host, [])
            kept += [[shard.id, *ref] for ref in refs[: SAMPLE - len(kept)]]
    groups: list[dict[str, list[list[Any]]]] = [{}]
    size = 0
    for host in sorted(h for h, n in totals.items() if n >= job.config.site_min_pages):
        if size >= GROUP_PAGES:
            groups.append({})
            size = 0
        groups[-1][host] = samples[host]
        size += len(samples[host])
    return [g for g in groups if g]


def _sample_pages(shards: dict[str, Shard], refs: list[list[Any]], limits: Limits
                  ) -> list[RawPage]:
    """Read the referenced pages again: a WARC record at its offset, a file by its path, a
    JSON-lines record, or a record of a WARC file compressed as one gzip stream (it has no
    offset), by its number (one pass over each such file)."""
    from grist.batch.worker import shard_items

    pages: list[RawPage | None] = []
    wanted: dict[str, set[int]] = {}
    for shard_id, source, offset, number in refs:
        kind = shards[shard_id].kind
        if offset is not None:
            pages.append(read_record(source, offset, limits).page)
        elif kind == "files":
            page = next(Source("url" if "://" in source else "file", source, url_name(source),
                               source).pages(limits))
            pages.append(None if isinstance(page, Unreadable) else page)
        else:
            wanted.setdefault(shard_id, set()).add(number)
    for shard_id, numbers in wanted.items():
        items = (i for i in shard_items(shards[shard_id], limits) if i.skipped is None)
        pages += [item.page for index, item in enumerate(items) if index in numbers]
    return [p for p in pages if p is not None]


def fit_group(config: JobConfig, out: Path, number: int, hosts: dict[str, list[list[Any]]],
              shards: dict[str, Shard], limits: Limits) -> None:
    """Fit and save the site model of one group of hosts (skipped when it is already saved)."""
    target = sites_dir(out) / f"site-{number:05d}.json.gz"
    if target.exists():
        return
    pages = _sample_pages(shards, [ref for refs in hosts.values() for ref in refs], limits)
    model_class(config)().fit(pages).save(target)


def fit_site_models(job: Plan, out: Path, executor: Any) -> None:
    """Scan every shard, then fit the site models of the hosts with enough pages."""
    from grist.batch.local import Task

    if (sites_dir(out) / "index.json").exists():
        return
    executor.run(Task("scan", shard) for shard in job.shards)
    groups = plan_models(job, out)
    shards = {s.id: s for s in job.shards}
    executor.run(Task("fit", Shard(f"sites-{n:05d}", "sites", ()),
                      (n, group, {r[0]: shards[r[0]] for refs in group.values() for r in refs}))
                 for n, group in enumerate(groups))
    write_index(out, groups)


def write_index(out: Path, groups: list[dict[str, list[list[Any]]]]) -> None:
    """``sites/index.json``: host -> the file of its site model."""
    index = {host: f"site-{n:05d}.json.gz" for n, group in enumerate(groups) for host in group}
    write_atomic(sites_dir(out) / "index.json", json.dumps(index, sort_keys=True))


class SiteModels:
    """The site model of a page's host, loaded on first use (a few kept per worker)."""

    def __init__(self, out: Path, config: JobConfig) -> None:
        self.folder = sites_dir(out)
        self.index: dict[str, str] = json.loads((self.folder / "index.json").read_text())
        self.cls = model_class(config)
        self.loaded: OrderedDict[str, CrossPageModel] = OrderedDict()

    def for_page(self, page: RawPage) -> CrossPageModel | None:
        name = self.index.get(site_of(page.url, "host"))
        if name is None:
            return None
        if name not in self.loaded:
            self.loaded[name] = self.cls.load(self.folder / name)
            while len(self.loaded) > _CACHED:
                self.loaded.popitem(last=False)
        self.loaded.move_to_end(name)
        return self.loaded[name]
