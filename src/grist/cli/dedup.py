"""``grist dedup``: near-duplicate documents or blocks across a folder, a JSON-lines file or a
stream of ``grist extract --format json`` records, with a persistent fingerprint index.

Inputs (read with ``grist.io.sources``, as ``grist extract`` reads them): pages (files, folders
searched recursively, URLs), a ``.jsonl``/``.jsonl.gz`` file, a ``.warc``/``.warc.gz`` file (its
pages), or ``-`` for stdin: JSON lines when it starts with ``{`` (gzip-compressed or not), else
one page. A record with ``blocks``
(``grist extract --format json``) or ``text`` is used as extracted; a record with ``html`` (a
dataset file) is extracted first with ``--method``; an error record (``input``, ``error``,
``reason``) is that input's failure. Duplicate groups go to stdout as JSON lines; progress, the
failures and a summary go to stderr; the exit status is 1 if any input failed.
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
from grist.features.tokens import tokens
from grist.io.sinks import Summary, counted, message_of, name_skipped, reason_of
from grist.io.sources import Skipped, Source, Unreadable, expand, json_records, record_page
from grist.methods import DEFAULT_METHOD
from grist.progress import progress
from grist.render.json_output import dumps
from grist.result import Result

Item = tuple[str, list[str]]  # document key, its texts (the whole text, or its content blocks)
Failures = list[tuple[str, GristError]]  # input (or record) that failed, and why
Finder = DuplicateGroups | MinHashGroups


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``dedup`` subcommand."""
    parser = subparsers.add_parser(
        "dedup",
        help="find near-duplicate documents or blocks (folder, JSON lines, WARC, stdin)",
        description="Report groups of near-duplicate documents or content blocks. The exit "
        "status is 1 if any input failed (a folder's files that are not pages are skipped).",
    )
    parser.add_argument("inputs", nargs="+", metavar="FOLDER|FILE.jsonl[.gz]|-",
                        help="pages, folders, URLs, JSON-lines or WARC files, or - for stdin (JSON lines "
                        "when it starts with {, else one page)")
    parser.add_argument("--level", choices=("document", "block"), default="document",
                        help="compare whole documents or their content blocks (default: "
                        "%(default)s)")
    parser.add_argument("--fingerprint", choices=("minhash", *FINGERPRINTS),
                        help="minhash (MinHash-LSH over word shingles; default for documents), "
                        "simhash or modified_simhash (seed 001; default for blocks)")
    parser.add_argument("-k", type=whole(0, 63),
                        help="simhash and modified_simhash only: max differing bits of "
                        f"near-duplicates (default {DEFAULT_K}, or the --index file's)")
    parser.add_argument("--threshold", type=SIMILARITY,
                        help="minhash only: Jaccard similarity of near-duplicates (default "
                        f"{MinHashConfig.threshold}, or the --index file's)")
    parser.add_argument("--shingle", type=COUNT,
                        help=f"minhash only: words per shingle (default {MinHashConfig.shingle}, "
                        "or the --index file's, which cannot change)")
    parser.add_argument("--method", default=DEFAULT_METHOD, help="extraction method for raw HTML")
    parser.add_argument("--min-words", type=whole(0), default=5,
                        help="leave out texts of fewer words (default: %(default)s)")
    parser.add_argument("--index", type=_index_to_read, metavar="FILE",
                        help="load this index first (a rolling index, --save-index to the same "
                        "FILE, starts empty when FILE is missing; a key it holds is not added "
                        "again: its first text is kept)")
    parser.add_argument("--save-index", type=output_file, metavar="FILE",
                        help="write the index here (replaced whole, never left half-written)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    parser.set_defaults(func=run)


def _index_to_read(text: str) -> Path:
    """The --index file: ``-`` is refused (stdin holds the inputs, an index is a file)."""
    if text == "-":
        raise argparse.ArgumentTypeError("- (stdin) is for the inputs: name the index file")
    return Path(text)


def _record_texts(label: str, record: dict, level: str, extractor: Extractor) -> list[str]:
    """The texts of one JSON record at the requested level (its page read as ``grist extract``
    reads a JSON-lines record)."""
    if "blocks" in record and level == "block":
        blocks = record["blocks"]
        if not isinstance(blocks, list) or not all(isinstance(b, dict) for b in blocks):
            raise DatasetError("a 'blocks' that is not a list of objects")
        texts = [b.get("text", "") for b in blocks if b.get("label") == "content"]
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


def _record_error(label: str, record: dict) -> tuple[str, GristError] | None:
    """The input and error of an error record (``grist extract --format json``'s for a page that
    failed: ``input``, ``error``, ``reason``, no text); None for any other record."""
    message = record.get("error")
    if not isinstance(message, str) or any(f in record for f in ("text", "blocks", "html")):
        return None
    error = GristError(message)
    error.reason = record["reason"] if isinstance(record.get("reason"), str) else error.reason
    name = record.get("input")
    return (name if isinstance(name, str) and name else label), error


def _record_items(location: str, level: str, extractor: Extractor,
                  failed: Failures) -> Iterator[Item]:
    """(key, texts) for every record of a JSON-lines file (``-``: stdin); a record that fails, or
    that is an error record, goes to ``failed``."""
    for label, record in json_records(location):
        try:
            if isinstance(record, GristError):
                raise record
            if (error := _record_error(label, record)) is not None:
                failed.append(error)
                continue
            key = record.get("id") or record.get("input") or record.get("url") or label
            texts = _record_texts(label, record, level, extractor)
        except GristError as exc:
            failed.append((label, exc))
            continue
        yield str(key), texts


def _page_items(source: Source, level: str, extractor: Extractor, failed: Failures,
                others: list[Skipped]) -> Iterator[Item]:
    """(key, texts) for the page(s) of a file, a folder's file, a URL or stdin; one that fails
    goes to ``failed``, a folder's file that is not a page to ``others`` (skipped, no failure)."""
    for page in source.pages(extractor.limits):
        if isinstance(page, Skipped):
            others.append(page)
            continue
        try:
            if isinstance(page, Unreadable):
                raise page.error
            texts = _texts(extractor(page), level)
        except GristError as exc:
            failed.append((page.input, exc))
            continue
        yield page.input, texts


def _items(sources: list[Source], level: str, extractor: Extractor, failed: Failures,
           others: list[Skipped]) -> Iterator[Item]:
    """(key, texts) for every page of the sources, read by their kind (``expand``)."""
    for source in sources:
        if source.kind == "jsonl":
            yield from _record_items(source.location, level, extractor, failed)
        else:
            yield from _page_items(source, level, extractor, failed, others)


def _given(args: argparse.Namespace, *names: str) -> dict[str, Any]:
    """The options among ``names`` the command line gives (the others keep their defaults)."""
    return {name: getattr(args, name) for name in names if getattr(args, name) is not None}


def _misapplied(args: argparse.Namespace, fingerprint: str, name: str) -> str | None:
    """What an option given for the other kind of fingerprint than ``fingerprint`` (called
    ``name`` here) would be: ignored (-k for MinHash, --threshold or --shingle for a simhash);
    None when none is."""
    if fingerprint == "minhash":
        given, kind, own = _given(args, "k"), "simhash and modified_simhash", "--threshold"
    else:
        given, kind, own = _given(args, "threshold", "shingle"), "minhash", "-k"
    if not given:
        return None
    option = "-k" if "k" in given else f"--{next(iter(given))}"
    return f"{option} applies to --fingerprint {kind} only, not to {name}, which takes {own}"


def _finder(args: argparse.Namespace) -> tuple[Finder, Any]:
    """The duplicate finder the options ask for (or the --index file holds), and its index
    (keys, size, save); an option that would not apply is a usage error."""
    loading = bool(args.index) and (args.index.exists() or args.index != args.save_index)
    fingerprint = args.fingerprint or ("minhash" if args.level == "document" else
                                       "modified_simhash")
    if args.fingerprint or not loading:  # (else the file says which: _check_agrees)
        name = args.fingerprint or f"{fingerprint} (the default for --level {args.level})"
        if misapplied := _misapplied(args, fingerprint, name):
            args.command_parser.error(misapplied)
    if loading:  # (a rolling index, --index F --save-index F, starts empty)
        return _loaded_finder(args)
    if fingerprint == "minhash":
        groups = MinHashGroups(MinHashConfig(**_given(args, "shingle", "threshold"),
                                             min_words=args.min_words), args.level)
        return groups, groups
    index = FingerprintIndex(**_given(args, "k"), fingerprint=fingerprint, level=args.level)
    return DuplicateGroups(index, FINGERPRINTS[fingerprint]), index


def _loaded_finder(args: argparse.Namespace) -> tuple[Finder, Any]:
    """The finder of the --index file, after checking that the options ask for what it holds
    (its texts will be compared with the new ones)."""
    if MinHashGroups.is_index(args.index):
        groups = MinHashGroups.load(args.index, args.threshold, args.min_words)
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
    """GristError when --fingerprint or --level asks for other than the --index file holds, or
    an option applies to another kind of fingerprint (``level`` None: a file written before
    the level was saved, not checked)."""
    if args.fingerprint not in (None, fingerprint):
        raise GristError(f"{args.index} holds {fingerprint} fingerprints: leave out --fingerprint "
                         "to use it as it is")
    if misapplied := _misapplied(args, fingerprint, fingerprint):
        raise GristError(f"{args.index} holds {fingerprint} fingerprints: {misapplied}")
    if level not in (None, args.level):
        raise GristError(f"{args.index} is an index of {level}s (saved with --level {level}): give "
                         f"--level {level} to compare {level}s with it, or another index to "
                         f"compare {args.level}s")


def _left_out(args: argparse.Namespace, short: int, finder: Finder) -> str:
    """The summary's clause on the texts not fingerprinted, and why."""
    reasons = [f"{short} under --min-words {args.min_words}"]
    if finder.repeated:
        reasons.append(f"{finder.repeated} already in the index")
    if finder.skipped:
        reasons.append(f"{finder.skipped} with nothing to fingerprint")
    return f"({', '.join(reasons)} left out)"


def _save(index: Any, path: Path) -> None:
    """Write the index (whole or not at all: the old file stays when it cannot be written)."""
    try:
        index.save(path)
    except OSError as exc:
        raise GristError(f"cannot write the index {path}: {exc.strerror or exc}") from None


def run(args: argparse.Namespace) -> int:
    """Fingerprint every document or block, report the duplicate groups, save the index;
    returns 1 if an input failed, else 0."""
    finder, index = _finder(args)
    sources, _ = expand(args.inputs)  # (a missing .jsonl file or an empty folder: before any work)
    extractor = Extractor(method=args.method)
    summary = Summary("dedup")
    failed: Failures = []
    others: list[Skipped] = []  # files of a folder that are not HTML pages
    texts = short = 0
    with progress(quiet=args.quiet, desc="dedup", unit="page") as bar:
        for key, parts in _items(sources, args.level, extractor, failed, others):
            bar.update()
            summary.results += 1
            for number, text in enumerate(parts):
                if len(tokens(text)) < args.min_words:
                    short += 1
                    continue
                texts += 1
                finder.add(key if args.level == "document" else f"{key}#{number}", text)
    groups = finder.groups()
    for number, members in enumerate(groups):
        print(dumps({
            "group": number,
            "size": len(members),
            "members": [{"key": index.key(i), "text": finder.previews.get(i)} for i in members],
        }))
    if args.save_index:
        _save(index, args.save_index)
    for label, exc in failed:
        summary.errors[reason_of(exc)] += 1
        print(f"grist: error: {label}: {message_of(exc)}", file=sys.stderr)
    summary.skipped_files = len(others)
    name_skipped(others, args.quiet)
    fingerprinted = texts - finder.repeated - finder.skipped
    summary.notes = [
        f"{counted(fingerprinted, args.level)} fingerprinted {_left_out(args, short, finder)}",
        f"{counted(sum(len(g) - 1 for g in groups), 'near-duplicate')} in "
        f"{counted(len(groups), 'group')}", f"index of {len(index)}"]
    print(summary.line(), file=sys.stderr)
    return 1 if summary.errors else 0
