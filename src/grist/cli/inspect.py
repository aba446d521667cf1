"""``grist inspect PAGE``: open a page (a file, a URL or ``-``) in the block inspector locally."""

from __future__ import annotations

import argparse
import json
import secrets
import shlex
import sys
import threading
import time
import webbrowser
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from grist.api import Extractor
from grist.cli.values import whole
from grist.document import RawPage
from grist.errors import GristError, LimitExceededError
from grist.html.load import load_document
from grist.io import is_url
from grist.io.sinks import counted
from grist.io.sources import PageOrError, Skipped, Source, Unreadable, expand
from grist.limits import Limits
from grist.methods import DEFAULT_METHOD

if TYPE_CHECKING:  # pragma: no cover
    import uvicorn


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``inspect`` subcommand."""
    from grist.cli.serve import add_service_options

    parser = subparsers.add_parser(
        "inspect",
        help="see why each block of a page was kept or dropped, in the browser",
        description="Start the service on 127.0.0.1 with PAGE loaded and open the inspector in "
        "the browser: the page with every block outlined, its role, score and reason. The method "
        "and the page are checked first: an unknown method, or a page the inspector cannot show "
        "(empty, not HTML, nested too deep, larger than --max-body-mib as the inspector sends "
        "it), is an error and no server starts.",
    )
    parser.add_argument("page", metavar="PATH|URL|-", help="the page to inspect (a JSON-lines "
                        "or WARC file: the one page it holds, or the one --record names)")
    parser.add_argument("--record", metavar="ID", default=None,
                        help="the page of a WARC or JSON-lines file to inspect: a WARC record's "
                        "WARC-Record-ID, byte offset or target URL; a JSON line's label "
                        "(FILE:LINE), line number, id or url")
    parser.add_argument("--method", default=None, help="method to show first (default: auto)")
    parser.add_argument("--url", default=None, help="the page's address, for a file or stdin")
    parser.add_argument("--port", type=whole(0, 65535), default=0, help="port (default: any free one)")
    parser.add_argument("--no-browser", action="store_true",
                        help="only print the inspector's address")
    add_service_options(parser, workers="1")
    parser.set_defaults(func=run)


ONE_PAGE = ("grist inspect shows one page: give a page's file or URL, its HTML on stdin, or a "
            "JSON-lines or WARC file that holds one page")


def _pages(source: Source) -> Iterator[PageOrError]:
    """The pages of a source: its one page, a JSON-lines file's lines, or a WARC file's pages
    (its error records left out: a 404 response is no page; the first one only when the file
    holds no page, to say why)."""
    error: Unreadable | None = None
    found = False
    for page in source.pages():
        if source.kind == "warc" and isinstance(page, Unreadable):
            error = error or page
            continue
        found = True
        yield page
    if error is not None and not found:
        yield error


def _read(page: str, record: str | None = None) -> RawPage:
    """The one page the user named: a page's file or URL (fetched here, without the service's
    address guard: the user asked for it on their own machine), stdin, a JSON-lines or WARC
    file that holds one page, or the page of one that ``record`` names (``_picked``);
    GristError for a folder, or for an input of no or several pages."""
    if page != "-" and not is_url(page) and Path(page).is_dir():
        raise GristError(f"{page} is a folder; {ONE_PAGE}")
    source = expand([page])[0][0]
    name = "stdin" if page == "-" else page
    if record is not None:
        return _picked(source, name, record)
    pages = _pages(source)
    first, second = next(pages, None), next(pages, None)
    if first is None:
        raise GristError(f"{name} holds no page")
    if second is not None:
        example = first if isinstance(first, RawPage) else second
        raise GristError(f"{name} holds several pages; {ONE_PAGE}, or name one of its pages "
                         f"with --record (e.g. --record {shlex.quote(example.input)})")
    return _page(first)


def _page(found: PageOrError) -> RawPage:
    """The page found, or the GristError saying why the record found is none."""
    if isinstance(found, Unreadable):
        raise GristError(f"{found.input}: {found.error}")
    if isinstance(found, Skipped):  # (a WARC record of another type, named by its offset)
        raise GristError(f"{found.input}: {found.reason}")
    return found


EXAMPLES = 3  # pages named when --record names none


def _picked(source: Source, name: str, record: str) -> RawPage:
    """The page of a WARC or JSON-lines file that ``record`` names (see ``_names``); a WARC
    record given by its byte offset is read there, without reading the records before it."""
    if source.kind not in ("warc", "jsonl"):
        raise GristError(f"--record applies to WARC and JSON-lines files; {name} is one page")
    by_offset = source.kind == "warc" and record.isascii() and record.isdigit()
    found = _at_offset(source, int(record)) if by_offset else None
    if found is None:
        found, count, examples = _scan(source, None if by_offset else record)
    if found is None:
        held = counted(count, "page") if count else "no page"
        more = ", ..." if count > len(examples) else ""
        listed = f", e.g. {', '.join(examples)}{more}" if examples else ""
        what = f"at offset {record}" if by_offset else record
        raise GristError(f"no record {what} in {name}; it holds {held}{listed}")
    return _page(found)


def _at_offset(source: Source, offset: int) -> PageOrError | None:
    """The record of a WARC file that starts at byte ``offset`` (as batch records' ``offset``
    gives it); None when no record starts there."""
    from grist.io.warc import WarcError, read_record

    try:
        item = read_record(source.location, offset)
    except WarcError:  # (past the end of the file)
        return None
    return item.entry() if item.record_type else None  # (none: bytes inside a record)


def _scan(source: Source, record: str | None) -> tuple[PageOrError | None, int, list[str]]:
    """The first page or error record of ``source`` that ``record`` names (a record named by
    its URL: its first page, else its first error record), and, when none is, how many pages
    the file holds and the names of the first ``EXAMPLES``. A WARC file that cannot be read at
    all is its error."""
    count, examples = 0, []
    by_url: PageOrError | None = None
    for entry in source.pages():
        if isinstance(entry, Skipped):  # (none: a WARC file's other records are left out)
            continue
        if (record is not None and record in _names(source, entry)) or entry.input == source.input:
            return entry, count, examples  # (a WARC file that cannot be read: its error)
        if record is not None and record == entry.url:
            if isinstance(entry, RawPage):
                return entry, count, examples
            by_url = by_url or entry
        if isinstance(entry, RawPage):
            count += 1
            if len(examples) < EXAMPLES:
                examples.append(entry.input)
    return by_url, count, examples


def _names(source: Source, entry: RawPage | Unreadable) -> tuple[str, ...]:
    """What ``--record`` may call a page or error record of ``source`` besides its URL: a WARC
    record's WARC-Record-ID with or without its angle brackets (or ``FILE@OFFSET`` for one
    without); a JSON line's label as grist names it (``FILE:LINE (id)``), ``FILE:LINE``, its
    line number and its ``id``."""
    if source.kind == "warc":
        return entry.input, entry.input.removeprefix("<").removesuffix(">")
    file = "<stdin>" if source.location == "-" else source.location
    line, _, named = entry.input.removeprefix(f"{file}:").partition(" (")
    return (entry.input, f"{file}:{line}", line) + ((named[:-1],) if named else ())


def _shown(page: RawPage, url: str | None, extractor: Extractor, max_body: int) -> str:
    """The page's HTML, decoded once for the preload, after checking that the inspector can show
    it: its request (the page as JSON) within the service's body cap, and an extraction that
    succeeds; an empty, binary, too deeply nested or too large page is said here, not in the
    browser of a server started for nothing."""
    try:
        html = load_document(page.content, url, http_charset=page.http_charset,
                             limits=extractor.limits).html
        _check_request_size(html, url, extractor.method, max_body)
        extractor(html, url)
    except GristError as exc:
        raise GristError(f"{page.input}: {exc}") from None
    return html


def _check_request_size(html: str, url: str | None, method: str, max_body: int) -> None:
    """Refuse a page whose inspector request (the JSON its script posts) passes ``max_body``:
    the service would answer it with 413."""
    request = json.dumps({"method": method, "view": True, "remote": True, "html": html,
                          "url": url}, ensure_ascii=False, separators=(",", ":"))
    size = len(request.encode())
    if size > max_body:
        raise LimitExceededError(f"the page is {size:,} bytes as the inspector sends it, more "
                                 f"than the {max_body:,} a request may hold (--max-body-mib "
                                 f"{max_body / 1048576:.3g})")


def run(args: argparse.Namespace) -> int:
    """Check the method and the page, then serve the inspector with the page loaded until
    Ctrl-C."""
    from grist.optional import require

    uvicorn = require("uvicorn", "service", "grist inspect")

    from grist.cli.serve import listening_socket, serve, settings_from
    from grist.service import create_app
    from grist.service.app import Page

    settings = settings_from(args, workers=args.workers or 1)
    extractor = Extractor(method=args.method or DEFAULT_METHOD,
                          limits=Limits(time_budget=settings.time_budget))
    page = _read(args.page, args.record)
    url = args.url or page.url
    token = secrets.token_urlsafe(12)
    app = create_app(settings, preload={token: Page(_shown(page, url, extractor,
                                                           settings.max_body), url)})
    sock = listening_socket("127.0.0.1", args.port or 0)
    address = f"http://127.0.0.1:{sock.getsockname()[1]}/inspect?preload={token}"
    if args.method:
        address += f"&method={quote(args.method)}"
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))

    def announce() -> None:
        print(f"grist: inspector at {address} (Ctrl-C to stop)", file=sys.stderr, flush=True)
        if not args.no_browser:
            webbrowser.open(address)

    threading.Thread(target=_when_started, args=(server, announce), daemon=True).start()
    return serve(server, sock)


def _when_started(server: uvicorn.Server, then: Callable[[], None]) -> None:
    """Call ``then`` once the uvicorn ``server`` listens (from a side thread)."""
    while not server.started and not server.should_exit:
        time.sleep(0.05)
    if server.started:
        then()
