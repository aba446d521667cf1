"""Fetching a requested URL for the service: on the event loop, through the address guard, and
stopped (its connection closed) after ``--fetch-timeout`` or when its caller cancels it."""

from __future__ import annotations

import asyncio

import httpx

from grist.errors import FetchError
from grist.io.fetch import AsyncFetcher, FetchConfig, FetchedPage
from grist.service.guard import GuardedTransport
from grist.service.settings import ServiceSettings


class Fetcher:
    """Downloads pages with grist's ``AsyncFetcher`` and an GuardedTransport (every hop
    checked), one attempt each, without robots.txt (the request names the page).

    Each download gets its own client and transport, so a TLS connection is never reused for
    another host name on the same address; the TLS context (the slow part to build) is shared.
    A download is a coroutine on the event loop, not a thread: cancelling it (its time limit,
    the request's deadline, a client that left) closes its connection, so an upstream that
    trickles its headers or body holds nothing after the request has been answered.
    """

    def __init__(self, settings: ServiceSettings) -> None:
        self.guard = settings.guard
        self.config = FetchConfig(timeout=settings.fetch_timeout, max_bytes=settings.max_body,
                                  retries=0, host_delay=0, robots=False)
        self._tls = httpx.create_ssl_context()

    def _fetcher(self) -> AsyncFetcher:
        """A fetcher, client and transport of its own for one download."""
        transport = GuardedTransport(self.guard, httpx.AsyncHTTPTransport(verify=self._tls))
        return AsyncFetcher(self.config, transport=transport)

    async def fetch(self, url: str) -> FetchedPage:
        """The page at ``url``, downloaded within ``--fetch-timeout`` (headers and redirects
        included); FetchError (BlockedAddressError for a refused address)."""
        seconds = self.config.timeout
        try:
            async with asyncio.timeout(seconds), self._fetcher() as fetcher:
                return await fetcher.fetch(url)
        except TimeoutError:
            raise FetchError(f"the download took longer than {seconds:g} s",
                             retryable=True) from None
        except UnicodeError as exc:  # httpx decoding a redirect's host name (xn--a.example)
            raise FetchError(f"a redirect's host name is not valid ({exc})") from None
