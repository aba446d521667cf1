"""Batch throughput on the same pages, in one run: grist in-process vs grist batch on 1 and 2
workers, the cost of reading WARC, and trafilatura and resiliparse per core, with the cost of
10^9 pages in core-hours.

Usage (one command; run it on a quiet machine for the speed figures):
  flock /tmp/grist-bench.lock nice -n 10 python benchmarks/batch_throughput.py \
      [--datasets-dir ../shared/datasets] [--pages 1200] [--out docs/benchmarks/batch.md]

Pages: the first pages of each shared dataset in turn, written as HTTP responses (UTF-8, with
the charset in the header) into `--files` WARC.gz files (default 4). Speeds are pages per
CPU-second of the process that extracts (in-process: the extraction calls only; batch: the
workers' task time, without start-up and model loading); the 2-worker speed-up is wall-clock
time 1 worker / 2 workers.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import importlib.metadata
import os
import platform
import shutil
import sys
import time
from datetime import date
from pathlib import Path

from grist.api import Extractor
from grist.batch.job import JobConfig
from grist.batch.run import BatchOptions, run_job
from grist.evaluate.peers import make_peer
from grist.io.datasets import page_datasets, read_dataset
from grist.io.sinks import Summary
from grist.io.warc import read_warc
from reporting import publish  # benchmarks/reporting.py (the script's folder is on sys.path)



def warc_record(number: int, html: str, url: str) -> bytes:
    body = html.encode("utf-8", "surrogatepass")
    http = (f"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body
    head = (f"WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-"
            f"0000-{number:012d}>\r\nWARC-Date: 2026-11-22T00:00:00Z\r\nWARC-Target-URI: {url}\r\n"
            f"Content-Type: application/http; msgtype=response\r\nContent-Length: {len(http)}"
            "\r\n\r\n").encode()
    return gzip.compress(head + http + b"\r\n\r\n", compresslevel=6, mtime=0)


def dev_pages(folder: Path, count: int) -> list[tuple[str, str]]:
    """(html, url) of ``count`` pages taken in turn from every dataset."""
    readers = [read_dataset(p) for p in page_datasets(folder)[0]]
    pages: list[tuple[str, str]] = []
    while len(pages) < count and readers:
        for reader in list(readers):
            page = next(reader, None)
            if page is None:
                readers.remove(reader)
                continue
            pages.append((page.html, page.url or f"https://{page.dataset}.example/{page.id}"))
    return pages[:count]


def write_warcs(pages: list[tuple[str, str]], folder: Path, files: int) -> list[str]:
    """The pages dealt in turn into ``files`` WARC.gz files (one shard each)."""
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("part-*.warc.gz"):
        old.unlink()
    paths = [folder / f"part-{n}.warc.gz" for n in range(files)]
    members: list[list[bytes]] = [[] for _ in paths]
    for number, (html, url) in enumerate(pages):
        members[number % files].append(warc_record(number, html, url))
    for path, records in zip(paths, members, strict=True):
        path.write_bytes(b"".join(records))
    return [str(p) for p in paths]


def cpu_rate(function, items) -> float:
    """Items per CPU-second of ``function`` over ``items`` (only the calls are timed)."""
    spent = 0.0
    for item in items:
        started = time.process_time()
        with contextlib.suppress(Exception):  # a page a system refuses still cost its time
            function(item)
        spent += time.process_time() - started
    return len(items) / spent


def batch_run(paths: list[str], out: Path, jobs: int) -> tuple[float, float, int, str]:
    """(wall seconds, worker task CPU seconds, pages, summary line) of one ``grist batch``."""
    shutil.rmtree(out, ignore_errors=True)
    summary = Summary("batch")
    started = time.perf_counter()
    report = run_job(paths, JobConfig(method="auto"), out, BatchOptions(jobs=jobs), summary)
    return time.perf_counter() - started, report.task_cpu_seconds, summary.pages, summary.line()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--datasets-dir", type=Path, default=Path("../shared/datasets"))
    parser.add_argument("--pages", type=int, default=1200)
    parser.add_argument("--files", type=int, default=4,
                        help="WARC files (shards) the pages are dealt into")
    parser.add_argument("--work", type=Path, default=Path("build/bench-batch"))
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    pages = dev_pages(args.datasets_dir, args.pages)
    paths = write_warcs(pages, args.work / "warc", args.files)
    raw = [item.page for path in paths for item in read_warc(path) if item.page]
    read_started = time.process_time()
    for _ in range(3):
        for path in paths:
            for item in read_warc(path):
                if item.page is not None:
                    len(item.page.content)
    read_cpu = (time.process_time() - read_started) / 3
    extractor = Extractor(method="auto")
    in_process = cpu_rate(lambda page: extractor(page).text, raw)  # the text, as batch writes
    peers = {}
    for name in ("trafilatura", "resiliparse"):
        peer = make_peer(name)
        peers[name] = cpu_rate(lambda p, f=peer: f(p.content.decode("utf-8"), p.url), raw)
    one_wall, one_cpu, one_pages, one_line = batch_run(paths, args.work / "out-1", 1)
    two_wall, two_cpu, two_pages, two_line = batch_run(paths, args.work / "out-2", 2)
    load_after = os.getloadavg()
    extraction_cpu = len(raw) / in_process
    rows = [("grist auto, in-process", in_process),
            ("grist auto, grist batch -j 1", one_pages / one_cpu),
            ("grist auto, grist batch -j 2", two_pages / two_cpu),
            *((f"{name} (in-process)", rate) for name, rate in peers.items())]
    versions = ", ".join(f"{n} {importlib.metadata.version(n)}" for n in
                         ("fastwarc", "trafilatura", "resiliparse", "numpy", "selectolax"))
    lines = [
        f"Measured {date.today()} with `python benchmarks/batch_throughput.py --pages {args.pages} "
        f"--files {args.files}`"
        f" on {os.cpu_count()} cores, Python {platform.python_version()}, {versions}; load "
        f"average {load_before[0]:.2f} before, {load_after[0]:.2f} after (shared machine).",
        "", f"{len(raw)} pages in {args.files} WARC.gz files "
        f"({sum(os.path.getsize(p) for p in paths) / 1048576:.1f} MiB).", "",
        "| system | pages per CPU-second | core-hours for 10^9 pages |", "|---|---:|---:|",
        *(f"| {name} | {rate:.1f} | {1e9 / rate / 3600:,.0f} |" for name, rate in rows), "",
        f"- batch -j 1: {one_line}; -j 2: {two_line}",
        f"- speed-up of 2 workers over 1 (wall clock, same pages, same run): "
        f"{one_wall / two_wall:.2f}x",
        f"- batch per-core speed / in-process speed: -j 1 {one_pages / one_cpu / in_process:.3f}, "
        f"-j 2 {two_pages / two_cpu / in_process:.3f}",
        f"- WARC reading (FastWARC, gzip members, payloads read): {read_cpu:.3f} CPU-s for "
        f"{len(raw)} pages = {read_cpu / extraction_cpu:.1%} of the extraction time "
        f"({extraction_cpu:.1f} CPU-s)", ""]
    report = "\n".join(lines)
    return publish(report, args.out)


if __name__ == "__main__":
    sys.exit(main())
