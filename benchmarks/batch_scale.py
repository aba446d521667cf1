"""200,000 pages through ``grist batch`` with two kill -9s: bounded memory, zero lost records.

Usage:
  flock /tmp/grist-bench.lock nice -n 10 python benchmarks/batch_scale.py \
      [--datasets-dir ../shared/datasets] [--pages 200000] [--files 40] [--method auto] \
      [--work build/scale] [--out docs/benchmarks/batch-scale.md]

Generates WARC.gz files in the shape of a Common Crawl segment from the shared dev pages, each
page repeated with variations (its URL and host, a line of text naming its copy, the record id
and date): per page a request, a response and a metadata record; 1 % of the responses are
images and 0.5 % have a corrupt gzip member. Then runs ``grist batch`` on every core, kills the
whole process group (SIGKILL) at about 30 % and 65 % of the pages, reruns the same command to
the end, and checks the output: one record per response, none twice. The resident memory of
every worker is sampled every 5 s over the whole run.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from datetime import date
from pathlib import Path

from grist.io.datasets import page_datasets, read_dataset
from grist.io.records import read_final
from reporting import publish  # benchmarks/reporting.py (the script's folder is on sys.path)


def record(kind: str, ident: str, url: str, block: bytes, content_type: str) -> bytes:
    head = (f"WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Record-ID: <urn:uuid:{ident}>\r\n"
            f"WARC-Date: 2026-11-{1 + int(ident[-2:], 16) % 28:02d}T00:00:00Z\r\n"
            f"WARC-Target-URI: {url}\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {len(block)}\r\n\r\n").encode()
    return gzip.compress(head + block + b"\r\n\r\n", compresslevel=1, mtime=0)


def generate(folder: Path, datasets: Path, pages: int, files: int, seed: int) -> Counter:
    """Write the WARC files; returns what they hold (responses, images, corrupt members)."""
    rng = random.Random(seed)
    sources = [(p.html.encode("utf-8", "surrogatepass"), p.site or p.dataset)
               for path in page_datasets(datasets)[0]
               for p in read_dataset(path) if len(p.html) < 400_000]
    rng.shuffle(sources)  # every part of the run sees the same mix of datasets and page sizes
    folder.mkdir(parents=True, exist_ok=True)
    held: Counter = Counter()
    per_file = -(-pages // files)
    for number in range(files):
        with open(folder / f"crawl-{number:03d}.warc.gz", "wb") as out:
            for copy in range(number * per_file, min(pages, (number + 1) * per_file)):
                html, site = sources[copy % len(sources)]
                ident = f"{copy:08x}-0000-4000-8000-{rng.getrandbits(48):012x}"
                url = f"https://{copy % 997}.{site}/page/{copy}"
                out.write(record("request", ident[:-1] + "1", url,
                                 f"GET /page/{copy} HTTP/1.1\r\n\r\n".encode(),
                                 "application/http; msgtype=request"))
                roll = rng.random()
                if roll < 0.01:
                    body, ctype = b"\x89PNG\r\n\x1a\n" + os.urandom(2000), "image/png"
                    held["image"] += 1
                else:
                    marker = f"<p>Copy {copy} of this page, variant {rng.randrange(10**6)}.</p>"
                    body, ctype = html.replace(b"</body>", marker.encode() + b"</body>", 1), \
                        "text/html; charset=utf-8"
                http = (f"HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\nContent-Length: "
                        f"{len(body)}\r\n\r\n").encode() + body
                member = record("response", ident, url, http, "application/http; msgtype=response")
                if 0.01 <= roll < 0.015:  # a corrupt gzip member
                    member = member[:40] + bytes(20) + member[60:]
                    held["corrupt"] += 1
                out.write(member)
                out.write(record("metadata", ident[:-1] + "2", url, b"fetchTimeMs: 120\r\n",
                                 "application/warc-fields"))
                held["responses"] += 1
    return held


def progress_lines(out: Path) -> int:
    """Pages written so far (finished shards' counts plus the lines of unfinished ones); a
    file the run renames while it is read counts at its next sample."""
    done = parts = 0
    for path in out.glob("*.done"):
        with contextlib.suppress(FileNotFoundError):
            marker = json.loads(path.read_text())
            done += marker["results"] + sum(marker["errors"].values())
    for path in out.glob("*.part"):
        with contextlib.suppress(FileNotFoundError):
            parts += path.read_bytes().count(b"\n")
    return done + parts


def worker_rss(group: int) -> list[float]:
    """VmRSS (MiB) of every worker: the processes of the group that are neither the supervisor
    nor its direct children (the fork server, the resource tracker), i.e. the fork server's."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == group:
            continue
        try:
            if os.getpgid(int(entry.name)) != group:
                continue
            fields = dict(line.split(":", 1) for line in
                          (entry / "status").read_text().splitlines() if ":" in line)
        except (OSError, ProcessLookupError):
            continue
        if int(fields["PPid"]) != group and "VmRSS" in fields:
            found.append(int(fields["VmRSS"].split()[0]) / 1024)
    return found


def run(command: list[str], out: Path, stop_at: int | None, samples: list) -> int:
    """Run the command; SIGKILL its process group once ``stop_at`` pages are written."""
    with open(out.parent / "batch.log", "a") as log:
        process = subprocess.Popen(command, start_new_session=True, stdout=subprocess.DEVNULL,
                                   stderr=log)
    last_sample = 0.0
    while process.poll() is None:
        time.sleep(1)
        if time.monotonic() - last_sample >= 5:
            last_sample = time.monotonic()
            written = progress_lines(out) if out.exists() else 0
            samples.append((round(time.monotonic(), 1), written, worker_rss(process.pid)))
            if stop_at is not None and written >= stop_at:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                return -9
    return process.returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--datasets-dir", type=Path, default=Path("../shared/datasets"))
    parser.add_argument("--pages", type=int, default=200_000)
    parser.add_argument("--files", type=int, default=40)
    parser.add_argument("--method", default="auto")
    parser.add_argument("--jobs", default=str(os.cpu_count()))
    parser.add_argument("--work", type=Path, default=Path("build/scale"))
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--kill-at", type=float, nargs="*", default=[0.3, 0.65],
                        help="SIGKILL the run when this share of the pages is written (each)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    warcs, out = args.work / "warc", args.work / "out"
    started = time.perf_counter()
    held = generate(warcs, args.datasets_dir, args.pages, args.files, args.seed)
    generated = time.perf_counter() - started
    command = [sys.executable, "-m", "grist", "batch", str(warcs), "--out", str(out), "-j",
               args.jobs, "--method", args.method, "--quiet"]
    samples: list = []
    run_started = time.perf_counter()
    codes = [run(command, out, int(args.pages * share), samples) for share in args.kill_at]
    codes.append(run(command, out, None, samples))
    elapsed = time.perf_counter() - run_started
    records = [r for path in sorted(out.glob("shard-*.jsonl")) for r in read_final(path)]
    keys = Counter((r["source"], r["input"]) for r in records)
    summary = json.loads((out / "summary.json").read_text())
    rss = [(t, n, r) for t, n, r in samples if r]
    quarters = [rss[i * len(rss) // 4:(i + 1) * len(rss) // 4] for i in range(4)]
    lines = [
        f"Measured {date.today()} with `python benchmarks/batch_scale.py --pages {args.pages} "
        f"--files {args.files} --method {args.method} --jobs {args.jobs} --kill-at "
        f"{' '.join(str(share) for share in args.kill_at)}` (shared 2-core "
        "machine; other jobs ran beside it).", "",
        f"- input: {args.files} WARC.gz files, {held['responses']} responses ({held['image']} "
        f"images, {held['corrupt']} corrupt gzip members), each with a request and a metadata "
        f"record; generated in {generated:.0f} s",
        f"- runs: exit codes {codes} (-9: killed with SIGKILL of the whole process group at "
        f"{', '.join(f'{share:.0%}' for share in args.kill_at)} of the pages), "
        f"{elapsed:.0f} s in all",
        f"- summary of the last run: {summary['line']}",
        f"- output records: {len(records)}; distinct (source, input): {len(keys)}; written more "
        f"than once: {sum(1 for n in keys.values() if n > 1)}; responses without a record: "
        f"{held['responses'] - len(keys)}",
        f"- errors by kind: {dict(Counter(r['reason'] for r in records if 'error' in r))}",
        f"- pages per second over the runs of this harness: {len(records) / elapsed:.1f}", "",
        "Worker resident memory (MiB, every worker sampled every 5 s), by quarter of the run:", "",
        "| quarter | samples | pages written at the end | min | median | max |",
        "|---|---:|---:|---:|---:|---:|"]
    for number, part in enumerate(quarters, 1):
        values = sorted(v for _, _, r in part for v in r)
        if values:
            lines.append(f"| {number} | {len(part)} | {part[-1][1]} | {values[0]:.0f} | "
                         f"{values[len(values) // 2]:.0f} | {values[-1]:.0f} |")
    lines += ["", f"Peak RSS per worker of the last run (VmHWM): "
              f"{[round(v) for v in summary['worker_peak_rss_mib']]} MiB", ""]
    report = "\n".join(lines)
    return publish(report, args.out)


if __name__ == "__main__":
    sys.exit(main())
