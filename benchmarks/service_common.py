"""What the service benchmarks share: a free port on 127.0.0.1 and waiting for a server to answer."""

from __future__ import annotations

import socket
import time

import httpx


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_up(base: str, seconds: float = 60) -> None:
    """Return once ``base``/health answers; RuntimeError after ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            httpx.get(base + "/health")
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise RuntimeError(f"no server answered at {base}")
