"""JSON output at scale: its size beside trafilatura's JSON with metadata, and its CPU cost
beside text output, on the same modern pages.

Usage: python benchmarks/json_output.py [--datasets-dir ../shared/datasets] [--pages 200]
       [--report docs/benchmarks/json-output.md]

grist: ``Extractor()`` (``auto``, shipped model) then the text, or the JSON record ``grist
extract --format json`` writes for each page of a batch (one line; compact: metadata, text, per
block text/role/label/score/reason), and with ``--explain`` for reference. trafilatura: ``extract(output_format="json", with_metadata=True)``. CPU time
(``time.process_time``) of extraction plus rendering, best of ``--repeat`` passes; sizes in
UTF-8 bytes, one JSON document per page.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import sys
import time
from importlib.metadata import version
from pathlib import Path

from grist.io.datasets import read_dataset
from grist.render import RenderOptions
from grist.render.json_output import dumps, result_dict
from reporting import publish  # benchmarks/reporting.py (the script's folder is on sys.path)


def timed(run, pages, repeat: int) -> tuple[float, int]:
    best, size = float("inf"), 0
    for _ in range(repeat):
        size = 0
        started = time.process_time()
        for page in pages:
            size += len(run(page).encode("utf-8"))
        best = min(best, time.process_time() - started)
    return best, size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets-dir", type=Path, default=Path("../shared/datasets"))
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--report", type=Path)
    args = parser.parse_args()
    import trafilatura

    import grist

    pages = [p for p in read_dataset(args.datasets_dir / "modern-dev.jsonl.gz", args.pages)
             if p.html]
    extract = grist.Extractor()
    extract(pages[0].html)  # model loaded outside the timing

    def grist_format(fmt: str, **options):
        def run(page) -> str:
            try:
                result = extract(page.html, page.url)
            except grist.GristError as exc:
                return str(exc)
            if fmt == "text":
                return result.text
            return dumps(result_dict(result, RenderOptions(**options)))
        return run

    systems = {
        "grist text": grist_format("text"),
        "grist json": grist_format("json"),
        "grist json --explain": grist_format("json", explain=True),
        "trafilatura json with metadata": lambda page: trafilatura.extract(
            page.html, url=page.url, output_format="json", with_metadata=True) or "",
    }
    html_bytes = sum(len(p.html.encode("utf-8")) for p in pages)
    results = {name: timed(run, pages, args.repeat) for name, run in systems.items()}
    text_cpu = results["grist text"][0]
    traf_size = results["trafilatura json with metadata"][1]
    rows = [f"| {name} | {size / 1e6:.2f} | {size / traf_size:.2f} | {cpu:.2f} | "
            f"{cpu / text_cpu:.2f} |" for name, (cpu, size) in results.items()]
    command = " ".join(["python", "benchmarks/json_output.py", *sys.argv[1:]])
    report = "\n".join([
        "# JSON output: size and CPU",
        "",
        f"Date: {datetime.date.today()}; Python {platform.python_version()}; grist "
        f"{version('grist')}; trafilatura {version('trafilatura')}; shared 2-core machine. "
        f"Command: `{command}`: the first {len(pages)} modern-dev pages "
        f"({html_bytes / 1e6:.1f} MB of HTML).",
        "",
        "| output | MB | size / trafilatura's JSON | CPU s | CPU / grist text |",
        "|---|---:|---:|---:|---:|",
        *rows,
        "",
    ])
    return publish(report, args.report)


if __name__ == "__main__":
    sys.exit(main())
