"""Registry of the named extraction methods; each lives in its own module and is imported on use."""

from __future__ import annotations

import importlib
import importlib.util

from grist.errors import UnknownMethodError
from grist.methods.base import Method

DEFAULT_METHOD = "justext"

_MODULES: dict[str, str] = {
    "justext": "grist.methods.justext",
    "lineblock": "grist.methods.lineblock",
    "tagscore": "grist.methods.tagscore",
    "tree": "grist.methods.tree",
    "auto": "grist.methods.auto",
}


def get_method(name: str) -> Method:
    """Return the method registered under ``name`` or raise UnknownMethodError."""
    module_name = _MODULES.get(name)
    if module_name is None:
        raise UnknownMethodError(
            f"unknown method {name!r}; choose one of: {', '.join(available_methods())}"
        )
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            raise UnknownMethodError(f"method {name!r} is not available in this build") from None
        raise
    return module.METHOD


def available_methods() -> list[str]:
    """Names of the methods whose module is present in this installation."""
    names = []
    for name, module_name in _MODULES.items():
        if importlib.util.find_spec(module_name) is not None:
            names.append(name)
    return names
