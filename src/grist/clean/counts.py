"""Per-element totals of a DOM from one walk: words under each element and, for a link test, the
links, matching links and linked words under it.

The noise rules ask such questions of many nested elements ("how many words under this
container?", "are half its links social ones?"); asking lexbor for each element's text again is
quadratic on nested markup (an ad container 4,000 deep, a list of 3,000 share links). One
post-order walk answers all of them. A word count here equals
``len(node.text(deep=True, separator=" ").split())``: the separator keeps words of neighbouring
text nodes apart, so the words of an element are the sum of its text nodes' words.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from grist.limits import Budget
from grist.whitespace import count_tokens

Node = Any  # a selectolax LexborNode
_CHECK_EVERY = 4096


def word_count(node: Node) -> int:
    """Visible words under ``node`` (its text split at whitespace)."""
    return count_tokens(node.text(deep=True, separator=" "))


class SubtreeCounts:
    """Totals under every element reachable from ``root`` (keyed by ``mem_id``).

    words:   words of the element's text. With ``is_link`` (a test of ``<a>`` elements):
    links:   ``<a>`` elements below it (not itself); ``targets``: those passing the test;
    linked:  words inside those ``<a>`` elements; ``target_links``: the passing links, in
             document order.
    """

    def __init__(self, root: Node, is_link: Callable[[Node], bool] | None = None,
                 budget: Budget | None = None) -> None:
        self.words: dict[int, int] = {}
        self.links: dict[int, int] = {}
        self.targets: dict[int, int] = {}
        self.linked: dict[int, int] = {}
        self.target_links: list[Node] = []
        if root is not None:
            self._walk(root, is_link, budget)

    def _walk(self, root: Node, is_link: Callable[[Node], bool] | None,
              budget: Budget | None) -> None:
        links_too = is_link is not None
        # A frame: node, next child, words, links, targets, linked words, is a target link.
        frames: list[list[Any]] = [[root, root.child, 0, 0, 0, 0, False]]
        steps = 0
        while frames:
            frame = frames[-1]
            child = frame[1]
            if child is not None:
                frame[1] = child.next
                tag = child.tag
                if tag == "-text":
                    frame[2] += count_tokens(child.text_content)
                elif tag and tag[0] not in "-!_":
                    target = links_too and tag == "a" and is_link(child)
                    if target:
                        self.target_links.append(child)
                    frames.append([child, child.child, 0, 0, 0, 0, target])
                steps += 1
                if budget is not None and steps % _CHECK_EVERY == 0:
                    budget.check("noise rules")
                continue
            frames.pop()
            node, _, words, links, targets, linked, target = frame
            key = node.mem_id
            self.words[key] = words
            if links_too:
                self.links[key], self.targets[key], self.linked[key] = links, targets, linked
            if frames:
                parent = frames[-1]
                parent[2] += words
                if links_too:
                    is_a = node.tag == "a"
                    parent[3] += links + is_a
                    parent[4] += targets + target
                    parent[5] += linked + (words if is_a else 0)


class WordCounter:
    """``word_count`` for many elements of one DOM that does not change meanwhile.

    The first element is counted by lexbor directly (most rules ask about one, the page's body, or
    none); from the second on, one walk counts every element at once, so many nested hits cost
    no more than one.
    """

    def __init__(self, root: Node, budget: Budget | None = None, direct: int = 1) -> None:
        self.root, self.budget, self.direct = root, budget, direct
        self.table: dict[int, int] | None = None

    def __call__(self, node: Node) -> int:
        if self.table is None:
            if self.direct > 0:
                self.direct -= 1
                return word_count(node)
            self.table = SubtreeCounts(self.root, budget=self.budget).words
        count = self.table.get(node.mem_id)
        return word_count(node) if count is None else count
