"""Which ASGI framework and server for ``grist serve``: the server's CPU time per request.

Two equivalent minimal apps (Starlette, FastAPI with a pydantic request model) answer ``GET
/health`` and ``POST /extract`` (a JSON body validated like the real endpoint, no extraction),
each under uvicorn with its fast loop/parser (uvloop + httptools) and with the pure-Python ones
(asyncio + h11). The server runs in a subprocess on 127.0.0.1; the figure is the server process's
CPU time (``/proc``) divided by the requests it answered, so the client's cost and other jobs on a
shared machine do not count. An extraction of a real page is timed beside it for scale.

    python benchmarks/service_frameworks.py [--requests 2000] [--datasets-dir ../shared/datasets]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gzip
import itertools
import json
import os
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path

import httpx
from service_common import free_port, wait_until_up

APPS = r'''
import sys
KIND = sys.argv[1]
OPTIONS = ("with_title", "with_comments", "links", "images", "metadata")
if KIND == "starlette":
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def health(request):
        return JSONResponse({"status": "ok"})

    async def extract(request):
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"error": "bad json"}, status_code=400)
        if not isinstance(body, dict) or not isinstance(body.get("html"), str):
            return JSONResponse({"error": "html must be a string"}, status_code=422)
        unknown = set(body) - {"html", "url", "method", "format", *OPTIONS}
        if unknown or not all(isinstance(body.get(o, False), bool) for o in OPTIONS):
            return JSONResponse({"error": "bad option"}, status_code=422)
        return JSONResponse({"length": len(body["html"]), "method": body.get("method", "auto")})

    app = Starlette(routes=[Route("/health", health), Route("/extract", extract, methods=["POST"])])
else:
    from fastapi import FastAPI
    from pydantic import BaseModel, ConfigDict

    class Request(BaseModel):
        model_config = ConfigDict(extra="forbid")
        html: str
        url: str | None = None
        method: str = "auto"
        format: str = "text"
        with_title: bool = False
        with_comments: bool = False
        links: bool = False
        images: bool = False
        metadata: bool = False

    app = FastAPI()

    @app.get("/health")
    async def health():
        return {"status": "ok"}

    @app.post("/extract")
    async def extract(body: Request):
        return {"length": len(body.html), "method": body.method}
'''


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def drive(url: str, method: str, body: bytes | None, count: int, concurrency: int) -> float:
    """Send ``count`` requests, ``concurrency`` at a time; return the wall time."""
    async with httpx.AsyncClient(timeout=30) as client:
        queue = iter(range(count))

        async def one() -> None:
            for _ in queue:
                response = await client.request(method, url, content=body,
                                                headers={"content-type": "application/json"})
                response.raise_for_status()

        started = time.perf_counter()
        await asyncio.gather(*(one() for _ in range(concurrency)))
        return time.perf_counter() - started


def measure(kind: str, stack: str, page: str, count: int) -> dict[str, float]:
    port = free_port()
    script = Path("/tmp") / f"grist-bench-app-{os.getpid()}.py"
    script.write_text(APPS)
    loop, http = ("uvloop", "httptools") if stack == "fast" else ("asyncio", "h11")
    code = (f"import sys; sys.argv=['app', {kind!r}]; sys.path.insert(0, {str(script.parent)!r});"
            f"import uvicorn, runpy; ns = runpy.run_path({str(script)!r});"
            f"uvicorn.run(ns['app'], host='127.0.0.1', port={port}, loop={loop!r}, http={http!r},"
            "log_level='warning', access_log=False)")
    server = subprocess.Popen([sys.executable, "-c", code])
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_up(base)
        body = json.dumps({"html": page, "method": "auto", "with_title": True}).encode()
        asyncio.run(drive(base + "/extract", "POST", body, 50, 4))  # warm up
        figures = {}
        for name, method, payload in (("health", "GET", None), ("extract", "POST", body)):
            before = cpu_seconds(server.pid)
            wall = asyncio.run(drive(base + "/" + name, method, payload, count, 4))
            figures[name] = (cpu_seconds(server.pid) - before) / count * 1e6
            figures[name + "_rps"] = count / wall
        return figures
    finally:
        server.terminate()
        server.wait()
        script.unlink(missing_ok=True)


def extraction_cpu(pages: list[str]) -> float:
    """Mean CPU microseconds of ``grist.extract`` (auto, text) over ``pages``."""
    import grist

    grist.extract(pages[0])
    started = time.process_time()
    for page in pages:
        with contextlib.suppress(grist.GristError):
            grist.extract(page)
    return (time.process_time() - started) / len(pages) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--datasets-dir", type=Path, default=Path("../shared/datasets"))
    args = parser.parse_args()
    with gzip.open(args.datasets_dir / "l3s-gn1.jsonl.gz", "rt", encoding="utf-8") as f:
        pages = [json.loads(line)["html"] for line in itertools.islice(f, 100)]
    page = sorted(pages, key=len)[len(pages) // 2]
    print(f"# {time.strftime('%Y-%m-%d')}; python {sys.version.split()[0]}; starlette "
          f"{version('starlette')}; fastapi {version('fastapi')}; pydantic {version('pydantic')}; "
          f"uvicorn {version('uvicorn')}; {args.requests} requests per figure, 4 at a time; "
          f"POST body: the median of 100 l3s-gn1 pages ({len(page)} chars)\n")
    print("| framework | uvicorn loop/parser | GET /health CPU µs/req | POST /extract (no "
          "extraction) CPU µs/req | req/s health | req/s extract |")
    print("|---|---|---:|---:|---:|---:|")
    for kind in ("starlette", "fastapi"):
        for stack in ("fast", "pure"):
            f = measure(kind, stack, page, args.requests)
            label = "uvloop + httptools" if stack == "fast" else "asyncio + h11"
            print(f"| {kind} | {label} | {f['health']:.0f} | {f['extract']:.0f} | "
                  f"{f['health_rps']:.0f} | {f['extract_rps']:.0f} |", flush=True)
    print(f"\nFor scale: `grist.extract` (auto, text) of the same 100 pages: "
          f"{extraction_cpu(pages):.0f} CPU µs per page in one process.")


if __name__ == "__main__":
    main()
