"""The fuzz worker: a child process that extracts the pages it is sent and reports how each went.

It reads framed pickles on stdin and answers on stdout; a memory cap (RLIMIT_AS) is set when it
starts. Each run records the outcome (``ok``, ``error`` for a GristError, ``crash`` for any other
exception), where a crash was raised, the wall and CPU time, and the peak resident memory of the
run (the kernel's high-water mark, reset before each page). A page that never ends is the
parent's business: it kills the worker; a traceback of the stuck run is dumped to stderr first.

Run as ``python -m grist.fuzz.worker MEMORY_BYTES HANG_SECONDS``.
"""

from __future__ import annotations

import faulthandler
import os
import pickle
import re
import resource
import struct
import sys
import time
import traceback
from typing import Any, BinaryIO

_HEADER = struct.Struct("<Q")
_HWM = re.compile(rb"VmHWM:\s+(\d+)")
_RSS = re.compile(rb"VmRSS:\s+(\d+)")
# JSON holds every block with its ~240 named features (7 KB a block, about 0.3 ms of CPU): past
# this many blocks (real pages hold up to ~3,000) rendering it, not extracting, takes the time.
JSON_MAX_BLOCKS = 2_000


def write_frame(stream: BinaryIO, message: Any) -> None:
    """Send one pickled message, prefixed by its length."""
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def read_frame(stream: BinaryIO) -> Any:
    """Receive one message; EOFError when the other side has gone."""
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        raise EOFError("the other side closed the pipe")
    size = _HEADER.unpack(header)[0]
    data = stream.read(size)
    if len(data) < size:
        raise EOFError("the other side closed the pipe mid-message")
    return pickle.loads(data)


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")  # resets VmHWM to the current resident size
    except OSError:
        return False
    return True


def _memory_kib(resettable: bool) -> tuple[int, int]:
    """The resident high-water mark since the last reset, and the resident size now."""
    try:
        with open("/proc/self/status", "rb") as handle:
            status = handle.read()
        peak, now = _HWM.search(status), _RSS.search(status)
        if resettable and peak and now:
            return int(peak.group(1)), int(now.group(1))
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak, peak


def crash_site(exc: BaseException) -> str:
    """``Type @ file:line function <- caller ...``: where it was raised, then grist's frames."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if _short(f.filename).startswith("grist/")]
    picked = frames[-1:] + [f for f in reversed(ours[-3:]) if f is not frames[-1]]
    where = " <- ".join(f"{_short(f.filename)}:{f.lineno} {f.name}" for f in picked)
    return f"{type(exc).__name__} @ {where}" if where else type(exc).__name__


def _short(path: str) -> str:
    """A source path from the package (``grist/...``) or from site-packages."""
    path = path.replace(os.sep, "/")
    if "/grist/" in path:
        return "grist/" + path.rsplit("/grist/", 1)[1]
    return path.split("/site-packages/", 1)[-1]


class Runner:
    """Extractors by method spec, built once, and one run at a time."""

    def __init__(self, limits: Any, hang_seconds: float) -> None:
        self.limits = limits
        self.hang_seconds = hang_seconds
        self.extractors: dict[str, Any] = {}
        self.resettable = _reset_peak()

    def extractor(self, spec: str) -> Any:
        if spec not in self.extractors:
            from grist.api import Extractor

            self.extractors[spec] = Extractor(method=spec, limits=self.limits)
        return self.extractors[spec]

    def run(self, job: dict) -> dict:
        from grist.errors import GristError

        extractor = self.extractor(job["method"])
        record: dict[str, Any] = {"id": job["id"], "outcome": "ok", "kind": "", "message": ""}
        if self.resettable:
            _reset_peak()
        faulthandler.dump_traceback_later(self.hang_seconds, exit=False, file=sys.stderr)
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            result = extractor(job["content"], job["url"], http_charset=job["http_charset"])
            record["extract_s"] = time.perf_counter() - wall
            # What a user does next: read the text, write it in every format with links, images
            # and the page's metadata; each must work on any result.
            result.text.encode("utf-8")
            for fmt in ("markdown", "html", "xml", "csv"):
                result.render(fmt, links=True, images=True, with_metadata=True).encode("utf-8")
            if len(result.blocks) <= JSON_MAX_BLOCKS:
                result.to_json().encode("utf-8")
            record["blocks"] = len(result.blocks)
        except GristError as exc:
            record.update(outcome="error", kind=type(exc).__name__, message=str(exc)[:300])
        except BaseException as exc:  # noqa: BLE001 - a crash is what the fuzzer looks for
            record.update(outcome="crash", kind=type(exc).__name__, message=str(exc)[:300],
                          where=crash_site(exc))
        finally:
            faulthandler.cancel_dump_traceback_later()
        record["wall_s"] = time.perf_counter() - wall
        record["cpu_s"] = time.process_time() - cpu
        record.setdefault("extract_s", record["wall_s"])
        record["peak_kib"], record["rss_kib"] = _memory_kib(self.resettable)
        return record


def main(argv: list[str]) -> int:
    memory, hang = int(argv[0]), float(argv[1])
    if memory > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing printed by accident may corrupt the frames
    setup = read_frame(stdin)
    sys.path[:0] = setup["sys_path"]
    from grist.methods import register_method

    for name, target in setup["register"].items():  # methods only the caller knows about
        register_method(name, target, replace=True)
    runner = Runner(setup["limits"], hang)
    write_frame(stdout, {"ready": True, "pid": os.getpid()})
    while True:
        try:
            job = read_frame(stdin)
        except EOFError:
            return 0
        write_frame(stdout, runner.run(job))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
