"""Load test of ``grist serve`` on 127.0.0.1: N concurrent clients posting real pages.

Starts the service as a subprocess (``grist serve``, default settings: one worker per core),
posts pages read from the shared datasets at run time (raw HTML bodies, method ``auto``, text
output) from ``--concurrency`` clients until ``--requests`` are answered or ``--max-seconds``
pass, and reports throughput, latency percentiles, errors, and the resident memory of the server
and its workers sampled along the run (it should stay flat). Bounded in count and time; talks to
127.0.0.1 only.

    python benchmarks/service_load.py [--requests 10000] [--concurrency 4] [--pages 400]
        [--datasets-dir ../shared/datasets] [--max-seconds 1800]
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import itertools
import json
import os
import statistics
import subprocess
import sys
import time
from collections import Counter
from importlib.metadata import version
from pathlib import Path

import httpx
from service_common import free_port, wait_until_up

DATASETS = ("l3s-gn1", "cleaneval-final", "dragnet", "modern-dev")
Sample = tuple[int, tuple[int, int]]  # requests done, (server RSS, workers RSS)


def read_pages(folder: Path, count: int) -> list[bytes]:
    """``count`` pages, taken in turn from each dataset (their first pages), as UTF-8 bytes."""
    per = -(-count // len(DATASETS))
    pages: list[bytes] = []
    for name in DATASETS:
        with gzip.open(folder / f"{name}.jsonl.gz", "rt", encoding="utf-8") as f:
            for line in itertools.islice(f, per):
                pages.append(json.loads(line)["html"].encode("utf-8"))
    return pages[:count]


def _rss(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except FileNotFoundError:
        pass
    return 0


def rss_bytes(pid: int) -> tuple[int, int]:
    """Resident memory of the server process ``pid`` and of its children (the workers)."""
    children = [int(c) for task in Path(f"/proc/{pid}/task").iterdir()
                for c in (task / "children").read_text().split()]
    return _rss(pid), sum(_rss(child) for child in children)


async def load(base: str, pages: list[bytes], requests: int, concurrency: int, deadline: float,
               server_pid: int) -> tuple[list[float], Counter, list[Sample], float]:
    latencies: list[float] = []
    outcomes: Counter = Counter()
    memory: list[Sample] = []
    issued = 0
    every = max(requests // 20, 1)

    async with httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_connections=concurrency)) as client:
        async def client_loop() -> None:
            nonlocal issued
            while issued < requests and time.monotonic() < deadline:
                n = issued
                issued += 1
                started = time.perf_counter()
                try:
                    response = await client.post(base + "/extract", content=pages[n % len(pages)],
                                                 headers={"content-type": "text/html"})
                    outcomes[response.status_code] += 1
                except httpx.HTTPError as exc:
                    outcomes[type(exc).__name__] += 1
                latencies.append(time.perf_counter() - started)
                done = len(latencies)
                if done % every == 0:
                    memory.append((done, rss_bytes(server_pid)))

        started = time.perf_counter()
        await asyncio.gather(*(client_loop() for _ in range(concurrency)))
        wall = time.perf_counter() - started
    return latencies, outcomes, memory, wall


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=2 * (os.cpu_count() or 1))
    parser.add_argument("--pages", type=int, default=400)
    parser.add_argument("--datasets-dir", type=Path, default=Path("../shared/datasets"))
    parser.add_argument("--max-seconds", type=float, default=1800)
    args = parser.parse_args()
    pages = read_pages(args.datasets_dir, args.pages)
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "grist", "serve", "--port", str(port),
                               "--log-level", "warning"])
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base)
        workers = httpx.get(base + "/health").json()["workers"]
        cpu_before = os.times()
        latencies, outcomes, memory, wall = asyncio.run(load(
            base, pages, args.requests, args.concurrency, time.monotonic() + args.max_seconds,
            server.pid))
        restarts = [line for line in httpx.get(base + "/metrics").text.splitlines()
                    if line.startswith("grist_worker_restarts ")]
        cpu_after = os.times()
    finally:
        server.terminate()
        server.wait(timeout=30)
    ok = outcomes.get(200, 0)
    errors = sum(n for k, n in outcomes.items() if k != 200 and not (isinstance(k, int) and k < 500))
    refused = sum(n for k, n in outcomes.items() if isinstance(k, int) and 400 <= k < 500)
    p50, p99 = percentile(latencies, 0.5), percentile(latencies, 0.99)
    mib = [(n, server_rss / 2**20, workers_rss / 2**20) for n, (server_rss, workers_rss) in memory]
    print(f"# grist serve load test, {time.strftime('%Y-%m-%d %H:%M')}\n")
    print(f"python {sys.version.split()[0]}; grist {version('grist')}; fastapi {version('fastapi')}; "
          f"uvicorn {version('uvicorn')}; httpx {version('httpx')}; {os.cpu_count()} cores "
          f"(shared machine); {workers} workers; {args.concurrency} concurrent clients; "
          f"{len(pages)} distinct pages from {', '.join(DATASETS)} (median "
          f"{statistics.median(len(p) for p in pages) / 1024:.0f} KiB), posted in turn; method "
          "auto, text output.\n")
    print(f"command: `python benchmarks/service_load.py --requests {args.requests} --concurrency "
          f"{args.concurrency} --pages {args.pages} --max-seconds {args.max_seconds:g}`\n")
    print("| requests | wall s | req/s | p50 ms | p90 ms | p99 ms | max ms | p99/p50 | 200 | 4xx "
          "(page refused) | errors (5xx, timeouts, connection) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    print(f"| {len(latencies)} | {wall:.1f} | {len(latencies) / wall:.1f} | {p50 * 1e3:.1f} | "
          f"{percentile(latencies, 0.9) * 1e3:.1f} | {p99 * 1e3:.1f} | {max(latencies) * 1e3:.1f} | "
          f"{p99 / p50:.2f} | {ok} | {refused} | {errors} |\n")
    print(f"outcomes: {dict(outcomes)}; {restarts[0] if restarts else ''}; client CPU "
          f"{cpu_after.user - cpu_before.user + cpu_after.system - cpu_before.system:.1f} s\n")
    print("Resident memory (MiB) after N requests:\n")
    print("| requests | " + " | ".join(str(n) for n, _, _ in mib) + " |")
    print("|---|" + "---:|" * len(mib))
    print("| server | " + " | ".join(f"{m:.0f}" for _, m, _ in mib) + " |")
    print("| workers | " + " | ".join(f"{m:.0f}" for _, _, m in mib) + " |")


if __name__ == "__main__":
    main()
