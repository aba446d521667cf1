"""Registry of the named extraction methods; each lives in its own module and is imported on use."""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
from pathlib import Path
from typing import Any

from grist.errors import ModelError, UnknownMethodError
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


def method_config(name: str, model_path: str | Path | None = None) -> Any:
    """The default config of method ``name``, reading its model from ``model_path`` when given."""
    config_type = get_method(name).config_type
    if model_path is None:
        return config_type()
    takes_model = [
        n for n in available_methods()
        if "model_path" in {f.name for f in dataclasses.fields(get_method(n).config_type)}
    ]
    if name not in takes_model:
        raise UnknownMethodError(
            f"method {name!r} does not use a trained model; a model works with: {', '.join(takes_model)}"
        )
    if not Path(model_path).is_file():
        raise ModelError(f"model file not found: {model_path}")
    return config_type(model_path=str(model_path))
