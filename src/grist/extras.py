"""Optional dependencies: one check that names the extra to install when one is missing."""

from __future__ import annotations

import importlib.util

from grist.errors import GristError


def require(*modules: str, extra: str) -> None:
    """Raise GristError naming ``pip install 'grist[extra]'`` if any of ``modules`` is missing."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        raise GristError(f"this needs {', '.join(missing)}: pip install 'grist[{extra}]'")
