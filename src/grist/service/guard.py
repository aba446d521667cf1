"""Server-side request forgery guard: the service fetches only public addresses.

A URL's host is resolved once, every address it resolves to is checked, and the connection goes
to the checked address (so a second lookup cannot return another one: DNS rebinding). This runs
in an httpx transport, so every redirect hop is checked the same way before
anything is sent.
Refused: loopback, private, link-local (cloud metadata at 169.254.169.254), carrier-grade NAT,
multicast, reserved and unspecified addresses, and IPv6 forms that embed one (IPv4-mapped, 6to4,
Teredo). ``allow`` names networks that are let through anyway (a staging host, a test server).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import httpx

from grist.errors import FetchError

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], Sequence[str]]


class BlockedAddressError(FetchError):
    """The URL's host is, or resolves to, an address the service may not fetch from."""

    reason = "blocked-address"


def system_resolver(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (the system's resolver, IPv4 and IPv6)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise FetchError(f"could not resolve {host!r} ({exc})") from None
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _embedded(address: Address) -> Address:
    """The IPv4 address an IPv6 address carries (mapped, 6to4, Teredo client), else itself."""
    if isinstance(address, ipaddress.IPv6Address):
        inner = address.ipv4_mapped or address.sixtofour or (
            address.teredo[1] if address.teredo else None)
        if inner is not None:
            return inner
    return address


def why_blocked(address: Address) -> str | None:
    """Why the service may not connect to ``address`` by default, or None for a public one."""
    address = _embedded(address)
    for test, kind in ((address.is_loopback, "a loopback"),
                       (address.is_unspecified, "an unspecified"),
                       (address.is_link_local, "a link-local (cloud metadata)"),
                       (address.is_multicast, "a multicast"),
                       (address.is_private, "a private"),
                       (address.is_reserved, "a reserved"),
                       (not address.is_global, "a non-public")):
        if test:
            return f"{kind} address"
    return None


def parse_networks(items: Iterable[str]) -> tuple[Network, ...]:
    """``10.0.0.0/8``, ``127.0.0.1``, ``::1`` ... as networks; ValueError names a bad entry."""
    networks = []
    for item in items:
        try:
            networks.append(ipaddress.ip_network(item.strip(), strict=False))
        except ValueError:
            raise ValueError(f"not an IP address or network: {item!r}") from None
    return tuple(networks)


@dataclass(frozen=True)
class AddressGuard:
    """Decides which addresses may be fetched; ``resolver`` is injectable (tests, custom DNS)."""

    allow: tuple[Network, ...] = ()
    resolver: Resolver = field(default=system_resolver)

    def check(self, host: str, port: int) -> str:
        """The address to connect to for ``host``; BlockedAddressError if any address it
        resolves to is refused (one bad address refuses the host: the client may pick any)."""
        try:
            addresses = [ipaddress.ip_address(host)]
        except ValueError:
            addresses = [ipaddress.ip_address(a.split("%")[0]) for a in self.resolver(host, port)]
        if not addresses:
            raise FetchError(f"could not resolve {host!r}")
        for address in addresses:
            if any(address in network for network in self.allow):
                continue
            why = why_blocked(address)
            if why is not None:
                shown = host if host == str(address) else f"{host} ({address})"
                raise BlockedAddressError(
                    f"refusing to fetch from {shown}: {why}; the service fetches only public "
                    "addresses (an operator can allow networks with --allow-network)")
        return str(addresses[0])


def _target(url: httpx.URL) -> tuple[str, int]:
    """The host and port a request goes to; BlockedAddressError for a scheme other than http(s)."""
    if url.scheme not in ("http", "https"):
        raise BlockedAddressError(f"refusing to fetch a {url.scheme}: URL; only http(s)")
    return url.host, url.port or (443 if url.scheme == "https" else 80)


def _pinned(request: httpx.Request, address: str) -> httpx.Request:
    """``request`` sent to the checked ``address``, its host name kept for ``Host`` and TLS."""
    url = request.url
    extensions = dict(request.extensions)
    if url.scheme == "https":
        extensions["sni_hostname"] = url.host
    return httpx.Request(request.method, url.copy_with(host=address), headers=request.headers,
                         stream=request.stream, extensions=extensions)


class GuardedTransport(httpx.AsyncBaseTransport):
    """An httpx transport (async: cancelling a download closes its connection) that checks each
    request's host with an AddressGuard and connects to the checked address, keeping the host
    name for the ``Host`` header and TLS (SNI and certificate checks); the name is looked up in
    a thread (the resolver blocks)."""

    def __init__(self, guard: AddressGuard, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self.guard = guard
        self.inner = inner or httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        address = await asyncio.to_thread(self.guard.check, *_target(request.url))
        return await self.inner.handle_async_request(_pinned(request, address))

    async def aclose(self) -> None:
        await self.inner.aclose()
