"""Duplicate groups over a stream of texts: fingerprint each, look it up in a FingerprintIndex,
add it, and join matches with union-find."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from grist.dedup.index import FingerprintIndex


@dataclass
class DuplicateGroups:
    """Feeds texts into ``index`` and keeps the near-duplicate groups among all its entries."""

    index: FingerprintIndex
    fingerprint: Callable[[str], int | None]
    previews: dict[int, str] = field(default_factory=dict)
    _parent: dict[int, int] = field(default_factory=dict)
    skipped: int = 0

    def _root(self, ident: int) -> int:
        root = ident
        while self._parent.get(root, root) != root:
            root = self._parent[root]
        while self._parent.get(ident, ident) != root:  # path compression
            self._parent[ident], ident = root, self._parent[ident]
        return root

    def add(self, key: str, text: str) -> list[int]:
        """Fingerprint and store ``text`` under ``key``; returns the ids it duplicates (maybe [])."""
        fp = self.fingerprint(text)
        if fp is None:
            self.skipped += 1
            return []
        matches = self.index.query(fp)
        ident = self.index.add(fp, key)
        self.previews[ident] = " ".join(text.split())[:100]
        for other in matches:
            a, b = self._root(ident), self._root(other)
            if a != b:
                self._parent[max(a, b)] = min(a, b)
        return matches

    def groups(self) -> list[list[int]]:
        """Groups of two or more ids, each sorted, ordered by their first member."""
        members: dict[int, list[int]] = {}
        for ident in self._parent:
            members.setdefault(self._root(ident), []).append(ident)
        for root in list(members):
            members[root].append(root)
        return sorted(sorted(set(m)) for m in members.values() if len(set(m)) > 1)
