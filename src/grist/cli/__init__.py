"""The ``grist`` command. Each subcommand lives in its own module with a ``register`` function."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys

from grist import __version__
from grist.errors import GristError

# Subcommand modules, in the order ``grist --help`` lists them.
_SUBCOMMANDS = (
    "grist.cli.extract",
    "grist.cli.evaluate",
    "grist.cli.bench",
    "grist.cli.train",
    "grist.cli.dedup",
    "grist.cli.serve",
    "grist.cli.inspect",
    "grist.cli.batch",
    "grist.cli.stream",
    "grist.cli.templates",
)


def version() -> str:
    """What ``grist --version`` prints: the version, and whether ``auto``'s trees are walked and
    pages scanned by the compiled extensions (an install without a C compiler falls back to
    NumPy and regexes: same results, slower)."""
    from grist.classify.forest import compiled_walk
    from grist.html.structure import compiled_scans

    walk = "compiled tree walk" if compiled_walk() else (
        "NumPy tree walk: built without a C compiler, auto runs about 15% slower")
    scans = "compiled page scans" if compiled_scans() else (
        "regex page scans: built without a C compiler, large pages take longer")
    return f"grist {__version__} ({walk}; {scans})"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="grist", description="Extract the main content of web pages."
    )
    parser.add_argument("--version", action="version", version=version())
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in _SUBCOMMANDS:
        if importlib.util.find_spec(module_name) is not None:
            importlib.import_module(module_name).register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 a page failed, 2 usage error)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args) or 0)
    except GristError as exc:
        print(f"grist: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("grist: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
