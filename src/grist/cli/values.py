"""Argument types: a value the option cannot use is refused by argparse with the option's name
(``argument -j/--jobs: must be 1 or more, not 0``) instead of hanging (no host slot), dividing by
zero, silently matching nothing, or failing after the work (an output file in no folder)."""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable
from pathlib import Path

from grist.errors import GristError
from grist.io.atomic import regular_target, temporary_beside


def whole(low: int, high: int | None = None) -> Callable[[str], int]:
    """An integer from ``low`` (to ``high``)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        _check(value, text, low, high, above=False)
        return value

    return parse


def number(low: float, *, above: bool = False, high: float | None = None) -> Callable[[str], float]:
    """A number from ``low`` (more than ``low`` when ``above``; to ``high``); ``inf`` is one."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if math.isnan(value):
            raise argparse.ArgumentTypeError(f"not a number: {text!r}")
        _check(value, text, low, high, above)
        return value

    return parse


def _check(value: float, text: str, low: float, high: float | None, above: bool) -> None:
    if value < low or (above and value == low) or (high is not None and value > high):
        start = f"more than {low:g}" if above else f"{low:g} or more"
        span = start if high is None else f"{start} and at most {high:g}"
        raise argparse.ArgumentTypeError(f"must be {span}, not {text}")


COUNT = whole(1)  # how many of something there must be at least one of
SECONDS = number(0, above=True)  # a time limit (inf: none)
SIMILARITY = number(0, above=True, high=1)  # a Jaccard similarity that can match something


def output_file(text: str) -> Path:
    """A file to write once the work is done (a model, an index): its folder must exist and take
    a new file, so that a typo is said at once rather than after an hour of training. ``-`` is
    refused (these files are not written to stdout), and so is a name that is not a regular file
    (a FIFO, a device); a symbolic link is written through, to its target."""
    if text == "-":
        raise argparse.ArgumentTypeError("- is not a file: this output is not written to stdout; "
                                         "name a file (./- for a file named '-')")
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a folder; name the file to write")
    try:
        target = regular_target(path)
    except GristError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    shown = target if path.is_symlink() else path  # (the folder a link's target is written in)
    if not target.parent.is_dir():
        raise argparse.ArgumentTypeError(f"no folder {shown.parent} to write {shown.name} into "
                                         "(make it first)")
    _try_writing_beside(target, shown)
    return path


def _try_writing_beside(target: Path, shown: Path) -> None:
    """Make and remove a temporary beside ``target`` (the file is written beside its name, then
    renamed), so that a read-only folder, /proc, is said before the work, not after it."""
    probe = temporary_beside(target)
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"cannot write {shown.name} into "
                                         f"{shown.parent}: {exc.strerror or exc}") from None
    probe.unlink()


def output_folder(text: str) -> Path:
    """A folder to write into (made when missing): a file of that name is refused at once."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a file; name a folder (one is made when "
                                         "missing)")
    return path


def existing_path(text: str) -> Path:
    """A file or folder to read: a missing one is refused when the options are read, before the
    command prints or starts anything."""
    path = Path(text)
    if not path.exists():
        raise argparse.ArgumentTypeError(f"no such file or folder: {text}")
    return path
