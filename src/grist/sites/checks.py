"""Checks of site settings beside ``grist.limits.check_whole``: each raises a ConfigError naming
``Class.field`` and the value, so a wrong setting is refused where it is made, not in the middle
of an extraction."""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Real

from grist.errors import ConfigError


def refused(settings: object, name: str, wanted: str) -> ConfigError:
    """The error for a field of ``settings`` that is not ``wanted``."""
    return ConfigError(f"{type(settings).__name__}.{name} must be {wanted}, "
                       f"not {getattr(settings, name)!r}")


def check_choice(settings: object, name: str, allowed: Sequence[str]) -> None:
    """ConfigError unless the field ``name`` of ``settings`` is one of the words ``allowed``."""
    value = getattr(settings, name)
    if not isinstance(value, str) or value not in allowed:
        raise refused(settings, name, f"one of {', '.join(allowed)}")


def check_flag(settings: object, name: str) -> None:
    """ConfigError unless the field ``name`` of ``settings`` is True or False."""
    if not isinstance(getattr(settings, name), bool):
        raise refused(settings, name, "True or False")


def check_share(settings: object, name: str, strict: bool = False) -> None:
    """ConfigError unless the field ``name`` of ``settings`` is a number from 0 to 1 (between
    them, neither 0 nor 1, with ``strict``)."""
    value = getattr(settings, name)
    if isinstance(value, bool) or not isinstance(value, Real) or not (
            0 < value < 1 if strict else 0 <= value <= 1):
        raise refused(settings, name, "a number between 0 and 1 (not 0 or 1)" if strict
                      else "a number from 0 to 1")
