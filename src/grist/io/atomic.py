"""Files replaced whole: written beside their final name, flushed to disk, then renamed over it,
so that a reader or a kill finds the old content or the new one, never half of it.

The file gets the permissions any new file gets (0666 less the umask, as ``open`` gives), not
the 0600 of ``tempfile.mkstemp``: model files and per-page outputs are read by other users and
services. A temporary file's name holds its writer's process id, so the temporaries of writers
killed mid-write can be told from those being written (``remove_stale_temporaries``).

A name that is a symbolic link is written through: the link's target is replaced, the link kept.
A name that is not a regular file (a FIFO, a device such as ``/dev/full``, a socket, a folder)
is refused (``regular_target``): renaming over it would replace the node, not write into it.
"""

from __future__ import annotations

import os
import re
import secrets
import stat
from pathlib import Path

from grist.errors import GristError

# Attempts at a temporary name no other file has (each a fresh random name).
_NAME_ATTEMPTS = 100
# Bytes of the final name kept in a temporary's name (a name has 255 bytes at most).
_NAME_BYTES = 100
# A temporary's name; without the random part it is one the service wrote before stop 50.
_TEMPORARY = re.compile(r"\..*\.(\d+)(?:\.[0-9a-f]{12})?\.tmp(?:\.[^.]+)*", re.DOTALL)


def write_atomically(path: Path, data: bytes, temporary: Path | None = None, *,
                     sync: bool = True) -> None:
    """Replace ``path`` with ``data``. The temporary file is ``temporary`` when given (a name
    only this writer uses, as in a locked folder: a kill leaves it to be overwritten by the
    next run), else a fresh hidden name beside ``path``, removed if the write fails. Without
    ``sync`` the data is not forced to disk first (a third of the time on a small file): a
    killed process still leaves the old file or the new one, a machine losing power may not."""
    path = regular_target(path)
    if temporary is None:
        handle, temporary = _fresh_file(path)
    else:
        handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            if sync:
                out.flush()
                os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def regular_target(path: Path) -> Path:
    """The file writing to ``path`` replaces: the target of a symbolic link (so that the link
    stays one), else ``path``; a GristError when that exists and is not a regular file."""
    target = Path(os.path.realpath(path))
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        return target
    except OSError as exc:  # a loop of links, a folder that cannot be searched
        raise GristError(f"cannot write {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        shown = path if target == Path(os.path.abspath(path)) else f"{path} (-> {target})"
        raise GristError(f"{shown} is {_kind(mode)}, not a regular file: grist writes only "
                         "regular files (the new file renamed into place would replace it)")
    return target


def _kind(mode: int) -> str:
    """What a file that is not a regular one is, by its mode."""
    for test, kind in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return "a special file"


def temporary_beside(path: Path, suffix: str = "") -> Path:
    """A fresh name for a temporary file beside ``path``: ``.NAME.PID.RANDOM.tmp`` and
    ``suffix`` (a writer that picks its format by the name, as model files do, needs one)."""
    name = name_start(path.name, _NAME_BYTES)
    return path.with_name(f".{name}.{os.getpid()}.{secrets.token_hex(6)}.tmp{suffix}")


def name_start(name: str, size: int) -> str:
    """The longest start of the file name ``name`` that takes at most ``size`` bytes on disk,
    cut between characters; bytes are counted as ``os.fsencode`` gives them, so that a name
    that is not UTF-8 (its bytes held as surrogate escapes) keeps them instead of failing."""
    data = os.fsencode(name)
    if len(data) <= size:
        return name
    start = os.fsdecode(data[:size])
    while not name.startswith(start):  # a character cut in two: its bytes are not the name's
        start = start[:-1]
    return start


def _fresh_file(path: Path) -> tuple[int, Path]:
    """A new file beside ``path`` under a name no file had (``temporary_beside``), opened for
    writing."""
    for _ in range(_NAME_ATTEMPTS):
        candidate = temporary_beside(path)
        try:
            return os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), candidate
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path}")


def remove_stale_temporaries(folder: Path, recursive: bool = False) -> int:
    """Delete the temporary files in ``folder`` (and its sub-folders when ``recursive``) of
    writers killed mid-write (the process whose id the name holds no longer runs); returns how
    many."""
    removed = 0
    for path in folder.glob("**/.*.tmp*" if recursive else ".*.tmp*"):
        found = _TEMPORARY.fullmatch(path.name)
        if found and not _alive(int(found.group(1))):
            path.unlink(missing_ok=True)
            removed += 1
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True
