"""Fuzz every method with hostile pages from a seed, or re-run a folder of reproducers.

    python benchmarks/fuzz.py --seed 1 --pages 20000 --out docs/benchmarks/fuzz.md
    python benchmarks/fuzz.py --cases ../shared/fuzz-cases
    python benchmarks/fuzz.py --replay 1:4711 --write /tmp/case.html

Each (page, method) run happens in a worker process with a wall-clock limit (``--hang``) and a
memory cap (``--memory-gib``); outcomes, time and peak-memory percentiles go to ``--out``
(Markdown) and every run to ``--log`` (JSON lines). ``--shrink-into DIR`` saves a small
reproducer of each distinct failure. The exit status is 1 when any run crashed, hung, died, ran
past twice the time budget or passed the memory target.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import random
import shlex
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path

import grist
from grist.fuzz import PoolConfig, Summary, fuzz, load_reproducers, make_case, run_cases
from grist.limits import Limits
from grist.progress import progress


def _corpus(folder: Path, count: int, seed: int) -> list[str]:
    """``count`` real pages from the datasets, to be mutated besides the synthetic ones."""
    from grist.io.datasets import page_datasets, read_jsonl

    pages = [p.html for path in page_datasets(folder)[0] for p in read_jsonl(path)]
    random.Random(seed).shuffle(pages)
    return pages[:count]


def _report(summary: Summary, args: argparse.Namespace, seconds: float, cpu: float) -> str:
    try:
        revision = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                  text=True, check=False).stdout.strip()
    except OSError:
        revision = "?"
    failures = summary.failure_lines(50)
    return "\n".join([
        "# Fuzz run",
        "",
        f"{datetime.date.today()}, grist {revision}, Python {platform.python_version()}, "
        f"selectolax {version('selectolax')}, numpy {version('numpy')}, "
        f"webencodings {version('webencodings')}; default caps "
        f"({Limits()}); worker memory cap {args.memory_gib:g} GiB, wall limit {args.hang:g} s.",
        "",
        "Command: `" + " ".join(shlex.quote(a) for a in ["python", *sys.argv]) + "`",
        "",
        f"{len(summary.pages)} pages, {summary.runs} (page, method) runs in {seconds / 3600:.2f} h "
        "of wall-clock time on a machine shared with other jobs. Times are per (page, method) "
        "run, measured in the worker: wall-clock time of the extraction and CPU time of the run "
        "(extraction and rendering); peak memory is the worker's resident high-water mark during "
        "the run (its baseline of 40-250 MiB included).",
        "",
        summary.markdown(),
        "",
        f"Failures ({len(summary.failures)}):" if failures else "No failures.",
        *(f"- {line}" for line in failures),
        "",
    ])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--start", type=int, default=0, help="index of the first case")
    parser.add_argument("--methods", nargs="+", default=None)
    parser.add_argument("--families", nargs="+", default=None)
    parser.add_argument("--scale", type=float, default=1.0, help="shrink every storm (0-1]")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--hang", type=float, default=30.0, help="wall seconds before a hang")
    parser.add_argument("--memory-gib", type=float, default=4.0, help="worker RLIMIT_AS")
    parser.add_argument("--datasets-dir", type=Path, default=None,
                        help="mutate real pages from these datasets too")
    parser.add_argument("--corpus", type=int, default=300, help="real pages to mutate")
    parser.add_argument("--cases", type=Path, default=None,
                        help="run the reproducers of this folder (with every method)")
    parser.add_argument("--shrink-into", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=None, help="Markdown report")
    parser.add_argument("--log", type=Path, default=None, help="every run as JSON lines")
    parser.add_argument("--report-from", type=Path, default=None,
                        help="write the report of an earlier run from its --log file")
    parser.add_argument("--replay", default=None, help="SEED:INDEX: describe (and --write) a case")
    parser.add_argument("--write", type=Path, default=None)
    args = parser.parse_args()

    if args.replay:
        seed, index = map(int, args.replay.split(":"))
        case = make_case(seed, index, scale=args.scale)
        print(f"{case.name}: {case.detail}; {case.size} bytes, url={case.url!r}, "
              f"http_charset={case.http_charset!r}, {type(case.content).__name__}")
        if args.write:
            data = case.content if isinstance(case.content, bytes) else \
                case.content.encode("utf-8", "surrogatepass")
            args.write.write_bytes(data)
        return 0

    if args.report_from:
        summary = Summary(budget=Limits().time_budget)
        with args.report_from.open(encoding="utf-8") as handle:
            for line in handle:
                summary.add(json.loads(line))
        report = _report(summary, args, float("nan"), float("nan"))
        if args.out:
            args.out.write_text(report, encoding="utf-8")
        print(report)
        return 1 if summary.failures else 0

    config = PoolConfig(jobs=args.jobs, hang_seconds=args.hang,
                        memory_bytes=int(args.memory_gib * (1 << 30)))
    methods = args.methods or grist.available_methods()
    log = args.log.open("w", encoding="utf-8") if args.log else None
    total = args.pages * len(methods)
    bar = progress(total=total, unit="run")
    done = [0]

    def on_record(record: dict) -> None:
        bar.update()
        done[0] += 1
        if log:
            log.write(json.dumps(record, ensure_ascii=False) + "\n")
        if record["outcome"] in ("crash", "hang", "died") or done[0] % 5000 == 0:
            print(f"[{done[0]}/{total}] {record['outcome']} {record['method']} "
                  f"{record.get('family')}#{record.get('seed')}:{record.get('index')} "
                  f"{record.get('kind', '')} {record.get('where', '')}", file=sys.stderr,
                  flush=True)

    started, cpu = time.perf_counter(), time.process_time()
    if args.cases:
        pairs = load_reproducers(args.cases)
        bar.total = len(pairs) * len(methods)
        summary = run_cases((case for case, _ in pairs), methods, config,
                            shrink_into=args.shrink_into, on_record=on_record)
    else:
        corpus = _corpus(args.datasets_dir, args.corpus, args.seed) if args.datasets_dir else ()
        summary = fuzz(args.seed, args.pages, methods=methods, config=config, start=args.start,
                       scale=args.scale, corpus=corpus, families=args.families,
                       shrink_into=args.shrink_into, on_record=on_record)
    bar.close()
    if log:
        log.close()
    report = _report(summary, args, time.perf_counter() - started, time.process_time() - cpu)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(report, encoding="utf-8")
    print(report)
    return 1 if summary.failures else 0


if __name__ == "__main__":
    sys.exit(main())
