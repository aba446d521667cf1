"""A digest of what segmentation makes of every page of the shared datasets: the check that a
rewrite of the walk (a compiled one, a faster Python one) changes nothing.

    python benchmarks/segment_digest.py --datasets-dir ../shared/datasets

Every page is loaded, parsed and segmented as ``auto`` does it; the digest covers every field of
every block (its marks with their elements' tags, its table, its inline spans) and the element
table, or the error a page raises. Two versions of the code agree when they print the same
digest (``docs/benchmarks/auto-speed.md`` gives the one of stop 50).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
from pathlib import Path

from grist.errors import GristError
from grist.html.load import load_document
from grist.html.parse import parse_document
from grist.io.datasets import read_jsonl
from grist.segment.blocks import segment_elements

from devsets import DATASETS


def page_digest(html: str) -> bytes:
    """The digest of one page's blocks and elements (or of the error it raises)."""
    digest = hashlib.blake2b(digest_size=8)
    try:
        blocks, elements = segment_elements(parse_document(load_document(html)))
    except GristError as exc:
        digest.update(repr(exc).encode())
        return digest.digest()
    for block in blocks:
        fields = {f.name: getattr(block, f.name) for f in dataclasses.fields(block)
                  if f.name not in ("marks", "table")}
        marks = None if block.marks is None else (
            block.marks[0], [(at, kind, node.tag if node is not None else None, op)
                             for at, kind, node, op in block.marks[1]])
        table = None if block.table is None else dataclasses.astuple(block.table)
        digest.update(repr((fields, marks, table, block.inline)).encode())
    digest.update(repr((elements.rows, elements.end)).encode())
    return digest.digest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets-dir", type=Path, default=Path("../shared/datasets"))
    args = parser.parse_args()
    total, pages = hashlib.blake2b(digest_size=8), 0
    for name in DATASETS:
        for page in read_jsonl(args.datasets_dir / f"{name}.jsonl.gz"):
            total.update(page_digest(page.html))
            pages += 1
    print(f"{pages} pages, segmentation digest {total.hexdigest()}")


if __name__ == "__main__":
    main()
