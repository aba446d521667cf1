"""FastWARC vs warcio on the same WARC.gz files, in one run: CPU seconds to read every response
record's HTTP payload, and grist's reader (FastWARC plus its framing checks) beside them.

Usage: python benchmarks/warc_readers.py [--datasets-dir ../shared/datasets] [--pages 1200]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from batch_throughput import dev_pages, write_warcs  # noqa: E402

from grist.io.warc import read_warc  # noqa: E402


def fastwarc_raw(paths: list[str]) -> int:
    from fastwarc.warc import ArchiveIterator, WarcRecordType

    total = 0
    for path in paths:
        for record in ArchiveIterator(path, record_types=WarcRecordType.response,
                                      parse_http=True):
            total += len(record.reader.read())
    return total


def warcio_raw(paths: list[str]) -> int:
    from warcio.archiveiterator import ArchiveIterator

    total = 0
    for path in paths:
        with open(path, "rb") as handle:
            for record in ArchiveIterator(handle):
                if record.rec_type == "response":
                    total += len(record.content_stream().read())
    return total


def grist_reader(paths: list[str]) -> int:
    return sum(len(item.page.content) for path in paths for item in read_warc(path) if item.page)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--datasets-dir", type=Path, default=Path("../shared/datasets"))
    parser.add_argument("--pages", type=int, default=1200)
    parser.add_argument("--work", type=Path, default=Path("build/warc-readers"))
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    paths = write_warcs(dev_pages(args.datasets_dir, args.pages), args.work)
    print(f"{args.pages} pages, fastwarc {importlib.metadata.version('fastwarc')}, "
          f"warcio {importlib.metadata.version('warcio')}")
    print("| reader | CPU s per round (best of rounds) | MiB of payload |")
    print("|---|---:|---:|")
    for name, read in (("FastWARC ArchiveIterator", fastwarc_raw), ("warcio ArchiveIterator",
                       warcio_raw), ("grist read_warc (FastWARC + framing checks)", grist_reader)):
        best, size = float("inf"), 0
        for _ in range(args.rounds):
            started = time.process_time()
            size = read(paths)
            best = min(best, time.process_time() - started)
        print(f"| {name} | {best:.3f} | {size / 1048576:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
