"""Systems under evaluation by name: grist methods and the peers.

A grist system is ``grist:<method>[/<variant>][@<model file>]``; a ``{dataset}`` in the model path is
replaced by each page's dataset name, so ``grist:auto@build/lodo/{dataset}.json.gz`` evaluates
leave-one-dataset-out models (each dataset with the model trained without it). A ``{fold}`` is
replaced by the page's fold in ``folds.json`` beside the models (``{"dataset/id": fold}``, written
with cross-validation models: ``grist:auto@build/cv/fold{fold}.json.gz``).

A grist method that names block roles is scored twice on each dataset: with the roles the
dataset's gold counts as main text (``grist.io.datasets.gold_convention``) and with its default
output, the body alone; its extraction function returns both texts.
"""

from __future__ import annotations

import importlib.metadata
import json
from functools import lru_cache
from pathlib import Path

from grist.errors import GristError
from grist.evaluate.peers import PEERS, ExtractFunction, make_peer, peer_version

GRIST_PREFIX = "grist:"


@lru_cache(maxsize=8)
def _folds(path: str) -> dict[str, int]:
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise GristError(f"cannot read the fold table {path}: {exc}") from None


def model_path(name: str, dataset: str = "", page_id: str = "") -> str | None:
    """The model file of a grist system for one page (``{dataset}``, ``{fold}`` filled in)."""
    model = name[len(GRIST_PREFIX):].partition("@")[2] if name.startswith(GRIST_PREFIX) else ""
    if not model:
        return None
    model = model.replace("{dataset}", dataset)
    if "{fold}" in model:
        table = str(Path(model).parent / "folds.json")
        fold = _folds(table).get(f"{dataset}/{page_id}")
        if fold is None:
            raise GristError(f"page {dataset}/{page_id} is not in the fold table {table}")
        model = model.replace("{fold}", str(fold))
    return model


def make_system(name: str, dataset: str = "", page_id: str = "") -> ExtractFunction:
    """The extraction function of system ``name`` for pages of ``dataset`` (and, with a
    ``{fold}`` model, page ``page_id``); raises a GristError if it is unavailable. A grist
    method returns the text with the dataset's gold convention and its default text."""
    if name.startswith(GRIST_PREFIX):
        from grist.api import Extractor
        from grist.io.datasets import gold_convention
        from grist.methods import method_config

        spec = name[len(GRIST_PREFIX):].partition("@")[0]
        config = method_config(spec, model_path(name, dataset, page_id))
        extractor = Extractor(method=spec, config=config)
        convention = gold_convention(dataset)

        def extract(html: str, url: str | None) -> tuple[str, str]:
            result = extractor(html, url)
            return result.including(convention).text, result.text

        return extract  # type: ignore[return-value]
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
