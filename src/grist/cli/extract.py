"""``grist extract``: the main content of pages given as files, folders, URLs or stdin.

One input prints its result (or one ``grist: error:`` line and exit status 1). Several inputs or a
folder form a batch: a progress bar on stderr, one error record per failing page while the batch
goes on, and exit status 1 if any page failed.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from tqdm import tqdm

from grist.api import Extractor
from grist.progress import progress
from grist.errors import GristError, LimitExceededError
from grist.limits import Limits
from grist.methods import DEFAULT_METHOD, available_methods, method_config
from grist.render.json_output import dumps, result_dict
from grist.render import FORMATS
from grist.result import Result
from grist.io.fetch import fetch, is_url

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class Source:
    """One page to extract: how to show it (``label``), its output file name (``name``) and where
    to read it: a file ``path``, a ``url``, or stdin when both are None."""

    label: str
    name: str
    path: Path | None = None
    url: str | None = None


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``extract`` subcommand."""
    parser = subparsers.add_parser(
        "extract",
        help="extract the main content of pages (files, folders, URLs or - for stdin)",
        description="Extract the main content of web pages. A folder is searched recursively "
        "for *.htm* files; several inputs are processed as a batch.",
    )
    parser.add_argument("inputs", nargs="+", metavar="PATH|URL|-", help="pages to extract")
    parser.add_argument(
        "--method",
        default=DEFAULT_METHOD,
        help=f"extraction method: {', '.join(available_methods())} (default: {DEFAULT_METHOD})",
    )
    parser.add_argument(
        "--format", default="text", choices=tuple(FORMATS), help="output format (default: text)"
    )
    parser.add_argument(
        "--out", type=Path, metavar="DIR", help="write one file per page into DIR instead"
    )
    parser.add_argument(
        "--model", metavar="FILE", help="a model trained with `grist train` (methods auto, tree)"
    )
    parser.add_argument(
        "--time-budget",
        type=float,
        default=Limits.time_budget,
        metavar="SECONDS",
        help=f"time allowed per page (default: {Limits.time_budget:g})",
    )
    parser.add_argument(
        "--quiet", action="store_true", help="no progress bar and no notes (errors are shown)"
    )
    parser.set_defaults(func=run)


def _url_name(url: str) -> str:
    return _UNSAFE.sub("_", url.split("://", 1)[-1]).strip("_") or "page"


def expand(inputs: list[str]) -> tuple[list[Source], bool]:
    """The pages the inputs name, and whether they form a batch (a folder or several inputs)."""
    sources: list[Source] = []
    batch = len(inputs) > 1
    for item in inputs:
        if item == "-":
            sources.append(Source("<stdin>", "stdin"))
        elif is_url(item):
            sources.append(Source(item, _url_name(item), url=item))
        elif Path(item).is_dir():
            batch = True
            root = Path(item)
            files = sorted(p for p in root.rglob("*.htm*") if p.is_file())
            if not files:
                raise GristError(f"{item}: no *.htm* files in this folder")
            for path in files:
                name = str(path.relative_to(root).with_suffix(""))
                sources.append(Source(str(path), name, path))
        else:
            sources.append(Source(item, Path(item).stem or "page", Path(item)))
    return sources, batch


def _too_large(limits: Limits) -> LimitExceededError:
    return LimitExceededError(
        f"the page is larger than {limits.max_bytes / 1048576:.1f} MiB (Limits.max_bytes)"
    )


def _read(source: Source, limits: Limits) -> bytes:
    """The page's bytes from a file or stdin, refusing more than the size cap before reading it."""
    try:
        if source.path is None:
            data = sys.stdin.buffer.read(limits.max_bytes + 1)
        elif source.path.stat().st_size > limits.max_bytes:
            raise _too_large(limits)
        else:
            data = source.path.read_bytes()
    except OSError as exc:
        raise GristError(exc.strerror or str(exc)) from None
    if len(data) > limits.max_bytes:
        raise _too_large(limits)
    return data


def extract_source(source: Source, extractor: Extractor) -> Result:
    """Fetch or read one source and extract it."""
    if source.url is not None:
        page = fetch(source.url)
        return extractor(page.content, page.url, http_charset=page.charset)
    return extractor(_read(source, extractor.limits), None)


def _render(result: Result, fmt: str, source: Source, json_lines: bool) -> str:
    if fmt == "json" and json_lines:
        return dumps({"source": source.label, **result_dict(result)})
    return result.render(fmt)


class _Output:
    """Where results and error records go: stdout (past the progress bar) or one file per page."""

    def __init__(self, args: argparse.Namespace, batch: bool, bar: tqdm) -> None:
        self.fmt: str = args.format
        self.out: Path | None = args.out
        self.batch = batch
        self.quiet: bool = args.quiet
        self.bar = bar
        self.used: set[str] = set()
        self.printed = 0

    def _write(self, text: str, stream: TextIO) -> None:
        self.bar.write(text, file=stream)
        stream.flush()

    def result(self, source: Source, result: Result) -> None:
        json_lines = self.batch and self.out is None
        text = _render(result, self.fmt, source, json_lines)
        if self.out is not None:
            self._file(source).write_text(text + "\n", encoding="utf-8")
        elif self.batch and self.fmt != "json":
            gap = "\n" if self.printed else ""
            self._write(f"{gap}==> {source.label} <==\n{text}", sys.stdout)
        elif text:
            self._write(text, sys.stdout)
        self.printed += 1
        if self.quiet:
            return
        if result.empty_reason:
            note = f"grist: note: {source.label}: nothing extracted: {result.empty_reason}"
            self._write(note, sys.stderr)
        for warning in result.warnings:
            self._write(f"grist: note: {source.label}: {warning}", sys.stderr)

    def error(self, source: Source, exc: Exception) -> None:
        reason = getattr(exc, "reason", "internal-error")
        message = str(exc) if isinstance(exc, GristError) else f"{type(exc).__name__}: {exc}"
        if self.fmt == "json" and self.out is None:
            record = {"source": source.label, "error": message, "reason": reason}
            self._write(dumps(record), sys.stdout)
        self._write(f"grist: error: {source.label}: {message}", sys.stderr)

    def _file(self, source: Source) -> Path:
        assert self.out is not None
        stem, n = source.name, 1
        while stem in self.used:
            n += 1
            stem = f"{source.name}-{n}"
        self.used.add(stem)
        path = self.out / (stem + FORMATS[self.fmt].suffix)
        path.parent.mkdir(parents=True, exist_ok=True)
        return path


def run(args: argparse.Namespace) -> int:
    """Extract every input; returns 1 if a page failed, else 0."""
    extractor = Extractor(
        method=args.method,
        config=method_config(args.method, args.model),
        limits=Limits(time_budget=args.time_budget),
    )
    sources, batch = expand(args.inputs)
    if args.out is not None:
        try:
            args.out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise GristError(f"cannot create {args.out}: {exc.strerror or exc}") from None
    if not batch:
        try:
            result = extract_source(sources[0], extractor)
        except GristError as exc:
            print(f"grist: error: {sources[0].label}: {exc}", file=sys.stderr)
            return 1
        _Output(args, batch, tqdm(disable=True)).result(sources[0], result)
        return 0
    failed = 0
    with progress(total=len(sources), unit="page", quiet=args.quiet) as bar:
        output = _Output(args, batch, bar)
        for source in sources:
            try:
                result = extract_source(source, extractor)
            except Exception as exc:  # noqa: BLE001 - one bad page never stops a batch
                failed += 1
                output.error(source, exc)
            else:
                output.result(source, result)
            bar.update()
    return 1 if failed else 0
