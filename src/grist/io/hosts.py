"""Politeness towards each host: how many requests at once, how far apart, and robots.txt.

``HostGate`` gives each host a semaphore and a next free time slot. ``RobotsCache`` keeps each
origin's robots.txt (parsed with Protego, which reads the wildcards and ``Crawl-delay`` real
sites use) and follows RFC 9309 when there is none: a 4xx answer allows everything, a server
error or no answer disallows everything for a while (the fetch is retried later).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from urllib.parse import urlsplit

ROBOTS_TTL = 86_400.0  # a robots.txt read is trusted for a day
ROBOTS_MAX_BYTES = 500 * 1024  # what of a robots.txt is read (a 7 MB one took 13 s to parse)
ROBOTS_RETRY = 600.0  # after a server error, robots.txt is asked for again after 10 minutes
MAX_CRAWL_DELAY = 60.0  # a larger Crawl-delay is capped (a page a minute is still polite)


def _netloc(url: str) -> str:
    try:
        return (urlsplit(url).netloc or "").lower()
    except ValueError:
        return ""


@dataclass
class _Host:
    semaphore: asyncio.Semaphore
    delay: float
    next_slot: float = 0.0


class HostGate:
    """At most ``concurrency`` requests per host at a time, started ``delay`` seconds apart."""

    def __init__(self, concurrency: int, delay: float) -> None:
        self.concurrency = max(1, concurrency)
        self.delay = max(0.0, delay)
        self.hosts: dict[str, _Host] = {}

    def _host(self, url: str) -> _Host:
        key = _netloc(url)
        if key not in self.hosts:
            self.hosts[key] = _Host(asyncio.Semaphore(self.concurrency), self.delay)
        return self.hosts[key]

    def slow_down(self, url: str, delay: float | None) -> None:
        """Space this host's requests by at least ``delay`` seconds (robots.txt Crawl-delay)."""
        if delay:
            host = self._host(url)
            host.delay = max(host.delay, min(delay, MAX_CRAWL_DELAY))

    @asynccontextmanager
    async def slot(self, url: str) -> AsyncIterator[None]:
        host = self._host(url)
        async with host.semaphore:
            now = time.monotonic()
            start = max(now, host.next_slot)
            host.next_slot = start + host.delay
            if start > now:
                await asyncio.sleep(start - now)
            yield


@dataclass
class _Robots:
    parser: object | None  # a Protego parser; None: no rules (everything allowed or refused)
    allow_all: bool
    expires: float
    problem: str = ""


class RobotsCache:
    """robots.txt of each origin (``scheme://host[:port]``), fetched by the caller."""

    def __init__(self, user_agent: str) -> None:
        self.user_agent = user_agent
        self.origins: dict[str, _Robots] = {}
        self.locks: dict[str, asyncio.Lock] = {}

    def lock(self, origin: str) -> asyncio.Lock:
        return self.locks.setdefault(origin, asyncio.Lock())

    @staticmethod
    def origin(url: str) -> str | None:
        try:
            parts = urlsplit(url)
        except ValueError:
            return None
        if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
            return None
        return f"{parts.scheme.lower()}://{parts.netloc.lower()}"

    def known(self, origin: str) -> bool:
        entry = self.origins.get(origin)
        return entry is not None and entry.expires > time.monotonic()

    def learn(self, origin: str, content: bytes) -> None:
        """A robots.txt that was read (an HTML page or an empty file holds no rules)."""
        from protego import Protego

        if len(content) > ROBOTS_MAX_BYTES:  # RFC 9309 2.5: parse at least 500 KiB; we stop there
            cut = content.rfind(b"\n", 0, ROBOTS_MAX_BYTES)
            content = content[:cut + 1 if cut >= 0 else ROBOTS_MAX_BYTES]
        text = content.decode("utf-8", errors="replace")
        self.origins[origin] = _Robots(Protego.parse(text), False, time.monotonic() + ROBOTS_TTL)

    def failed(self, origin: str, problem: str, server_side: bool) -> None:
        """robots.txt could not be read: a 4xx-like failure allows all, a server or network
        failure refuses all until it is asked for again."""
        ttl = ROBOTS_RETRY if server_side else ROBOTS_TTL
        self.origins[origin] = _Robots(None, not server_side, time.monotonic() + ttl, problem)

    def verdict(self, origin: str, url: str) -> str | None:
        """None when ``url`` may be fetched, else why not."""
        entry = self.origins[origin]
        if entry.allow_all:
            return None
        if entry.parser is None:
            return f"robots.txt could not be read ({entry.problem}); trying again later"
        if entry.parser.can_fetch(url, self.user_agent):  # type: ignore[attr-defined]
            return None
        return "robots.txt disallows this URL"

    def retry_later(self, origin: str) -> bool:
        return self.origins[origin].parser is None

    def crawl_delay(self, origin: str) -> float | None:
        entry = self.origins.get(origin)
        if entry is None or entry.parser is None:
            return None
        return entry.parser.crawl_delay(self.user_agent)  # type: ignore[attr-defined]
