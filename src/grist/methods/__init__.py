"""Registry of the named extraction methods; each lives in its own module and is imported on use."""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
from pathlib import Path
from typing import Any

from grist.errors import ModelError, UnknownMethodError
from grist.methods.base import Method

DEFAULT_METHOD = "auto"

_MODULES: dict[str, str] = {
    "justext": "grist.methods.justext",
    "lineblock": "grist.methods.lineblock",
    "tagscore": "grist.methods.tagscore",
    "tree": "grist.methods.tree",
    "auto": "grist.methods.auto",
}


def split_spec(spec: str) -> tuple[str, str | None]:
    """``"tagscore/rules-only"`` -> ``("tagscore", "rules-only")``; no variant -> None."""
    name, _, variant = spec.partition("/")
    return name, variant or None


def get_method(spec: str) -> Method:
    """Return the method named by ``spec`` (``name`` or ``name/variant``) or raise UnknownMethodError."""
    name, _ = split_spec(spec)
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


def method_config(spec: str, model_path: str | Path | None = None) -> Any:
    """The config of ``spec`` (``name`` or ``name/variant``), reading its model from ``model_path``."""
    method = get_method(spec)
    name, variant = split_spec(spec)
    if variant is None:
        config = method.config_type()
    elif variant in method.variants:
        config = method.variants[variant]()
    else:
        known = ", ".join(method.variants) or "none"
        raise UnknownMethodError(f"method {name!r} has no variant {variant!r}; its variants: {known}")
    if model_path is None:
        return config
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
    return dataclasses.replace(config, model_path=str(model_path))
