"""A fitted cluster of pages: how many of its pages contain each path, and its template.

The template of a cluster of M pages is the set of paths more than M / 2 of its pages contain
(CalcMDLval's rule, counted over every path of the pages once the clustering is done, so a
shared path counts even where the mode threshold did not call it non-content). Counts are kept
for every path, so adding a page (``with_page``) keeps them exact. A cluster also keeps its
content slots (``grist.sites.slots``) and its members' digests (``grist.sites.pages.page_digest``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from grist.sites.mdl import template_of
from grist.sites.paths import TEXT, show_path
from grist.sites.payload import array, broken, entries, entry, pack
from grist.sites.slots import Slots, values_at


@dataclass
class SiteCluster:
    """One template: its number, site group, member pages and path counts."""

    id: int
    group: str
    pages: list[str]
    hashes: np.ndarray                 # sorted distinct path hashes of its pages
    support: np.ndarray                # how many of its pages contain each
    names: dict[int, str] = field(default_factory=dict)  # strings of its template paths
    slots: Slots = field(default_factory=Slots.empty)  # where its pages' method kept text
    digests: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint64))  # sorted
    template_hashes: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.template_hashes = self.hashes[template_of(self.support, self.size)]

    @property
    def size(self) -> int:
        return len(self.pages)

    def template(self) -> list[tuple[str, int]]:
        """Template paths for people with the number of pages containing each: most first, and
        paths with a text before bare element paths."""
        mask = template_of(self.support, self.size)
        rows = [(self.names.get(h, f"#{h:016x}"), int(n))
                for h, n in zip(self.hashes[mask].tolist(), self.support[mask].tolist(),
                                strict=True)]
        rows.sort(key=lambda row: (-row[1], TEXT not in row[0], row[0]))
        return [(show_path(path), n) for path, n in rows]

    def counts(self, hashes: np.ndarray) -> np.ndarray:
        """How many of the cluster's pages contain each of ``hashes``."""
        return values_at(self.hashes, (self.support,), hashes)[0]

    def is_member(self, digest: int) -> bool:
        """Whether a page with this digest is one of the cluster's pages."""
        at = int(np.searchsorted(self.digests, np.uint64(digest)))
        return at < len(self.digests) and int(self.digests[at]) == digest

    def with_page(self, name: str, hashes: np.ndarray, strings: dict[int, str],
                  slots: Slots | None = None, digest: int = 0) -> SiteCluster:
        """A new cluster: this one with one more page (its distinct path hashes; ``strings``
        names its paths; its content slots and digest). This one is left as it is (loaded
        models share their clusters)."""
        merged, inverse = np.unique(np.concatenate([self.hashes, hashes]), return_inverse=True)
        support = np.bincount(inverse.reshape(-1), minlength=len(merged))
        support[np.searchsorted(merged, self.hashes)] += self.support - 1
        grown = SiteCluster(self.id, self.group, [*self.pages, name], merged,
                            support.astype(np.int64),
                            slots=Slots.total([self.slots, slots or Slots.empty()]),
                            digests=np.sort(np.append(self.digests, np.uint64(digest))))
        template = set(grown.template_hashes.tolist())
        grown.names = {h: s for h, s in {**self.names, **strings}.items() if h in template}
        return grown

    def payload(self) -> dict[str, Any]:
        names = sorted(self.names.items())
        return {"id": self.id, "group": self.group, "pages": self.pages,
                "hashes": pack(self.hashes, "<u8"), "support": pack(self.support, "<u4"),
                "named": pack(np.array([h for h, _ in names], dtype=np.uint64), "<u8"),
                "names": [s for _, s in names], "digests": pack(self.digests, "<u8"),
                "slots": {"hashes": pack(self.slots.hashes, "<u8"),
                          **{k: pack(getattr(self.slots, k), "<u4")
                             for k in ("pages", "blocks", "kept")}}}

    @classmethod
    def from_payload(cls, data: dict[str, Any], where: str) -> SiteCluster:
        """The cluster ``payload`` saved; a ModelError naming the field that is wrong (``where``:
        whose fields these are, e.g. ``cluster 2's``)."""
        hashes = array(data, "hashes", "<u8", where).astype(np.uint64)
        support = array(data, "support", "<u4", where).astype(np.int64)
        named = array(data, "named", "<u8", where).astype(np.uint64).tolist()
        names = entries(data, "names", str, where)
        if len(hashes) != len(support) or len(named) != len(names):
            raise broken(f"{where} path fields are of different lengths")
        saved, inside = entry(data, "slots", dict, where), f"{where} slots'"
        slots = Slots(array(saved, "hashes", "<u8", inside).astype(np.uint64),
                      *(array(saved, k, "<u4", inside).astype(np.int64)
                        for k in ("pages", "blocks", "kept")))
        digests = array(data, "digests", "<u8", where).astype(np.uint64)
        if len({len(slots.hashes), len(slots.pages), len(slots.blocks), len(slots.kept)}) > 1:
            raise broken(f"{where} slot fields are of different lengths")
        for name, values, distinct in (("path", hashes, True), ("slot", slots.hashes, True),
                                       ("digest", digests, False)):
            rising = values[1:] > values[:-1] if distinct else values[1:] >= values[:-1]
            if not rising.all():
                raise broken(f"{where} {name} hashes are not sorted")
        return cls(entry(data, "id", int, where), entry(data, "group", str, where),
                   entries(data, "pages", str, where), hashes, support,
                   dict(zip(named, names, strict=True)), slots, digests)
