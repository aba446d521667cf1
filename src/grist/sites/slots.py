"""Content slots: where on a site's pages its page method keeps text, and the vote that reads them.

The template rule (``grist.sites.evidence``) removes text a site repeats. Its counterpart works
on the places that hold *different* text on every page: a site puts its articles' paragraphs at
the same element path, inside the same classes, page after page. A slot is a block's element
path with the id/class words of its nearest ancestors, digits folded (``slot_key``: the footer's
``div>p`` is not the story's). A fitted cluster counts, for every slot that holds blocks on its
pages, the pages with such blocks, the blocks and how many of them the page method kept. When
the method drops a block of new text in a slot where it keeps nearly every block on the
cluster's other pages, the page is out of step with its own site, and the block is kept with
that reason: the vote restores what one page's features missed, never text the site repeats
(that is the template rule's), never a block the method set aside by its role (``decide`` in
``grist.sites.model``) and never on evidence from fewer than a few pages.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from grist.dedup.minhash import element_hashes
from grist.document import Block
from grist.sites.paths import text_step


def slot_key(block: Block) -> str:
    """Where a block sits: its element path and its ancestors' id/class words, digits folded
    (``post-1234`` and ``post-987`` are one slot)."""
    return f"{block.path}|{text_step(block.info.get('classes', ''), fold_digits=True)}"


def slot_hashes(blocks: Iterable[Block]) -> np.ndarray:
    """The 64-bit hash of every block's slot, in order."""
    return element_hashes(slot_key(b) for b in blocks)


def values_at(table: np.ndarray, columns: Sequence[np.ndarray], hashes: np.ndarray
              ) -> list[np.ndarray]:
    """Each column's value at each of ``hashes`` in the sorted distinct ``table`` (0 where a
    hash is not in it)."""
    if not len(table):
        return [np.zeros(len(hashes), dtype=np.int64) for _ in columns]
    at = np.minimum(np.searchsorted(table, hashes), len(table) - 1)
    found = table[at] == hashes
    return [np.where(found, column[at], 0).astype(np.int64) for column in columns]


def _empty() -> np.ndarray:
    return np.zeros(0, dtype=np.int64)


@dataclass(frozen=True)
class Slots:
    """Slots holding blocks, as sorted distinct 64-bit hashes, and per slot the pages with
    blocks there, the blocks, and the blocks the page method kept."""

    hashes: np.ndarray
    pages: np.ndarray
    blocks: np.ndarray
    kept: np.ndarray

    @classmethod
    def empty(cls) -> Slots:
        return cls(np.zeros(0, dtype=np.uint64), _empty(), _empty(), _empty())

    @classmethod
    def of_page(cls, blocks: Sequence[Block], hashes: np.ndarray | None = None) -> Slots:
        """One page's slots from its labelled blocks (blocks without a path are not counted);
        ``hashes``: their ``slot_hashes``, when the caller has them."""
        placed = np.fromiter((bool(b.path) for b in blocks), dtype=bool, count=len(blocks))
        if not placed.any():
            return cls.empty()
        every = slot_hashes(blocks) if hashes is None else hashes
        kept = np.fromiter((b.is_content for b in blocks), dtype=float, count=len(blocks))
        hashes, inverse = np.unique(every[placed], return_inverse=True)
        kept = kept[placed]
        inverse = inverse.reshape(-1)
        return cls(hashes, np.ones(len(hashes), dtype=np.int64),
                   np.bincount(inverse, minlength=len(hashes)).astype(np.int64),
                   np.bincount(inverse, weights=kept, minlength=len(hashes)).astype(np.int64))

    @classmethod
    def total(cls, parts: Sequence[Slots]) -> Slots:
        """The slots of several pages (or clusters) added up."""
        parts = [p for p in parts if len(p.hashes)]
        if not parts:
            return cls.empty()
        hashes, inverse = np.unique(np.concatenate([p.hashes for p in parts]),
                                    return_inverse=True)
        inverse = inverse.reshape(-1)

        def add(name: str) -> np.ndarray:
            values = np.concatenate([getattr(p, name) for p in parts])
            return np.bincount(inverse, weights=values, minlength=len(hashes)).astype(np.int64)

        return cls(hashes, add("pages"), add("blocks"), add("kept"))

    def lookup(self, hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Pages, blocks and kept blocks at each of ``hashes`` (0 for slots not seen)."""
        pages, blocks, kept = values_at(self.hashes, (self.pages, self.blocks, self.kept), hashes)
        return pages, blocks, kept


@dataclass(frozen=True)
class SlotVote:
    """The cluster's other pages on each block's slot: pages with blocks there, blocks, and
    blocks the page method kept."""

    pages: np.ndarray
    blocks: np.ndarray
    kept: np.ndarray

    def share(self) -> np.ndarray:
        """Share of the blocks in each slot the page method kept (0 where there are none)."""
        return np.divide(self.kept, self.blocks, out=np.zeros(len(self.blocks)),
                         where=self.blocks > 0)

    def restores(self, kept: np.ndarray, new_text: np.ndarray, min_share: float,
                 min_pages: int) -> np.ndarray:
        """Blocks to keep: dropped by the page method, text no other page of the cluster has at
        that path, and on at least ``min_pages`` other pages the method kept at least
        ``min_share`` of the blocks in the block's slot."""
        return (~kept & new_text & (self.pages >= min_pages) & (self.blocks > 0)
                & (self.kept >= min_share * self.blocks))

    def reason(self, i: int, cluster: int) -> str:
        return (f"content slot: the page method kept {int(self.kept[i])} of "
                f"{int(self.blocks[i])} blocks in this place on {int(self.pages[i])} other pages "
                f"of cluster {cluster}")
