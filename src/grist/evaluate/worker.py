"""One system's extraction run in its own process, so its speed and peak memory are its own.

``python -m grist.evaluate.worker SYSTEM DATASET.jsonl.gz... [--limit N] [--skip K]`` prints one
JSON line per page (dataset, id, text, seconds, cpu, error; for grist methods also ``default``,
the default text beside the one with the dataset's convention) and a last line with the peak RSS.
Only the extraction call is timed, in wall and in process CPU seconds: the page is already a
decoded ``str``, no file I/O is inside the timer.
A page running past ``--timeout`` seconds is interrupted (SIGALRM) and counted as an error.
"""

from __future__ import annotations

import argparse
import json
import resource
import signal
import sys
import time
from collections.abc import Iterator

from grist.errors import GristError
from grist.io.datasets import Page, dataset_name, read_dataset
from grist.evaluate.peers import ExtractFunction
from grist.evaluate.systems import make_system, model_path


class PageTimeout(Exception):
    """The page ran past the worker's per-page time limit."""


def _alarm(signum: int, frame: object) -> None:
    raise PageTimeout


def pages(paths: list[str], limit: int | None) -> Iterator[tuple[str, Page]]:
    """The evaluation pages of every dataset in order, the first ``limit`` of each, with the
    name the suite scores them under: the file's (``dataset_name``), whatever dataset the
    records name (a sample cut from one keeps the records' name, and its convention)."""
    for path in paths:
        name = dataset_name(path)
        for page in read_dataset(path, limit=limit):
            yield name, page


def run(system: str, paths: list[str], limit: int | None, skip: int, timeout: float) -> None:
    """Extract every page with ``system`` and stream one JSON record per page to stdout."""
    extractors: dict[str, ExtractFunction] = {}
    signal.signal(signal.SIGALRM, _alarm)
    out = sys.stdout
    for index, (name, page) in enumerate(pages(paths, limit)):
        if index < skip:
            continue
        error = None
        try:
            key = f"{page.dataset}|{model_path(system, page.dataset, page.id)}"
        except GristError as exc:
            key, error = "", str(exc)
        extract = extractors.get(key)
        if extract is None and error is None:  # built outside the timing: loading a model
            extract = extractors[key] = make_system(system, page.dataset, page.id)
        text, default = "", None
        started, cpu_started = time.perf_counter(), time.process_time()
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            if extract is not None:
                got = extract(page.html, page.url) or ""
                text, default = got if isinstance(got, tuple) else (got, None)
        except PageTimeout:
            error = f"timeout after {timeout:g} s"
        except Exception as exc:  # a peer failing on one page must not end the run
            error = f"{type(exc).__name__}: {exc}"[:300]
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        cpu = time.process_time() - cpu_started
        seconds = time.perf_counter() - started
        record = {"dataset": name, "id": page.id, "text": text, "seconds": seconds, "cpu": cpu}
        if default is not None:
            record["default"] = default
        if error:
            record["error"] = error
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
        out.flush()
    out.write(json.dumps({"peak_rss_mib": peak_rss_mib()}) + "\n")


def peak_rss_mib() -> float:
    """Peak resident memory of this process's own address space, in MiB.

    Linux ``VmHWM`` is reset by exec; ``ru_maxrss`` is not (it keeps the peak of the parent
    that forked us), so it is only the fallback where /proc is missing.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    """Command-line entry of the worker process."""
    parser = argparse.ArgumentParser(prog="python -m grist.evaluate.worker")
    parser.add_argument("system")
    parser.add_argument("datasets", nargs="+")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--skip", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=20.0)
    args = parser.parse_args(argv)
    run(args.system, args.datasets, args.limit, args.skip, args.timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
