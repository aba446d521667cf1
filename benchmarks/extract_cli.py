"""Run ``grist extract`` as a user would, on a folder of real pages, in every output format.

Usage: python benchmarks/extract_cli.py [--datasets-dir ../shared/datasets] [--pages 100]
       [--method justext] [--datasets l3s-gn1 modern-dev] [--report docs/benchmarks/extract_cli.md]

Writes the first N pages of each dataset as files into a temporary folder (bytes in the dataset's
recorded encoding), runs ``python -m grist extract --quiet --format F FOLDER`` once per format and
records wall time, pages/s, exit status and how many error records the batch printed.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

from grist.io.datasets import read_jsonl

FORMATS = ("text", "markdown", "json", "html")


def write_pages(datasets_dir: Path, names: list[str], pages: int, folder: Path) -> int:
    """Write up to ``pages`` pages of each dataset into ``folder``; return how many were written."""
    written = 0
    for name in names:
        for i, page in enumerate(read_jsonl(datasets_dir / f"{name}.jsonl.gz")):
            if i >= pages:
                break
            encoding = page.extra.get("encoding") or "utf-8"
            try:
                data = page.html.encode(encoding)
            except (LookupError, UnicodeEncodeError):
                data = page.html.encode("utf-8")
            (folder / f"{name}-{i:04d}.html").write_bytes(data)
            written += 1
    return written


def run_format(folder: Path, method: str, fmt: str) -> tuple[float, int, int, int]:
    """Time one batch run; return (seconds, exit status, stdout lines, error records)."""
    command = [sys.executable, "-m", "grist", "extract", "--quiet", "--method", method]
    started = time.perf_counter()
    done = subprocess.run(
        [*command, "--format", fmt, str(folder)], capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - started
    errors = sum(1 for line in done.stderr.splitlines() if line.startswith("grist: error:"))
    if "Traceback" in done.stderr:
        raise SystemExit(f"{fmt}: the batch crashed:\n{done.stderr[-2000:]}")
    return seconds, done.returncode, len(done.stdout.splitlines()), errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets-dir", type=Path, default=Path("../shared/datasets"))
    parser.add_argument("--datasets", nargs="+", default=["l3s-gn1", "modern-dev"])
    parser.add_argument("--pages", type=int, default=100)
    parser.add_argument("--method", default="justext")
    parser.add_argument("--report", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        count = write_pages(args.datasets_dir, args.datasets, args.pages, folder)
        rows = []
        for fmt in FORMATS:
            seconds, status, lines, errors = run_format(folder, args.method, fmt)
            rows.append(
                f"| {fmt} | {count} | {seconds:.2f} | {count / seconds:.1f} | {status} | {errors} |"
            )
            print(rows[-1], flush=True)
    command = " ".join(["python", "benchmarks/extract_cli.py", *sys.argv[1:]])
    report = "\n".join(
        [
            "# `grist extract` on a folder of real pages, every format",
            "",
            f"Date: {datetime.date.today()}; Python {platform.python_version()}; "
            f"grist {version('grist')}; selectolax {version('selectolax')}; "
            f"machine: {platform.machine()}, shared 2 cores.",
            f"Command: `{command}` (method `{args.method}`, datasets {', '.join(args.datasets)}, "
            f"first {args.pages} pages each). Wall time includes interpreter start-up.",
            "",
            "| format | pages | seconds | pages/s | exit status | error records |",
            "|---|---:|---:|---:|---:|---:|",
            *rows,
            "",
        ]
    )
    if args.report:
        args.report.write_text(report, encoding="utf-8")
    print(report)


if __name__ == "__main__":
    main()
