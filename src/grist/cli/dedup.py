"""``grist dedup``: near-duplicate documents or blocks across a folder, a JSON-lines file or a
stream of ``grist extract --format json`` records, with a persistent fingerprint index.

Inputs: a folder (``*.htm*`` files, recursively), a ``.jsonl``/``.jsonl.gz`` file, or ``-`` for
JSON lines on stdin. A record with ``blocks`` (``grist extract --format json``) or ``text`` is
used as extracted; a record with ``html`` (a dataset file) is extracted first with ``--method``.
Duplicate groups go to stdout as JSON lines; progress and a summary go to stderr.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections.abc import Iterator
from pathlib import Path


from grist.api import Extractor
from grist.progress import progress
from grist.dedup.groups import DuplicateGroups
from grist.dedup.index import FingerprintIndex
from grist.dedup.stage import FINGERPRINTS
from grist.errors import DatasetError, GristError
from grist.methods import DEFAULT_METHOD
from grist.render.json_output import dumps

Item = tuple[str, list[str]]  # document key, its texts (the whole text, or its content blocks)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``dedup`` subcommand."""
    parser = subparsers.add_parser(
        "dedup",
        help="find near-duplicate documents or blocks (folder, JSON lines, stdin)",
        description="Report groups of near-duplicate documents or content blocks.",
    )
    parser.add_argument("inputs", nargs="+", metavar="FOLDER|FILE.jsonl[.gz]|-")
    parser.add_argument("--level", choices=("document", "block"), default="document")
    parser.add_argument("--fingerprint", choices=tuple(FINGERPRINTS), default="modified_simhash")
    parser.add_argument("-k", type=int, default=3, help="max differing bits of near-duplicates")
    parser.add_argument("--method", default=DEFAULT_METHOD, help="extraction method for raw HTML")
    parser.add_argument("--min-words", type=int, default=5, help="ignore shorter texts")
    parser.add_argument("--index", type=Path, metavar="FILE", help="load this index first")
    parser.add_argument("--save-index", type=Path, metavar="FILE", help="write the index here")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(func=run)


def _record_texts(record: dict, level: str, extractor: Extractor) -> list[str]:
    """The texts of one JSON record at the requested level."""
    if "blocks" in record and level == "block":
        return [b.get("text", "") for b in record["blocks"] if b.get("label") == "content"]
    if "text" in record and "html" not in record:
        return [record["text"]] if level == "document" else record["text"].split("\n\n")
    result = extractor(record.get("html") or "", url=record.get("url"))
    return [result.text] if level == "document" else [b.text for b in result.content_blocks]


def _lines(source: str) -> Iterator[str]:
    if source == "-":
        yield from sys.stdin
        return
    path = Path(source)
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8") as handle:
            yield from handle
    except OSError as exc:
        raise DatasetError(f"cannot read {source}: {exc}") from None


def _items(source: str, level: str, extractor: Extractor, errors: list[str]) -> Iterator[Item]:
    """(key, texts) for every page of one input; a page that fails is logged and skipped."""
    path = Path(source)
    if source != "-" and path.is_dir():
        for page in sorted(path.rglob("*.htm*")):
            try:
                result = extractor(page.read_bytes())
            except (GristError, OSError) as exc:
                errors.append(f"{page}: {exc}")
                continue
            texts = [result.text] if level == "document" else [b.text for b in result.content_blocks]
            yield str(page), texts
        return
    if source != "-" and not path.is_file():
        raise DatasetError(f"no such folder or file: {source}")
    for number, line in enumerate(_lines(source), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            key = str(record.get("id") or record.get("source") or record.get("url") or f"{source}:{number}")
            yield key, _record_texts(record, level, extractor)
        except (GristError, ValueError, AttributeError) as exc:
            errors.append(f"{source}:{number}: {exc}")


def run(args: argparse.Namespace) -> int:
    """Fingerprint every document or block, report the duplicate groups, save the index."""
    index = FingerprintIndex.load(args.index) if args.index else FingerprintIndex(args.k)
    finder = DuplicateGroups(index, FINGERPRINTS[args.fingerprint])
    extractor = Extractor(method=args.method)
    errors: list[str] = []
    texts = short = pages = 0
    bar = progress(quiet=args.quiet, desc="dedup", unit="page")
    for source in args.inputs:
        for key, parts in _items(source, args.level, extractor, errors):
            bar.update()
            pages += 1
            for number, text in enumerate(parts):
                if len(text.split()) < args.min_words:
                    short += 1
                    continue
                texts += 1
                finder.add(key if args.level == "document" else f"{key}#{number}", text)
    bar.close()
    groups = finder.groups()
    for number, members in enumerate(groups):
        print(dumps({
            "group": number,
            "size": len(members),
            "members": [{"key": index.key(i), "text": finder.previews.get(i)} for i in members],
        }))
    if args.save_index:
        index.save(args.save_index)
    for message in errors:
        print(f"grist: skipped {message}", file=sys.stderr)
    duplicates = sum(len(g) - 1 for g in groups)
    print(f"grist dedup: {pages} pages read, {texts} {args.level}s fingerprinted ({short} under "
          f"--min-words {args.min_words} left out), {duplicates} near-duplicates in {len(groups)} "
          f"groups, {len(errors)} skipped inputs, index of {len(index)}", file=sys.stderr)
    return 0
