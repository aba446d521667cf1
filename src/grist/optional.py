"""Optional dependencies (WARC, Parquet, Ray, datatrove, the service) imported through one helper
that names the extra to install, so a missing package gives one clear line instead of a
traceback."""

from __future__ import annotations

import importlib
from types import ModuleType

from grist.errors import GristError


class MissingExtraError(GristError):
    """A feature needs a package of one of grist's extras that is not installed."""

    reason = "missing-extra"


def require(module: str, extra: str, feature: str) -> ModuleType:
    """Import ``module`` or raise MissingExtraError saying which extra provides it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtraError(
            f"{feature} needs the '{extra}' extra: pip install 'grist[{extra}]'"
        ) from None
