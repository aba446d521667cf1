"""Fetching a requested URL for the service: in a thread, through the address guard, within the
request's deadline."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor

import httpx

from grist.errors import FetchError
from grist.io.fetch import FetchConfig, FetchedPage, fetch
from grist.service.guard import GuardedTransport
from grist.service.settings import ServiceSettings


class Fetcher:
    """Downloads pages with ``grist.io.fetch`` and a GuardedTransport (every hop checked).

    Each download gets its own transport, so a TLS connection is never reused for another host
    name on the same address; the TLS context (the slow part to build) is shared.
    """

    def __init__(self, settings: ServiceSettings) -> None:
        self.settings = settings
        self._tls = httpx.create_ssl_context()
        self._threads = ThreadPoolExecutor(max_workers=settings.max_in_flight,
                                           thread_name_prefix="grist-fetch")

    def _fetch(self, url: str, seconds: float) -> FetchedPage:
        config = FetchConfig(timeout=max(min(self.settings.fetch_timeout, seconds), 0.01),
                             max_bytes=self.settings.max_body)
        transport = GuardedTransport(self.settings.guard, httpx.HTTPTransport(verify=self._tls))
        try:
            return fetch(url, config, transport=transport)
        except UnicodeError as exc:  # httpx decoding a redirect's host name (xn--a.example)
            raise FetchError(f"a redirect's host name is not valid ({exc})") from None

    async def fetch(self, url: str, deadline: float) -> FetchedPage:
        """The page at ``url``; FetchError (BlockedAddressError for a refused address)."""
        seconds = deadline - time.monotonic()
        loop = asyncio.get_running_loop()
        try:
            return await asyncio.wait_for(
                loop.run_in_executor(self._threads, self._fetch, url, seconds), seconds + 0.5)
        except TimeoutError:
            raise FetchError(f"the download took longer than {seconds:.3g} s") from None

    def close(self) -> None:
        self._threads.shutdown(wait=False, cancel_futures=True)
