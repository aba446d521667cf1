"""Label a page's blocks content/boilerplate by aligning its gold text to them (training data).

Each block's words are cut into word shingles (``n`` words; a block shorter than ``n`` is one
shingle) and looked up in the gold text. Words are runs of word characters, as the shingle metric
reads them (``grist.evaluate.metrics.shingle_tokens``), not whitespace-separated: some gold texts
put every element of a highlighted code line on a line of its own (``Entry\\n\\n.\\n\\nobjects``),
and a block ``Entry.objects`` holds the same words. Each matching shingle votes for the gold
position the block would start at; a start that at least ``min_match`` of the shingles vote for is
a candidate place. Text repeated on the page (a teaser of the lead, the headline in a "related"
box) and in the gold (job ads all saying "1 Week Ago") has several places, so the blocks labelled
content are those of the heaviest chain of non-overlapping spans in page order and gold order (a
word-weighted longest increasing subsequence): the alignment stays monotone and uses each gold word
once, as an LCS alignment does.
Coverage is the share of gold words the content blocks account for (word-level LCS), so words
the segmentation loses or the page never had show up there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from grist.document import BOILERPLATE, CONTENT, Block
from grist.evaluate.metrics import lcs_length, shingle_tokens


@dataclass(frozen=True)
class LabelConfig:
    """Shingle length, the share of a block's shingles that must occur in the gold, and how many
    gold places a repeated shingle (or block) may align to."""

    shingle: int = 3
    min_match: float = 0.5
    max_places: int = 50


@dataclass(frozen=True)
class Alignment:
    """Per-block labels (True = content), per-block match ratios and the gold coverage."""

    labels: list[bool]
    match: list[float]
    coverage: float
    gold_words: int


def _normalise(token: str) -> str:
    return token.lower()


def _shingles(tokens: Sequence[str], n: int) -> list[tuple[str, ...]]:
    if len(tokens) < n:
        return [tuple(tokens)] if tokens else []
    return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


def _gold_index(gold: list[str], n: int, cap: int) -> dict[tuple[str, ...], list[int]]:
    """Gold positions (at most ``cap``) of every shingle of length 1..n (short blocks match whole)."""
    index: dict[tuple[str, ...], list[int]] = {}
    for length in range(1, n + 1):
        for i in range(len(gold) - length + 1):
            places = index.setdefault(tuple(gold[i : i + length]), [])
            if len(places) < cap:
                places.append(i)
    return index


class _MaxTree:
    """Fenwick tree of prefix maxima: best chain weight (and its last candidate) ending at <= i."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.best = [(0.0, -1)] * (size + 1)

    def update(self, i: int, item: tuple[float, int]) -> None:
        i += 1
        while i <= self.size:
            if item[0] > self.best[i][0]:
                self.best[i] = item
            i += i & -i

    def query(self, i: int) -> tuple[float, int]:
        """Best item at positions < i."""
        out = (0.0, -1)
        while i > 0:
            if self.best[i][0] > out[0]:
                out = self.best[i]
            i -= i & -i
        return out


def _candidates(shingles: list[tuple[str, ...]], index: dict[tuple[str, ...], list[int]],
                min_match: float, keep: int) -> list[tuple[int, int, int]]:
    """(gold start, gold end, matching shingles) of the places the block may come from.

    Each matching shingle votes for the start it implies; votes a few words apart are one place,
    so words the gold merged or dropped (CleanEval's "andhotly") only shift a place a little.
    """
    votes = sorted(place - at for at, shingle in enumerate(shingles)
                   for place in index.get(shingle, ()))
    m = len(shingles)
    # a block of one shingle has no drift to absorb: each of its gold places is a place of its
    # own, even when they follow one another ("link link link", "Yes Yes" in a table)
    tolerance = max(2, m // 10) if m > 1 else 0
    groups: list[tuple[int, int, int]] = []
    first = 0
    for i in range(1, len(votes) + 1):
        if i == len(votes) or votes[i] - votes[i - 1] > tolerance:
            count = min(i - first, m)
            if count >= min_match * m:
                # The median vote is the start; the span is the block's length less the slack,
                # so a neighbour whose start drifted by a few words still follows it.
                start = votes[(first + i) // 2]
                groups.append((start, start + max(m - 1 - tolerance, 0), count))
            first = i
    groups.sort(key=lambda g: (-g[2], g[0]))
    return groups[:keep]


def align(blocks: Sequence[Block], gold: str, config: LabelConfig | None = None) -> Alignment:
    """Align ``gold`` to ``blocks`` and return their labels, match ratios and the coverage.

    Every block may come from several gold places (repeated text); a weighted chain of
    non-overlapping spans in page order and gold order picks one place or none per block
    (Fenwick-tree dynamic programme, O(k log g) for k candidate places and g gold words).
    """
    config = config or LabelConfig()
    n = config.shingle
    gold_tokens = [_normalise(t) for t in shingle_tokens(gold)]
    index = _gold_index(gold_tokens, n, config.max_places)
    size = len(gold_tokens) + 2
    tree = _MaxTree(size)
    owner: list[int] = []
    back: list[int] = []
    match: list[float] = []
    for number, block in enumerate(blocks):
        tokens = [_normalise(t) for t in shingle_tokens(block.text)]
        shingles = _shingles(tokens, n)
        places = _candidates(shingles, index, config.min_match, config.max_places) if shingles else []
        match.append(places[0][2] / len(shingles) if places else 0.0)
        scored = []
        for start, end, count in places:
            before = tree.query(max(start, 0))  # chains whose last span ends before this start
            weight = before[0] + len(tokens) * count / len(shingles)
            scored.append((min(max(end, 0), size - 1), weight, before[1]))
        for end, weight, previous in scored:  # insert after scoring: one place per block
            owner.append(number)
            back.append(previous)
            tree.update(end, (weight, len(owner) - 1))
    labels = [False] * len(blocks)
    at = tree.query(size)[1]
    while at >= 0:
        labels[owner[at]] = True
        at = back[at]
    kept = [t for b, keep in zip(blocks, labels, strict=True) if keep
            for t in shingle_tokens(b.text)]
    common = lcs_length([_normalise(t) for t in kept], gold_tokens)
    coverage = common / len(gold_tokens) if gold_tokens else 1.0
    return Alignment(labels, match, coverage, len(gold_tokens))


def apply_labels(blocks: Sequence[Block], alignment: Alignment) -> None:
    """Write an alignment's labels onto the blocks (``label``, ``score`` = match ratio)."""
    for block, keep, ratio in zip(blocks, alignment.labels, alignment.match, strict=True):
        block.label = CONTENT if keep else BOILERPLATE
        block.score = ratio
        block.reason = f"gold match {ratio:.2f}"
