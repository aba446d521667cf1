"""The URL Tree data structure (seed 003 §4): one tree per domain, one branch per URL key.

Each node on a document's branch counts the documents below it (``n_s``) and, per block hash,
how many of them contain the block (``c(b)``). A document is a leaf; it is inserted before its
blocks are judged, and judging walks from the leaf towards the root (``grist.stream.heuristics``).

Retention (§6) keeps memory bounded: at most ``max_docs`` documents per domain; documents older
than ``max_age_days`` (against the newest date seen in the domain, so a replay behaves as the live
run did) leave, but the ``keep_recent`` most recent always stay. A leaving document's counts are
taken back from every node of its branch, and empty nodes are removed.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from grist.stream.counts import HashCounts
from grist.stream.heuristics import Heuristic
from grist.stream.urlkey import branch

DAY = 86_400.0


@dataclass(frozen=True)
class Retention:
    """How many documents a domain keeps and for how long (the paper's values)."""

    max_docs: int = 10_000
    max_age_days: float = 14.0
    keep_recent: int = 100


@dataclass
class Node:
    """A prefix of URL keys: its documents' count ``docs`` (n_s) and block counts."""

    docs: int = 0
    counts: HashCounts = field(default_factory=HashCounts)
    children: dict[str, Node] = field(default_factory=dict)


@dataclass(frozen=True)
class DocRecord:
    """What the tree keeps of a document to take it out again: its key, response URL, the
    distinct hashes of its blocks and its date (seconds since the epoch, or None)."""

    key: str
    url: str
    hashes: np.ndarray
    date: float | None


@dataclass
class Domain:
    """The tree of one domain and its documents in arrival order."""

    root: Node = field(default_factory=Node)
    docs: OrderedDict[str, DocRecord] = field(default_factory=OrderedDict)
    newest: float | None = None


@dataclass(frozen=True)
class Selection:
    """The node a heuristic chose for a document and what it says about each block.

    path: the selected node's branch prefix (``()`` when the tree holds no other page of the
    domain: it has nothing to say); support: its
    n_s; c_max: the threshold in force; counts: c(b) there for each block (the document's own
    occurrence included).
    """

    path: tuple[str, ...]
    support: int
    c_max: int
    counts: np.ndarray

    @property
    def boilerplate(self) -> np.ndarray:
        return self.counts > self.c_max


class Forest:
    """All domains' URL Trees, the documents they hold and the response URLs they came from."""

    def __init__(self, retention: Retention | None = None) -> None:
        self.retention = retention or Retention()
        self.domains: dict[str, Domain] = {}
        self.by_url: dict[str, str] = {}

    def __len__(self) -> int:
        return sum(len(d.docs) for d in self.domains.values())

    def __contains__(self, key: str) -> bool:
        domain = self.domains.get(branch(key)[0])
        return domain is not None and key in domain.docs

    def get(self, key: str) -> DocRecord | None:
        domain = self.domains.get(branch(key)[0])
        return domain.docs.get(key) if domain else None

    def records(self) -> Iterator[DocRecord]:
        """Every document held, domain by domain, in arrival order."""
        for domain in self.domains.values():
            yield from domain.docs.values()

    def insert(self, record: DocRecord, retain: bool = True) -> list[str]:
        """Add a document (ignored when its key is already held); returns the keys of the
        documents retention removed (empty when ``retain`` is False)."""
        path = branch(record.key)
        domain = self.domains.setdefault(path[0], Domain())
        if record.key in domain.docs:
            return []
        hashes = record.hashes.tolist()
        node = domain.root
        for part in (None, *path[1:-1]):  # the root, then each inner node of the branch
            if part is not None:
                node = node.children.setdefault(part, Node())
            node.docs += 1
            node.counts.add(hashes, 1)
        domain.docs[record.key] = record  # the leaf is the document itself: no node of its own
        self.by_url[record.url] = record.key
        if record.date is not None and (domain.newest is None or record.date > domain.newest):
            domain.newest = record.date
        return self._retain(domain) if retain else []

    def remove(self, key: str) -> None:
        """Take a document out: its counts leave every node of its branch."""
        path = branch(key)
        domain = self.domains[path[0]]
        record = domain.docs.pop(key)
        if self.by_url.get(record.url) == key:
            del self.by_url[record.url]
        hashes = record.hashes.tolist()
        node, trail = domain.root, []
        for part in (None, *path[1:-1]):
            if part is not None:
                trail.append((node, part))
                node = node.children[part]
            node.docs -= 1
            node.counts.add(hashes, -1)
        for parent, part in reversed(trail):
            if parent.children[part].docs == 0:
                del parent.children[part]
        if not domain.docs:
            del self.domains[path[0]]

    def _retain(self, domain: Domain) -> list[str]:
        policy, gone = self.retention, []
        docs = domain.docs
        while len(docs) > policy.max_docs:
            gone.append(next(iter(docs)))
            self.remove(gone[-1])
        if domain.newest is not None:
            oldest_allowed = domain.newest - policy.max_age_days * DAY
            while len(docs) > policy.keep_recent:
                first = next(iter(docs.values()))
                if first.date is None or first.date >= oldest_allowed:
                    break
                gone.append(first.key)
                self.remove(first.key)
        return gone

    def select(self, key: str, hashes: np.ndarray, rule: Heuristic,
               virtual: bool) -> Selection:
        """The node ``rule`` selects for the document ``key`` and the counts of ``hashes`` there.

        ``virtual``: the document is not in the tree; it is counted as if it had been inserted
        (support and each of its blocks one more), so a page judged before or after insertion
        gets the same verdicts.
        """
        path = branch(key)
        domain = self.domains.get(path[0])
        extra = 1 if virtual else 0
        if domain is None or domain.root.docs + extra <= 1:  # no other page of the domain
            return Selection((), extra, rule.c_max, np.full(len(hashes), extra, dtype=np.int64))
        nodes = [domain.root]
        for part in path[1:-1]:
            child = nodes[-1].children.get(part)
            if child is None:
                break
            nodes.append(child)
        c_max = rule.threshold(domain.root.docs + extra)
        chosen = 0
        if not rule.at_domain:
            leaf_support = 1  # a URL key names one document
            if rule.qualifies(leaf_support):
                return Selection(path, 1, c_max, np.ones(len(hashes), dtype=np.int64))
            for depth in range(len(nodes) - 1, -1, -1):
                if rule.qualifies(nodes[depth].docs + extra):
                    chosen = depth
                    break
        node = nodes[chosen]
        counts = node.counts.get(hashes) + extra
        return Selection(path[: chosen + 1], node.docs + extra, c_max, counts)

    def nbytes(self) -> int:
        """Approximate memory of the counters and document records (for the benchmark)."""
        total = 0
        for domain in self.domains.values():
            stack = [domain.root]
            while stack:
                node = stack.pop()
                total += node.counts.nbytes() + 120 + 100 * len(node.children)
                stack.extend(node.children.values())
            total += sum(r.hashes.nbytes + 250 for r in domain.docs.values())
        return total
