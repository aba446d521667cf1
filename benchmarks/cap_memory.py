"""Peak memory of every method on pages at the byte cap (Limits.max_bytes) and the block cap.

Each (method, page) runs in a fresh interpreter; its peak resident size (``VmHWM``, not
``ru_maxrss``, which keeps the parent's peak across fork and exec) is read after the
extraction, and the same interpreter's size before it (imports and models loaded) is reported
beside it. Byte-cap pages are one ``<p>`` of a repeated word pattern filling the cap,
the shape whose per-word Python strings used to dominate memory; block-cap pages repeat a small
block 99,000 times (Limits.max_blocks is 100,000), where the feature matrices are the cost.

Usage: python benchmarks/cap_memory.py [--methods auto justext ...]
                                       [--out docs/benchmarks/cap-memory.md]
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import subprocess
import sys

from reporting import publish

import grist

PATTERNS = ("x ", "ab ", "Ab. ", "1 ", '"A" ', "x")
BLOCK_UNITS = ("<p>x", "<li><a href=/x>link</a>")
BLOCKS = 99_000
METHODS = ("auto", "justext", "lineblock", "tagscore", "tree")

_CHILD = """
import json, sys, time
import grist
from grist.errors import GristError
from grist.limits import Limits
method, unit, blocks = sys.argv[1], sys.argv[2], int(sys.argv[3])
cap = Limits().max_bytes
page = (unit * blocks if blocks else ("<p>" + unit * (cap // len(unit) + 1))[:cap]).encode()
def peak_mib():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM")) / 1024
grist.extract(b"<p>warm up</p>", method=method)
before = peak_mib()
start = time.process_time()
try:
    grist.extract(page, method=method)
    outcome = "ok"
except GristError as error:
    outcome = type(error).__name__
print(json.dumps({"before": before, "peak": peak_mib(),
                  "cpu": time.process_time() - start, "outcome": outcome}))
"""


def measure(method: str, unit: str, blocks: int = 0) -> dict:
    """One run in a fresh interpreter: ``unit`` filling the byte cap, or repeated ``blocks``
    times."""
    done = subprocess.run([sys.executable, "-c", _CHILD, method, unit, str(blocks)],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", nargs="+", default=list(METHODS))
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    rows = ["| method | page | before (MiB) | peak (MiB) | CPU (s) | outcome |",
            "|---|---|---:|---:|---:|---|"]
    worst = 0.0
    pages = [(unit, 0) for unit in PATTERNS] + [(unit, BLOCKS) for unit in BLOCK_UNITS]
    for method in args.methods:
        for unit, blocks in pages:
            got = measure(method, unit, blocks)
            worst = max(worst, got["peak"])
            shown = f"`{unit!r}` x {blocks:,}" if blocks else f"`{unit!r}` to 20 MiB"
            rows.append(f"| {method} | {shown} | {got['before']:.0f} | {got['peak']:.0f} | "
                        f"{got['cpu']:.2f} | {got['outcome']} |")
            print(rows[-1], file=sys.stderr)
    head = (f"# Peak memory at the byte cap\n\n{datetime.date.today()}, grist {grist.__version__}, "
            f"Python {platform.python_version()}, {platform.machine()}.\n\n"
            f"Command: `python benchmarks/cap_memory.py {' '.join(argv or sys.argv[1:])}`\n\n"
            "Each run is a fresh process: `before` is its peak after imports, model loading and a "
            "warm-up page; `peak` is its peak after the page: a `<p>` of the pattern repeated to "
            "20 MiB, or a block repeated 99,000 times. Default caps, time budget included (an "
            "`ExtractionTimeout` stops the run). Target: under 1 GiB.\n\n")
    return publish(head + "\n".join(rows) + f"\n\nHighest peak: {worst:.0f} MiB.\n", args.out)


if __name__ == "__main__":
    raise SystemExit(main())
