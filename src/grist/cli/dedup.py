"""``grist dedup``: near-duplicate documents or blocks across a folder, a JSON-lines file or a
stream of ``grist extract --format json`` records, with a persistent fingerprint index.

Inputs (read with ``grist.io.sources``): pages (files, folders searched recursively, URLs), a
``.jsonl``/``.jsonl.gz`` file, or ``-`` for JSON lines on stdin (gzip-compressed or not). A
record with ``blocks`` (``grist extract --format json``) or ``text`` is used as extracted; a
record with ``html`` (a dataset file) is extracted first with ``--method``.
Duplicate groups go to stdout as JSON lines; progress and a summary go to stderr.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from grist.api import Extractor
from grist.cli.values import COUNT, SIMILARITY, output_file, whole
from grist.dedup.documents import MinHashConfig, MinHashGroups
from grist.dedup.groups import DuplicateGroups
from grist.dedup.index import DEFAULT_K, FingerprintIndex
from grist.dedup.stage import FINGERPRINTS
from grist.errors import DatasetError, GristError
from grist.io.sources import (
    Skipped,
    Unreadable,
    expand,
    is_json_lines,
    json_records,
    record_page,
)
from grist.io.sinks import counted, name_skipped
from grist.methods import DEFAULT_METHOD
from grist.progress import progress
from grist.render.json_output import dumps
from grist.result import Result

Item = tuple[str, list[str]]  # document key, its texts (the whole text, or its content blocks)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``dedup`` subcommand."""
    parser = subparsers.add_parser(
        "dedup",
        help="find near-duplicate documents or blocks (folder, JSON lines, stdin)",
        description="Report groups of near-duplicate documents or content blocks.",
    )
    parser.add_argument("inputs", nargs="+", metavar="FOLDER|FILE.jsonl[.gz]|-")
    parser.add_argument("--level", choices=("document", "block"), default="document",
                        help="compare whole documents or their content blocks (default: "
                        "%(default)s)")
    parser.add_argument("--fingerprint", choices=("minhash", *FINGERPRINTS),
                        help="minhash (MinHash-LSH over word shingles; default for documents), "
                        "simhash or modified_simhash (seed 001; default for blocks)")
    parser.add_argument("-k", type=whole(0, 63),
                        help="simhash: max differing bits of near-duplicates (default "
                        f"{DEFAULT_K}, or the --index file's)")
    parser.add_argument("--threshold", type=SIMILARITY, default=MinHashConfig.threshold,
                        help="minhash: Jaccard similarity of near-duplicates "
                        f"(default {MinHashConfig.threshold})")
    parser.add_argument("--shingle", type=COUNT,
                        help=f"minhash: words per shingle (default {MinHashConfig.shingle}, or the "
                        "--index file's, which cannot change)")
    parser.add_argument("--method", default=DEFAULT_METHOD, help="extraction method for raw HTML")
    parser.add_argument("--min-words", type=whole(0), default=5, help="ignore shorter texts")
    parser.add_argument("--index", type=Path, metavar="FILE", help="load this index first (a rolling index, "
                        "--save-index to the same FILE, starts empty when FILE is missing)")
    parser.add_argument("--save-index", type=output_file, metavar="FILE",
                        help="write the index here")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    parser.set_defaults(func=run)


def _record_texts(label: str, record: dict, level: str, extractor: Extractor) -> list[str]:
    """The texts of one JSON record at the requested level (its page read as ``grist extract``
    reads a JSON-lines record)."""
    if "blocks" in record and level == "block":
        texts = [b.get("text", "") for b in record["blocks"] if b.get("label") == "content"]
    elif "text" in record and "html" not in record:
        text = record["text"]
        texts = [text] if level == "document" or not isinstance(text, str) else text.split("\n\n")
    else:
        page = record_page(label, record)
        if isinstance(page, Unreadable):
            raise page.error
        return _texts(extractor(page), level)
    if not all(isinstance(text, str) for text in texts):
        raise DatasetError("a 'text' that is not a string")
    return texts


def _texts(result: Result, level: str) -> list[str]:
    return [result.text] if level == "document" else [b.text for b in result.content_blocks]


