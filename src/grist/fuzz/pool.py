"""Worker processes that run (page, method) jobs under a wall-clock and a memory limit.

One persistent worker per job slot (starting a process per page would cost more than most pages):
a job that does not answer within ``hang_seconds`` is a *hang*, a worker that vanishes mid-job
(a signal, the memory cap, a segfault in C code) *died*; either way the worker is replaced and
the run goes on. Outcomes: ok, error (a GristError), crash (any other exception), hang, died.
"""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from grist.fuzz.cases import Case
from grist.fuzz.worker import read_frame, write_frame
from grist.limits import Limits

OUTCOMES = ("ok", "error", "crash", "hang", "died")
# A worker left this large by a page (Python keeps freed memory) is replaced, so that the next
# pages' peak memory is their own.
RECYCLE_KIB = 384 * 1024
_FRAME = re.compile(r'File "([^"]+)", line (\d+) in (\S+)')


@dataclass(frozen=True)
class PoolConfig:
    """How jobs run: slots, limits, and methods only the caller knows.

    hang_seconds: wall-clock limit of one (page, method) run; memory_bytes: RLIMIT_AS of a worker
    (0: none). ``register`` maps method names to ``"module:ATTR"`` the workers import (with
    ``sys_path`` prepended), for methods registered outside grist.
    """

    jobs: int = 1
    hang_seconds: float = 30.0
    memory_bytes: int = 4 << 30
    limits: Limits = field(default_factory=Limits)
    register: dict[str, str] = field(default_factory=dict)
    sys_path: tuple[str, ...] = ()


def _hang_site(dump: str) -> str:
    """Where a stuck run was, from the traceback faulthandler dumped: the innermost frame, then
    the innermost frames of grist itself (the fuzz worker's own frames left out)."""
    frames = [(path.replace(os.sep, "/"), line, name) for path, line, name in _FRAME.findall(dump)]
    frames = [f for f in frames if "/grist/fuzz/" not in f[0]]
    if not frames:
        return ""
    ours = [f for f in frames[1:] if "/grist/" in f[0]][:2]
    return " <- ".join(f"{_short(path)}:{line} {name}" for path, line, name in [frames[0], *ours])


def _short(path: str) -> str:
    if "/grist/" in path:
        return "grist/" + path.rsplit("/grist/", 1)[1]
    if "/site-packages/" in path:
        return path.split("/site-packages/", 1)[1]
    return path.rsplit("/", 1)[-1]


class Worker:
    """One child process (``grist.fuzz.worker``) and the runs it has been given."""

    def __init__(self, config: PoolConfig) -> None:
        self.config = config
        self.process: subprocess.Popen | None = None
        self.stderr = tempfile.TemporaryFile()
        self.started = 0

    def _start(self) -> None:
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
                   MKL_NUM_THREADS="1", PYTHONFAULTHANDLER="1")
        dump_after = max(self.config.hang_seconds * 0.8, self.config.hang_seconds - 5)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "grist.fuzz.worker", str(self.config.memory_bytes),
             str(dump_after)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr, env=env)
        self.started += 1
        write_frame(self.process.stdin, {"limits": self.config.limits,
                                         "register": dict(self.config.register),
                                         "sys_path": list(self.config.sys_path)})
        ready = self._answer(120.0)
        if not isinstance(ready, dict) or not ready.get("ready"):
            raise RuntimeError(f"the fuzz worker did not start: {self._stderr_tail(0)}")

    def _answer(self, timeout: float) -> Any:
        """The worker's next message, None on timeout; EOFError when it died."""
        out = self.process.stdout
        readable, _, _ = select.select([out], [], [], timeout)
        if not readable:
            return None
        return read_frame(out)

    def _stderr_tail(self, since: int) -> str:
        self.stderr.flush()
        self.stderr.seek(since)
        text = self.stderr.read().decode("utf-8", "replace")
        self.stderr.seek(0, os.SEEK_END)
        return text

    def _kill(self) -> int:
        proc, self.process = self.process, None
        if proc is None:
            return 0
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for pipe in (proc.stdin, proc.stdout):
            try:
                pipe.close()
            except OSError:
                pass
        return proc.returncode

    def run(self, job: dict) -> dict:
        """Run one job; the record always comes back, whatever happened to the worker."""
        if self.process is None:
            self._start()
        since = self.stderr.seek(0, os.SEEK_END)
        try:
            write_frame(self.process.stdin, job)
            answer = self._answer(self.config.hang_seconds)
        except (EOFError, BrokenPipeError, OSError):
            answer = EOFError
        if isinstance(answer, dict):
            if answer.get("rss_kib", 0) > RECYCLE_KIB:
                self._kill()
            return answer
        base = {"id": job["id"], "wall_s": self.config.hang_seconds, "cpu_s": float("nan"),
                "extract_s": self.config.hang_seconds, "peak_kib": 0}
        if answer is None:
            self._kill()
            return {**base, "outcome": "hang", "kind": "hang",
                    "message": f"no answer in {self.config.hang_seconds:g} s",
                    "where": _hang_site(self._stderr_tail(since))}
        status = self._kill()
        cause = f"signal {signal.Signals(-status).name}" if status < 0 else f"exit status {status}"
        tail = self._stderr_tail(since).strip().splitlines()[-3:]
        return {**base, "outcome": "died", "kind": "died", "wall_s": float("nan"),
                "extract_s": float("nan"), "message": f"the worker died ({cause})",
                "where": " | ".join(tail)[:300]}

    def close(self) -> None:
        self._kill()
        self.stderr.close()


def job_of(case: Case, method: str, number: int) -> dict:
    """The message a worker gets for one (case, method) run."""
    return {"id": number, "method": method, "content": case.content, "url": case.url,
            "http_charset": case.http_charset}


def run_jobs(cases: Iterable[Case], methods: Sequence[str], config: PoolConfig,
             on_record: Callable[[Case, dict], None]) -> None:
    """Run every case with every method on ``config.jobs`` workers; ``on_record(case, record)``
    is called (under a lock) for each finished run."""
    lock = threading.Lock()
    source: Iterator[tuple[Case, str]] = ((c, m) for c in cases for m in methods)
    counter = iter(range(1 << 62))
    failure: list[BaseException] = []

    def slot() -> None:
        worker = Worker(config)
        try:
            while not failure:
                with lock:
                    pair = next(source, None)
                    number = next(counter)
                if pair is None:
                    return
                case, method = pair
                record = worker.run(job_of(case, method, number))
                record.update(method=method, family=case.family, size=case.size,
                              seed=case.seed, index=case.index, detail=case.detail)
                with lock:
                    on_record(case, record)
        except BaseException as exc:  # noqa: BLE001 - reported by the caller's thread
            failure.append(exc)
        finally:
            worker.close()

    threads = [threading.Thread(target=slot, daemon=True) for _ in range(max(config.jobs, 1))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failure:
        raise failure[0]
