"""Which keywords (``nav``, ``comment``, ``related`` ...) an element's id/class words hold.

A short keyword (three letters or fewer) must be a whole token or its plural, so ``ad`` does not
fire inside ``header``; a longer one may be part of a token (``sidebar`` in ``left-sidebar``);
some short ones may also start a token (``nav`` in ``navbar1``). Matching is done token by token
and cached per token: pages of different sites rarely share whole class strings, but they share
tokens (``container``, ``menu``, ``item``), so a batch of unseen pages still hits the cache.
Results are bit sets (Python ints), one bit per keyword, unpacked into bool rows with NumPy.

Sites name their parts in their own language as often as in English (``kommentarbereich``,
``publicidad``, ``fil-ariane``): ``grist/data/class_aliases.txt`` lists such words for each
keyword, and a token holding one sets that keyword's bit, so a German comment box reads like an
English one to every feature built on these bits.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache, reduce
from importlib import resources
from itertools import repeat
from operator import or_

import numpy as np


@lru_cache(maxsize=1)
def class_aliases() -> dict[str, tuple[str, ...]]:
    """Words of other languages for each English keyword (``grist/data/class_aliases.txt``); a
    trailing ``*`` lets the word sit inside a longer token."""
    text = resources.files("grist").joinpath("data", "class_aliases.txt").read_text("utf-8")
    aliases: dict[str, tuple[str, ...]] = {}
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            keyword, _, words = line.partition(":")
            aliases[keyword.strip()] = tuple(words.split())
    return aliases


def trie_pattern(words: Iterable[str]) -> str:
    """A regular expression matching any of ``words``, their shared prefixes factored out
    (``ad(?:s|vert)``): Python's ``re`` tries the alternatives of a flat ``a|b|...`` one by one
    at every position, so the factored form keeps a scan fast with hundreds of words."""
    trie: dict = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def emit(node: dict) -> str:
        ends = "" in node
        branches = [re.escape(char) + emit(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 and not ends else f"(?:{'|'.join(branches)})"
        return f"{body}?" if ends else body

    return emit(trie)


def _prefixes(word: str) -> list[str]:
    """``word``'s prefixes, itself included."""
    return [word[:k] for k in range(1, len(word) + 1)]


class Keywords:
    """A keyword list, its per-token matcher and the conversion of bit sets to rows.

    A keyword matches a token as described above, or through one of its ``class_aliases``."""

    def __init__(self, keywords: Sequence[str], starts: Sequence[str] = ()) -> None:
        self.keywords = tuple(keywords)
        self.short: dict[str, int] = {}  # token -> bits of the keywords (or aliases) it is
        for i, key in enumerate(self.keywords):
            if len(key) <= 3:
                for form in (key, key + "s"):
                    self.short[form] = self.short.get(form, 0) | 1 << i
        self.long = [(i, key) for i, key in enumerate(self.keywords) if len(key) > 3]
        aliases = class_aliases()
        for i, key in enumerate(self.keywords):
            for alias in aliases.get(key, ()):
                if alias.endswith("*"):
                    self.long.append((i, alias[:-1]))
                else:
                    self.short[alias] = self.short.get(alias, 0) | 1 << i
        # at each position of a token, the longest long keyword (or alias) starting there: the
        # others starting there are its prefixes, so the one found stands for all of them
        long_bits: dict[str, int] = {}
        for i, key in self.long:
            long_bits[key] = long_bits.get(key, 0) | 1 << i
        self.longest_at = re.compile(f"(?=({trie_pattern(long_bits) or '(?!)'}))")
        # long key -> bits of the long keys it starts with (itself included)
        self.prefix_bits = {key: reduce(or_, map(long_bits.get, _prefixes(key), repeat(0)))
                            for key in long_bits}
        self.starts = [(self.keywords.index(key), key) for key in starts]
        self.token_bits = lru_cache(maxsize=1 << 16)(self._token_bits)

    def _token_bits(self, token: str) -> int:
        """The bits of one lower-case token."""
        bits = self.short.get(token, 0)
        for i, key in self.starts:
            if token.startswith(key):
                bits |= 1 << i
        for key in self.longest_at.findall(token):  # one scan of the token
            bits |= self.prefix_bits[key]
        return bits

    def bits(self, tokens: Iterable[str]) -> int:
        """The bits of a string given as its lower-case tokens."""
        return reduce(or_, map(self.token_bits, tokens), 0)

    def rows(self, bit_sets: Sequence[int], width: int | None = None) -> np.ndarray:
        """Bool rows of ``width`` columns (default: one per keyword) from bit sets."""
        width = len(self.keywords) if width is None else width
        size = (width + 7) // 8
        packed = b"".join(map(int.to_bytes, bit_sets, repeat(size), repeat("little")))
        unpacked = np.unpackbits(np.frombuffer(packed, np.uint8).reshape(len(bit_sets), size),
                                 axis=1, bitorder="little")
        return unpacked[:, :width].astype(bool)
