"""The exclusive lock a run takes on what it owns (a stream's state file, a batch's folder), so
that a second run on the same one is refused instead of writing pages twice."""

from __future__ import annotations

import errno
import fcntl
from typing import IO


def lock_exclusively(fd: int | IO[bytes]) -> bool:
    """Take an exclusive ``flock`` on ``fd`` (released when it closes, even by kill -9); False
    when another process holds one. Where the file system has no such locks (some network and
    FUSE mounts) the run goes on unlocked, as it did before locks."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        return exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN)
    return True
