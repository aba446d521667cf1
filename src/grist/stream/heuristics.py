"""The URL Tree's classification heuristics (seed 003 §4, §5.4), as named configurations.

- ``strict``: from the document's leaf towards the root, the first node with support
  ``n_s >= n_min`` (5) is selected (the root when none is); a block is boilerplate when its
  counter there exceeds ``c_max`` (1).
- ``strict-support-N``: only nodes with ``n_s > N`` are selected (the paper tuned N = 100).
- ``strict-at-domain``: always the domain (root) node.
- ``relaxed-at-domain-N``: strict, but once the domain node has ``n_s > N`` the threshold is
  ``c(b) > 2`` (the paper tuned N = 500).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from grist.errors import ConfigError

HEURISTIC_NAMES = ("strict", "strict-support-N", "strict-at-domain", "relaxed-at-domain-N")
_NAMED = re.compile(r"(strict-support|relaxed-at-domain)-(\d+)")


@dataclass(frozen=True)
class Heuristic:
    """How a node is selected and judged.

    n_min:         a node qualifies when its support is at least this (strict).
    support_above: when set, a node qualifies only when its support is above this instead.
    at_domain:     always select the domain node.
    relax_above:   when the domain node's support is above this, ``relaxed_c_max`` applies.
    """

    name: str = "strict"
    n_min: int = 5
    c_max: int = 1
    support_above: int | None = None
    at_domain: bool = False
    relax_above: int | None = None
    relaxed_c_max: int = 2

    def qualifies(self, support: int) -> bool:
        if self.support_above is not None:
            return support > self.support_above
        return support >= self.n_min

    def threshold(self, domain_support: int) -> int:
        """The c_max in force given the domain node's support."""
        if self.relax_above is not None and domain_support > self.relax_above:
            return self.relaxed_c_max
        return self.c_max


def heuristic(name: str) -> Heuristic:
    """The heuristic called ``name``: ``strict``, ``strict-at-domain``, ``strict-support-100``,
    ``relaxed-at-domain-500`` (any N)."""
    if name == "strict":
        return Heuristic(name)
    if name == "strict-at-domain":
        return Heuristic(name, at_domain=True)
    match = _NAMED.fullmatch(name)
    if match and match.group(1) == "strict-support":
        return Heuristic(name, support_above=int(match.group(2)))
    if match:
        return Heuristic(name, relax_above=int(match.group(2)))
    raise ConfigError(f"unknown URL Tree heuristic {name!r}; choose one of "
                      f"{', '.join(HEURISTIC_NAMES)} (N a number, e.g. relaxed-at-domain-500)")
