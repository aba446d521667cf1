"""Systems under evaluation by name: grist methods and the peers.

A grist system is ``grist:<method>[/<variant>][@<model file>]``; a ``{dataset}`` in the model path is
replaced by each page's dataset name, so ``grist:auto@build/lodo/{dataset}.json.gz`` evaluates
leave-one-dataset-out models (each dataset with the model trained without it).
"""

from __future__ import annotations

import importlib.metadata

from grist.errors import GristError
from grist.evaluate.peers import PEERS, ExtractFunction, make_peer, peer_version

GRIST_PREFIX = "grist:"


def make_system(name: str, dataset: str = "") -> ExtractFunction:
    """The extraction function of system ``name`` for pages of ``dataset``; raises a GristError if
    it is unavailable."""
    if name.startswith(GRIST_PREFIX):
        from grist.api import Extractor
        from grist.methods import method_config

        spec, _, model = name[len(GRIST_PREFIX) :].partition("@")
        config = method_config(spec, model.replace("{dataset}", dataset) if model else None)
        extractor = Extractor(method=spec, config=config)
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
            get_method(name[len(GRIST_PREFIX) :].partition("@")[0])
        except GristError as exc:
            return str(exc)
        return None
    if name not in PEERS:
        return f"unknown peer {name!r}"
    return None if peer_version(name) else f"package {PEERS[name][0]!r} is not installed"
