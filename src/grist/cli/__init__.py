"""The ``grist`` command. Each subcommand lives in its own module with a ``register`` function."""

from __future__ import annotations

import argparse
import codecs
import difflib
import errno
import importlib
import importlib.util
import io
import sys

from grist import __version__
from grist.errors import GristError

# Subcommands and their modules, in the order ``grist --help`` lists them.
_SUBCOMMANDS = {
    "extract": "grist.cli.extract",
    "eval": "grist.cli.evaluate",
    "bench": "grist.cli.bench",
    "train": "grist.cli.train",
    "dedup": "grist.cli.dedup",
    "serve": "grist.cli.serve",
    "inspect": "grist.cli.inspect",
    "batch": "grist.cli.batch",
    "stream": "grist.cli.stream",
    "templates": "grist.cli.templates",
}
_OUTPUT_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)  # a full disk under stdout


def version() -> str:
    """What ``grist --version`` prints: the version, and whether pages are segmented, ``auto``'s
    trees walked and pages scanned by the compiled extensions (an install without a C compiler
    falls back to Python, NumPy and regexes: same results, slower)."""
    from grist.classify.forest import compiled_walk
    from grist.html.structure import compiled_scans
    from grist.segment.blocks import compiled_segmenter

    segmenter = "compiled segmenter" if compiled_segmenter() else (
        "Python segmenter: built without a C compiler, every method runs slower")
    walk = "compiled tree walk" if compiled_walk() else (
        "NumPy tree walk: built without a C compiler, auto runs about 15% slower")
    scans = "compiled page scans" if compiled_scans() else (
        "regex page scans: built without a C compiler, large pages take longer")
    return f"grist {__version__} ({segmenter}; {walk}; {scans})"


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser of ``grist``. When ``argv`` names a subcommand only its module is imported:
    a subcommand's module imports what it runs (the model, the HTTP client, the cluster code),
    and loading all of them made every call, ``grist extract`` on one page included, wait for
    the others'."""
    parser = argparse.ArgumentParser(
        prog="grist", description="Extract the main content of web pages."
    )
    parser.add_argument("--version", action="version", version=version())
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _commands_to_load(sys.argv[1:] if argv is None else argv):
        module_name = _SUBCOMMANDS[name]
        if importlib.util.find_spec(module_name) is not None:
            importlib.import_module(module_name).register(subparsers)
    for command in subparsers.choices.values():  # (its errors are said with its own usage)
        command.set_defaults(command_parser=command)
    return parser


def _unrecognized(parser: argparse.ArgumentParser, extra: list[str]) -> str:
    """The usage error for arguments a (sub)command does not take, naming the options closest
    to a mistyped one (``--format`` where ``batch`` takes ``--output-format``)."""
    message = f"unrecognized arguments: {' '.join(extra)}"
    options = [o for action in parser._actions for o in action.option_strings]
    for word in extra:
        name = word.split("=", 1)[0]
        if name.startswith("--"):
            close = difflib.get_close_matches(name, options, n=3, cutoff=0.75)
            if len(name) > 5:  # an option that holds the word: --format in --output-format
                close += [o for o in options if name[2:] in o and o not in close]
            if close:
                message += f" ({name}: did you mean {' or '.join(close[:3])}?)"
    return message


def _commands_to_load(argv: list[str]) -> tuple[str, ...]:
    """The subcommands whose modules ``argv`` needs: the one it names; none for ``--version``;
    all for ``grist --help`` and when it names none or an unknown one, so that help and the
    "invalid choice" error list them all."""
    for word in argv:
        if word == "--version":
            return ()
        if word in ("-h", "--help"):
            return tuple(_SUBCOMMANDS)
        if not word.startswith("-"):
            return (word,) if word in _SUBCOMMANDS else tuple(_SUBCOMMANDS)
    return tuple(_SUBCOMMANDS)


def _utf8_stdout() -> None:
    """Make stdout write UTF-8 whatever the locale: grist's outputs are UTF-8 (docs/usage.md).
    (Messages need nothing: Python's stderr escapes what its encoding lacks, ``\\xe9``.)"""
    stdout = sys.stdout
    if isinstance(stdout, io.TextIOWrapper) and codecs.lookup(stdout.encoding).name != "utf-8":
        stdout.reconfigure(encoding="utf-8", errors=stdout.errors)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 a page failed, 2 usage error)."""
    _utf8_stdout()
    parser = build_parser(argv)
    args, extra = parser.parse_known_args(argv)
    if extra:
        command = getattr(args, "command_parser", None) or parser
        command.error(_unrecognized(command, extra))
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
    except OSError as exc:
        if exc.errno not in _OUTPUT_FULL:
            raise
        print(f"grist: error: cannot write the output: {exc.strerror}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
