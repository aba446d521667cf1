"""Tokens and character classes of all block texts at once, as NumPy arrays.

The texts are joined with ``\\n`` and turned into an array of code points; a lookup table of
character classes then gives every per-token and per-block count with array operations, so the
cost per token stays in C. Tokens are exactly those of ``str.split()``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

SPACE, ALNUM, UPPER, PUNCT, OPENER, CLOSER, STOP, DIGIT, DECIMAL = (1 << i for i in range(9))
OPENERS = "\"'([{“‘«¿¡"
CLOSERS = "\"')]}”’»"
SENTENCE_ENDS = ".?!;"  # seed 000 §3.1.2: full stops, question/exclamation marks, semicolons
_TABLE_SIZE = 0x800  # Latin, Greek, Cyrillic, Hebrew, Arabic: looked up in a table


def _flags_of(ch: str) -> int:
    """Class bits of one character."""
    bits = 0
    if ch.isspace():
        bits |= SPACE
    if ch.isalnum():
        bits |= ALNUM
    if ch.isdigit():
        bits |= DIGIT
    if ch.isdecimal():  # what the regex ``\d`` matches
        bits |= DECIMAL
    if ch.isupper():
        bits |= UPPER
    if unicodedata.category(ch).startswith("P"):
        bits |= PUNCT
    if ch in OPENERS:
        bits |= OPENER
    if ch in CLOSERS:
        bits |= CLOSER
    if ch in SENTENCE_ENDS:
        bits |= STOP
    return bits


@lru_cache(maxsize=1)
def _table() -> np.ndarray:
    """Class bits of the code points below ``_TABLE_SIZE`` (built once, in milliseconds)."""
    return np.fromiter((_flags_of(chr(i)) for i in range(_TABLE_SIZE)), np.uint16, _TABLE_SIZE)


def char_flags(codes: np.ndarray) -> np.ndarray:
    """Class bits of an array of code points; those beyond the table are classified once per
    distinct value on the page (curly quotes, dashes, CJK ...)."""
    flags = _table()[np.minimum(codes, _TABLE_SIZE - 1)]
    beyond = codes >= _TABLE_SIZE
    if beyond.any():
        values, where = np.unique(codes[beyond], return_inverse=True)
        flags[beyond] = np.array([_flags_of(chr(v)) for v in values], np.uint16)[where]
    return flags


@dataclass(frozen=True)
class Tokens:
    """Per-token arrays (one entry per ``str.split()`` token of the joined texts) and per-block
    character counts."""

    joined: str
    owner: np.ndarray  # block index of each token
    start: np.ndarray  # offset of each token in ``joined``
    length: np.ndarray
    word: np.ndarray  # holds a letter or digit (seed 000 §3.1.2)
    digit: np.ndarray  # holds a digit
    first_upper: np.ndarray  # first character after opening quotes/brackets is upper-case
    sentence_end: np.ndarray  # last character before closing quotes/brackets ends a sentence
    counts: np.ndarray  # tokens per block
    punctuation: np.ndarray  # punctuation characters per block
    full_stops: np.ndarray  # "." per block
    bars: np.ndarray  # "|" per block


def _per_token_any(token_of_char: np.ndarray, mask: np.ndarray, m: int) -> np.ndarray:
    return np.bincount(token_of_char[mask], minlength=m) > 0


@dataclass(frozen=True)
class Chars:
    """The code points of ``texts`` joined with ``\\n``, their class bits and the text of each."""

    joined: str
    codes: np.ndarray
    flags: np.ndarray
    lengths: np.ndarray  # characters per text
    block: np.ndarray  # index of the text each code point belongs to (a separator: the one before)

    def per_block(self, mask: np.ndarray) -> np.ndarray:
        """How many of each text's characters (or separators after it) are in ``mask``."""
        return np.bincount(self.block[mask], minlength=len(self.lengths)).astype(float)


def chars_of(texts: Sequence[str]) -> Chars:
    """Join ``texts`` and classify every character, in one pass over arrays."""
    joined = "\n".join(texts)
    codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), np.uint32)
    lengths = np.fromiter(map(len, texts), np.int64, len(texts))
    block = np.repeat(np.arange(len(texts), dtype=np.int32), lengths + 1)[: len(codes)]
    return Chars(joined, codes, char_flags(codes), lengths, block)


def tokenize(texts: Sequence[str]) -> Tokens:
    """Tokenise all ``texts`` in one pass and classify their tokens and characters."""
    n = len(texts)
    chars = chars_of(texts)
    joined, codes, flags, lengths = chars.joined, chars.codes, chars.flags, chars.lengths
    solid = (flags & SPACE) == 0
    before = np.zeros_like(solid)
    before[1:] = solid[:-1]
    after = np.zeros_like(solid)
    after[:-1] = solid[1:]
    start = np.flatnonzero(solid & ~before).astype(np.int32)  # 4-byte offsets (pages < 2 GB)
    end = np.flatnonzero(solid & ~after).astype(np.int32)
    m = len(start)
    token_of_char = np.cumsum(solid & ~before, dtype=np.int32) - 1  # 4 bytes a character
    del before, after
    in_token = solid

    block_starts = np.cumsum(lengths + 1) - (lengths + 1)
    owner = np.searchsorted(block_starts, start, side="right") - 1
    per_block = chars.per_block
    word = _per_token_any(token_of_char, in_token & ((flags & ALNUM) != 0), m)
    digit = _per_token_any(token_of_char, in_token & ((flags & DIGIT) != 0), m)
    # first character that is not an opening quote/bracket, per token (the per-character index
    # arrays are let go as soon as they are used: a page may hold 20 million characters)
    body = np.flatnonzero(in_token & ((flags & OPENER) == 0))
    first_body = np.zeros(m, bool)
    if body.size:
        tok = token_of_char[body]
        is_first = np.concatenate(([True], tok[1:] != tok[:-1]))
        first_body[tok[is_first]] = (flags[body[is_first]] & UPPER) != 0
        del tok, is_first
    del body
    # last character that is not a closing quote/bracket, per token
    core = np.flatnonzero(in_token & ((flags & CLOSER) == 0))
    ends = np.zeros(m, bool)
    if core.size:
        tok = token_of_char[core]
        is_last = np.concatenate((tok[1:] != tok[:-1], [True]))
        ends[tok[is_last]] = (flags[core[is_last]] & STOP) != 0
        del tok, is_last
    del core
    return Tokens(
        joined=joined,
        owner=owner,
        start=start,
        length=end - start + 1,
        word=word,
        digit=digit,
        first_upper=first_body,
        sentence_end=ends,
        counts=np.bincount(owner, minlength=n),
        punctuation=per_block((flags & PUNCT) != 0),
        full_stops=per_block(codes == ord(".")),
        bars=per_block(codes == ord("|")),
    )
