"""The registry of named extraction methods.

Every method, built in or a user's, is registered with ``register_method``: as a ``Method``
object, or as ``"module:ATTRIBUTE"`` imported on first use (the built-in methods, so that
``import grist`` stays cheap). ``grist.testing.check_method`` checks a registered method
against the contract every method keeps.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from grist.errors import ModelError, UnknownMethodError
from grist.methods.base import Labelled, Method, PageContext

DEFAULT_METHOD = "auto"

_REGISTRY: dict[str, Method | str] = {}


def register_method(name: str, method: Method | str, *, replace: bool = False) -> None:
    """Make ``method`` available as ``name`` (and ``name/variant`` for its variants).

    ``method`` is a Method or ``"module:ATTRIBUTE"`` naming one, imported when first used.
    Registering a taken name raises UnknownMethodError unless ``replace`` is set.
    """
    if not name or "/" in name or "@" in name:
        raise UnknownMethodError(f"a method name is a plain word, not {name!r}")
    if name in _REGISTRY and not replace:
        raise UnknownMethodError(f"a method named {name!r} is already registered")
    _REGISTRY[name] = method


def unregister_method(name: str) -> None:
    """Remove a registered method (a no-op for unknown names)."""
    _REGISTRY.pop(name, None)


@contextlib.contextmanager
def registrations_undone() -> Iterator[None]:
    """Forget the methods registered inside when it ends: a check that imports a job's plugins
    in a process that runs none of its pages leaves the registry as it found it."""
    before = dict(_REGISTRY)
    try:
        yield
    finally:
        _REGISTRY.clear()
        _REGISTRY.update(before)


for _name in ("justext", "lineblock", "tagscore", "tree", "auto"):
    register_method(_name, f"grist.methods.{_name}:METHOD")


def split_spec(spec: str) -> tuple[str, str | None]:
    """``"tagscore/rules-only"`` -> ``("tagscore", "rules-only")``; no variant -> None."""
    if not isinstance(spec, str):
        raise TypeError(f"a method is named by a str such as 'auto' or 'tagscore/rules-only', "
                        f"not {type(spec).__name__}")
    name, _, variant = spec.partition("/")
    return name, variant or None


def get_method(spec: str) -> Method:
    """Return the method named by ``spec`` (``name`` or ``name/variant``) or raise UnknownMethodError."""
    name, _ = split_spec(spec)
    entry = _REGISTRY.get(name)
    if entry is None:
        raise UnknownMethodError(
            f"unknown method {name!r}; choose one of: {', '.join(available_methods())}"
        )
    if isinstance(entry, Method):
        return entry
    module_name, _, attribute = entry.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            raise UnknownMethodError(f"method {name!r} is not available in this build") from None
        raise
    return getattr(module, attribute or "METHOD")


def available_methods() -> list[str]:
    """Names of the registered methods, in registration order."""
    return list(_REGISTRY)


def method_specs() -> list[str]:
    """Every method and every variant, as the specs ``--method`` accepts (``name/variant``)."""
    specs = []
    for name in available_methods():
        specs.append(name)
        specs += [f"{name}/{variant}" for variant in get_method(name).variants]
    return specs


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


__all__ = ["DEFAULT_METHOD", "Labelled", "Method", "PageContext", "available_methods",
           "get_method", "method_config", "method_specs", "register_method", "split_spec",
           "unregister_method"]
