"""Checks of settings fields (``Limits``, ``FetchConfig``, ``TrainConfig``, ``SiteConfig``, ...):
each raises a ConfigError naming ``Class.field`` and the value, so a wrong setting is refused
where it is made, not in the middle of an extraction or a training."""

from __future__ import annotations

import math
from collections.abc import Sequence
from numbers import Integral, Real

from grist.errors import ConfigError


def refused(settings: object, name: str, wanted: str) -> ConfigError:
    """The error for a field of ``settings`` that is not ``wanted``."""
    return ConfigError(f"{type(settings).__name__}.{name} must be {wanted}, "
                       f"not {getattr(settings, name)!r}")


def check_choice(settings: object, name: str, allowed: Sequence[object]) -> None:
    """ConfigError unless the field ``name`` of ``settings`` is one of ``allowed``."""
    value = getattr(settings, name)
    if value not in allowed or type(value) not in {type(a) for a in allowed}:  # (0 is no False)
        raise refused(settings, name, f"one of {', '.join(map(str, allowed))}")


def check_flag(settings: object, name: str) -> None:
    """ConfigError unless the field ``name`` of ``settings`` is True or False."""
    if not isinstance(getattr(settings, name), bool):
        raise refused(settings, name, "True or False")


def _real(value: object) -> bool:
    """Whether ``value`` is a number (True and False are not: ``check_flag`` takes those)."""
    return isinstance(value, Real) and not isinstance(value, bool)


def check_share(settings: object, name: str, strict: bool = False) -> None:
    """ConfigError unless the field ``name`` of ``settings`` is a number from 0 to 1 (between
    them, neither 0 nor 1, with ``strict``)."""
    value = getattr(settings, name)
    if not _real(value) or not (0 < value < 1 if strict else 0 <= value <= 1):
        raise refused(settings, name, "a number between 0 and 1 (not 0 or 1)" if strict
                      else "a number from 0 to 1")


def check_number(settings: object, name: str, low: float, high: float | None = None, *,
                 above: bool = False) -> None:
    """ConfigError unless the field ``name`` of ``settings`` is a finite number from ``low``
    (more than ``low`` when ``above``) to ``high``, so a fraction or a rate out of range is
    named before any training."""
    value = getattr(settings, name)
    if not (_real(value) and math.isfinite(value)) or value < low or (above and value == low) or (
            high is not None and value > high):
        start = f"more than {low:g}" if above else f"{low:g} or more"
        span = start if high is None else f"{start} and at most {high:g}"
        raise ConfigError(f"{type(settings).__name__}.{name} must be a number {span}, "
                          f"not {value!r}")


def check_whole(settings: object, name: str, least: int) -> None:
    """ConfigError unless the field ``name`` of ``settings`` is a whole number >= ``least``."""
    value = getattr(settings, name)
    if isinstance(value, bool) or not isinstance(value, Integral) or value < least:
        raise ConfigError(f"{type(settings).__name__}.{name} must be a whole number of {least} "
                          f"or more, not {value!r}")


def check_seconds(settings: object, name: str, above_zero: bool = False) -> None:
    """ConfigError unless the field ``name`` of ``settings`` is a number of seconds, 0 or more
    (more than 0 with ``above_zero``)."""
    value = getattr(settings, name)
    if not _real(value) or not (value > 0 if above_zero else value >= 0):
        least = "more than 0" if above_zero else "0 or more"
        raise ConfigError(f"{type(settings).__name__}.{name} must be a number of seconds, "
                          f"{least}, not {value!r}")
