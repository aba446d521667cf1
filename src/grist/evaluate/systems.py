"""Systems under evaluation by name: grist methods (``grist:<method>``) and the peers."""

from __future__ import annotations

import importlib.metadata

from grist.errors import GristError
from grist.evaluate.peers import PEERS, ExtractFunction, make_peer, peer_version

GRIST_PREFIX = "grist:"


def make_system(name: str) -> ExtractFunction:
    """The extraction function of system ``name``; raises a GristError if it is unavailable."""
    if name.startswith(GRIST_PREFIX):
        from grist.api import Extractor

        extractor = Extractor(method=name[len(GRIST_PREFIX) :])
        return lambda html, url: extractor(html, url).text
    return make_peer(name)


def system_version(name: str) -> str | None:
    """Version of the package behind a system (grist's own for its methods)."""
    if name.startswith(GRIST_PREFIX):
        return importlib.metadata.version("grist")
    return peer_version(name) if name in PEERS else None


def system_available(name: str) -> str | None:
    """None when the system can run here, else the reason it cannot."""
    if name.startswith(GRIST_PREFIX):
        from grist.methods import get_method

        try:
            get_method(name[len(GRIST_PREFIX) :])
        except GristError as exc:
            return str(exc)
        return None
    if name not in PEERS:
        return f"unknown peer {name!r}"
    return None if peer_version(name) else f"package {PEERS[name][0]!r} is not installed"
