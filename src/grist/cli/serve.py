"""``grist serve``: the extraction service and the block inspector over HTTP (extra ``service``)."""

from __future__ import annotations

import argparse
import errno
import socket
import sys
from pathlib import Path
from typing import Any

from grist.cli.values import COUNT, SECONDS, number, whole
from grist.errors import GristError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``serve`` subcommand."""
    parser = subparsers.add_parser(
        "serve",
        help="run the HTTP extraction service and the block inspector",
        description="Serve POST /extract, GET /methods, /health, /metrics, the inspector at "
        "/inspect and the OpenAPI description at /openapi.json (see docs/service.md).",
    )
    add_service_options(parser)
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default: 127.0.0.1; 0.0.0.0 for all)")
    parser.add_argument("--port", type=whole(0, 65535), default=8080, help="port (default: 8080)")
    parser.add_argument("--sites-dir", type=Path, metavar="DIR",
                        help="folder of site models: enables site= and POST /sites/NAME/update")
    parser.add_argument("--site-model", default="grist.sites:SiteModel", metavar="MODULE:CLASS",
                        help="the site model class (default: %(default)s)")
    parser.add_argument("--log-level", default="info",
                        choices=("critical", "error", "warning", "info", "debug"),
                        help="the server's log level (default: %(default)s)")
    parser.set_defaults(func=run)


def add_service_options(parser: argparse.ArgumentParser, workers: str = "one per core") -> None:
    """The caps and pool options shared by ``serve`` and ``inspect`` (``workers``: what the
    command starts without ``--workers``)."""
    from grist.service.settings import MiB, ServiceSettings

    defaults = ServiceSettings(workers=1)
    parser.add_argument("--workers", type=COUNT, default=None, metavar="N",
                        help=f"extraction processes (default: {workers})")
    parser.add_argument("--max-in-flight", type=COUNT, default=defaults.max_in_flight, metavar="N",
                        help="pages handled at once; more get 503 (default: %(default)s)")
    parser.add_argument("--max-body-mib", type=number(0, above=True), default=defaults.max_body / MiB,
                        metavar="MIB", help="largest request body or fetched page "
                        "(default: %(default)g)")
    parser.add_argument("--time-budget", type=SECONDS, default=defaults.time_budget,
                        metavar="SECONDS", help="time one request may take, fetch included; "
                        "504 beyond (default: %(default)g)")
    parser.add_argument("--fetch-timeout", type=SECONDS, default=defaults.fetch_timeout,
                        metavar="SECONDS",
                        help="time a URL download may take (default: %(default)g)")
    parser.add_argument("--allow-network", action="append", default=[], metavar="CIDR",
                        help="let URL fetching reach this network although it is private "
                             "(repeatable; e.g. 10.1.0.0/16)")
    parser.add_argument("--worker-max-jobs", type=whole(0), default=defaults.worker_max_jobs,
                        metavar="N", help="replace a worker after N jobs (0: never; default: "
                        "%(default)s)")


def settings_from(args: argparse.Namespace, **overrides: object):
    """ServiceSettings from the parsed options."""
    from grist.service.guard import AddressGuard, parse_networks
    from grist.service.settings import MiB, ServiceSettings

    try:
        guard = AddressGuard(allow=parse_networks(args.allow_network))
    except ValueError as exc:
        raise GristError(f"--allow-network: {exc}") from None
    options = {"max_in_flight": args.max_in_flight, "max_body": int(args.max_body_mib * MiB),
               "time_budget": args.time_budget, "fetch_timeout": args.fetch_timeout,
               "guard": guard, "worker_max_jobs": args.worker_max_jobs, **overrides}
    if args.workers is not None:
        options["workers"] = args.workers
    try:
        return ServiceSettings(**options)
    except ValueError as exc:
        raise GristError(str(exc)) from None


# Why a port cannot be listened on, in the user's terms, by errno.
_BIND_HINTS = {
    errno.EADDRINUSE: "another program listens there: choose another --port",
    errno.EADDRNOTAVAIL: "not an address of this machine",
    errno.EACCES: "ports below 1024 need privileges: choose another --port",
}


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (port 0: a free one), before anything starts; a
    GristError saying why not (the port taken, an address not this machine's, a name that
    does not resolve) instead of a server that announces itself and then fails."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except socket.gaierror as exc:
        raise GristError(f"cannot listen on {host}: the name does not resolve "
                         f"({exc.strerror})") from None
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        hint = _BIND_HINTS.get(exc.errno or 0)
        raise GristError(f"cannot listen on {host}:{port}: {exc.strerror or exc}"
                         + (f" ({hint})" if hint else "")) from None
    return sock


def serve(server: Any, sock: socket.socket) -> int:
    """Run the uvicorn ``server`` on ``sock`` until it is stopped (Ctrl-C: status 0, the normal
    way to stop it); 1 when it could not start (the app's start-up failed)."""
    with sock:
        try:
            server.run(sockets=[sock])
        except KeyboardInterrupt:  # (uvicorn raises the signal again once it has shut down)
            pass
    return 0 if server.started else 1


def run(args: argparse.Namespace) -> int:
    from grist.optional import require

    uvicorn = require("uvicorn", "service", "grist serve")

    from grist.service import create_app

    settings = settings_from(args, sites_dir=args.sites_dir, site_model=args.site_model)
    sock = listening_socket(args.host, args.port)
    base = f"http://{args.host}:{sock.getsockname()[1]}"
    app = create_app(settings)
    print(f"grist: serving on {base} ({settings.workers} workers); inspector at {base}/inspect",
          file=sys.stderr)
    return serve(uvicorn.Server(uvicorn.Config(app, log_level=args.log_level,
                                               timeout_graceful_shutdown=5)), sock)
