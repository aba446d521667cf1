"""Seed 001's DIV/TD blocks (§3.1) and the two DOM-tree steps of §3.2 built on them: the minimum
subtree that holds the page's content, and the punctuation filter with small-block merging.

A region is a DIV/TD-like container (``grist.segment.context.REGION_TAGS``); its text is the text
of the atomic blocks whose nearest enclosing container it is, so an outer TD keeps its own P text
while an inner DIV is a region of its own — the paper's "<TD><P></TD> and <DIV> are separate
blocks". Region ids are the ones ``segment()`` writes to ``Block.region`` (pre-order numbering,
0 = the page outside any container).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from grist.document import Block, Document
from grist.errors import GristError
from grist.segment.blocks import SegmentConfig
from grist.segment.context import REGION_TAGS
from grist.whitespace import count_tokens

_PUNCTUATION = re.compile(r"[.,;:!?\u3001\u3002\uff0c\uff01\uff1f\uff1b\uff1a\u061f\u060c]")


@dataclass(frozen=True)
class Region:
    """A DIV/TD container: its id, the id of the enclosing region and its tag."""

    id: int
    parent: int
    tag: str


def region_tree(doc: Document, config: SegmentConfig | None = None) -> dict[int, Region]:
    """Every region of the page keyed by the id ``segment()`` gives it (same walk, same skips)."""
    if doc.dom is None or doc.dom.root is None:
        raise GristError("region_tree() needs a parsed document; call grist.html.parse first")
    skip = (config or SegmentConfig()).skip_tags
    regions = {0: Region(0, -1, "page")}
    stack = [(doc.dom.root, 0)]
    while stack:
        node, parent = stack.pop()
        tag = node.tag
        if tag is None or tag[0] in "-_!" or tag in skip:  # comments, <?pi?>, dropped
            continue
        if tag in REGION_TAGS:
            region = Region(len(regions), parent, tag)
            regions[region.id] = region
            parent = region.id
        child = node.last_child
        while child is not None:
            if child.tag != "-text":
                stack.append((child, parent))
            child = child.prev
    return regions


def region_words(blocks: list[Block]) -> dict[int, int]:
    """Words of text each region holds directly (through its blocks)."""
    words: dict[int, int] = {}
    for block in blocks:
        words[block.region] = words.get(block.region, 0) + count_tokens(block.text)
    return words


def minimum_subtree(blocks: list[Block], tree: dict[int, Region], share: float = 0.8) -> set[int]:
    """Region ids of the deepest subtree still holding ``share`` of the page's words (§3.2).

    Starting at the page, descend into the child region that holds at least ``share`` of all
    words while there is one; the subtree where this stops is the minimum subtree.
    """
    totals = dict.fromkeys(tree, 0)
    for rid, count in region_words(blocks).items():
        totals[rid] = totals.get(rid, 0) + count
    children: dict[int, list[int]] = {}
    for rid in sorted(tree, reverse=True):  # pre-order ids: children come after their parent
        parent = tree[rid].parent
        if parent >= 0:
            totals[parent] += totals[rid]
            children.setdefault(parent, []).append(rid)
    need = share * totals[0]
    top = 0
    while True:
        deeper = [c for c in children.get(top, ()) if totals[c] >= need and totals[c] > 0]
        if not deeper:
            break
        top = deeper[0]
    inside, todo = set(), [top]
    while todo:
        rid = todo.pop()
        inside.add(rid)
        todo.extend(children.get(rid, ()))
    return inside


def punctuation_count(text: str) -> int:
    """Commas, periods and the other sentence punctuation marks in ``text`` (ASCII and CJK/Arabic)."""
    return len(_PUNCTUATION.findall(text))


def punctuation_units(blocks: list[Block], min_words: int = 10) -> list[list[int]]:
    """Regions in page order, small ones merged with the regions that follow them (§3.2).

    A region with fewer than ``min_words`` words is joined to the next ones until the group has
    ``min_words``; a short tail joins the last group. Each group is judged as one block.
    """
    words = region_words(blocks)
    order = list(dict.fromkeys(b.region for b in blocks))
    units: list[list[int]] = []
    current: list[int] = []
    count = 0
    for rid in order:
        current.append(rid)
        count += words[rid]
        if count >= min_words:
            units.append(current)
            current, count = [], 0
    if current:
        if units:
            units[-1].extend(current)
        else:
            units.append(current)
    return units


def unpunctuated_regions(blocks: list[Block], min_words: int = 10) -> set[int]:
    """Regions of the merged groups that hold no punctuation mark at all (noise, after ECON)."""
    text: dict[int, list[str]] = {}
    for block in blocks:
        text.setdefault(block.region, []).append(block.text)
    dropped: set[int] = set()
    for unit in punctuation_units(blocks, min_words):
        if not any(punctuation_count(t) for rid in unit for t in text[rid]):
            dropped.update(unit)
    return dropped