def _items(source: str, level: str, extractor: Extractor, errors: list[str],
           others: list[Skipped]) -> Iterator[Item]:
    """(key, texts) for every page of one input; a page that fails is logged and skipped."""
    if source == "-" or is_json_lines(source):
        for label, record in json_records(source):
            try:
                if isinstance(record, GristError):
                    raise record
                key = record.get("id") or record.get("input") or record.get("url") or label
                yield str(key), _record_texts(label, record, level, extractor)
            except (GristError, AttributeError) as exc:
                errors.append(f"{label}: {exc}")
        return
    sources, _ = expand([source])
    for page_source in sources:
        for page in page_source.pages(extractor.limits):
            if isinstance(page, Skipped):
                others.append(page)
                continue
            try:
                if isinstance(page, Unreadable):
                    raise page.error
                yield page.input, _texts(extractor(page), level)
            except GristError as exc:
                errors.append(f"{page.input}: {exc}")


def _finder(args: argparse.Namespace) -> tuple[DuplicateGroups | MinHashGroups, Any]:
    """The duplicate finder the options ask for (or the --index file holds), and its index
    (keys, size, save)."""
    if args.index and (args.index.exists() or args.index != args.save_index):
        return _loaded_finder(args)  # (a rolling index, --index F --save-index F, starts empty)
    fingerprint = args.fingerprint or ("minhash" if args.level == "document" else
                                       "modified_simhash")
    if fingerprint == "minhash":
        shingle = MinHashConfig.shingle if args.shingle is None else args.shingle
        groups = MinHashGroups(MinHashConfig(shingle=shingle, threshold=args.threshold),
                               args.level)
        return groups, groups
    index = FingerprintIndex(DEFAULT_K if args.k is None else args.k, fingerprint, args.level)
    return DuplicateGroups(index, FINGERPRINTS[fingerprint]), index


def _loaded_finder(args: argparse.Namespace) -> tuple[DuplicateGroups | MinHashGroups, Any]:
    """The finder of the --index file, after checking that the options ask for what it holds
    (its texts will be compared with the new ones)."""
    if MinHashGroups.is_index(args.index):
        groups = MinHashGroups.load(args.index, args.threshold)
        _check_agrees(args, "minhash", groups.level)
        shingle = groups.config.shingle
        if args.shingle not in (None, shingle):
            raise GristError(f"{args.index} holds shingles of {shingle} words: leave out --shingle "
                             f"(or give --shingle {shingle}) to use it")
        groups.level = args.level
        return groups, groups
    index = FingerprintIndex.load(args.index, args.k)
    stored = index.fingerprint or "modified_simhash"  # older files do not say: the default
    _check_agrees(args, stored, index.level)
    index.level = args.level
    return DuplicateGroups(index, FINGERPRINTS[stored]), index


def _check_agrees(args: argparse.Namespace, fingerprint: str, level: str | None) -> None:
    """GristError when --fingerprint or --level asks for other than the --index file holds
    (``level`` None: a file written before the level was saved, not checked)."""
    if args.fingerprint not in (None, fingerprint):
        raise GristError(f"{args.index} holds {fingerprint} fingerprints: leave out --fingerprint "
                         "to use it as it is")
    if level not in (None, args.level):
        raise GristError(f"{args.index} is an index of {level}s (saved with --level {level}): give "
                         f"--level {level} to compare {level}s with it, or another index to "
                         f"compare {args.level}s")


def run(args: argparse.Namespace) -> int:
    """Fingerprint every document or block, report the duplicate groups, save the index."""
    finder, index = _finder(args)
    extractor = Extractor(method=args.method)
    errors: list[str] = []
    others: list[Skipped] = []  # files of a folder that are not HTML pages
    texts = short = pages = 0
    bar = progress(quiet=args.quiet, desc="dedup", unit="page")
    for source in args.inputs:
        for key, parts in _items(source, args.level, extractor, errors, others):
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
        try:
            index.save(args.save_index)
        except OSError as exc:
            raise GristError(f"cannot write the index {args.save_index}: "
                             f"{exc.strerror or exc}") from None
    for message in errors:
        print(f"grist: skipped {message}", file=sys.stderr)
    name_skipped(others, args.quiet)
    duplicates = sum(len(g) - 1 for g in groups)
    other_files = f", {counted(len(others), 'other file')} skipped" if others else ""
    print(f"grist dedup: {counted(pages, 'page')} read, {counted(texts, args.level)} fingerprinted "
          f"({short} under --min-words {args.min_words} left out), "
          f"{counted(duplicates, 'near-duplicate')} in {counted(len(groups), 'group')}, "
          f"{counted(len(errors), 'skipped input')}{other_files}, index of {len(index)}",
          file=sys.stderr)
    return 0
