"""Duplicate groups over a stream of texts: fingerprint each, look it up in a FingerprintIndex,
add it, and join matches with union-find. A key is stored once: a text under a key the index
already holds (a re-run over the same pages) is not added again and never matches itself."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from grist.dedup.index import FingerprintIndex, first_ids


@dataclass
class DuplicateGroups:
    """Feeds texts into ``index`` and keeps the near-duplicate groups among all its entries."""

    index: FingerprintIndex
    fingerprint: Callable[[str], int | None]
    previews: dict[int, str] = field(default_factory=dict)
    _parent: dict[int, int] = field(default_factory=dict)
    skipped: int = 0  # texts with nothing to fingerprint
    repeated: int = 0  # texts under a key the index already held
    _ids: dict[str, int] = field(init=False)

    def __post_init__(self) -> None:
        self._ids = first_ids(self.index.keys())

    def _root(self, ident: int) -> int:
        root = ident
        while self._parent.get(root, root) != root:
            root = self._parent[root]
        while self._parent.get(ident, ident) != root:  # path compression
            self._parent[ident], ident = root, self._parent[ident]
        return root

    def add(self, key: str, text: str) -> list[int]:
        """Fingerprint and store ``text`` under ``key``; returns the ids it duplicates (maybe []).
        A key the index already holds keeps its first fingerprint, which is looked up again
        (its groups are found as they were) but not stored twice nor matched with itself."""
        if key in self._ids:
            self.repeated += 1
            ident = self._ids[key]
            matches = [m for m in self.index.query(self.index.stored(ident)) if m != ident]
        else:
            fp = self.fingerprint(text)
            if fp is None:
                self.skipped += 1
                return []
            matches = self.index.query(fp)
            ident = self._ids[key] = self.index.add(fp, key)
            self.previews[ident] = " ".join(text.split())[:100]
        self._join(ident, matches)
        return matches

    def _join(self, ident: int, matches: list[int]) -> None:
        """Put ``ident`` in one group with each of ``matches`` (union-find)."""
        for other in matches:
            a, b = self._root(ident), self._root(other)
            if a != b:
                self._parent[max(a, b)] = min(a, b)

    def groups(self) -> list[list[int]]:
        """Groups of two or more ids, each sorted, ordered by their first member."""
        members: dict[int, list[int]] = {}
        for ident in self._parent:
            members.setdefault(self._root(ident), []).append(ident)
        for root in list(members):
            members[root].append(root)
        return sorted(sorted(set(m)) for m in members.values() if len(set(m)) > 1)
