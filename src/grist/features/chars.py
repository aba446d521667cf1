"""Tokens and character classes of all block texts at once, as NumPy arrays.

The texts are joined with ``\\n`` and every character gets class bits from a lookup table, so
per-token and per-block counts are array operations whose cost per token stays in C. Tokens
are those of ``str.split()``, except that each ideograph (Han, Hiragana, Katakana: scripts
written without spaces) is a token of its own. Memory stays a few bytes per character: code
points are looked up a chunk at a time, and no array holds one 8-byte index per character (a
page may hold 20 million characters).
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

(SPACE, ALNUM, UPPER, PUNCT, OPENER, CLOSER, STOP, DIGIT, DECIMAL, FULL_STOP, BAR,
 UNDERSCORE, IDEOGRAPH) = (1 << i for i in range(13))
# Scripts written without spaces between words, where one character is about one word: Han
# (CJK unified ideographs, extension A, compatibility, extensions B-F), Hiragana and Katakana
# (full and half width). Each such character is a token of its own.
IDEOGRAPHS = ((0x3040, 0x30FF), (0x31F0, 0x31FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF),
              (0xF900, 0xFAFF), (0xFF66, 0xFF9F), (0x20000, 0x2FA1F))
_CLASS = "".join(f"{chr(a)}-{chr(b)}" for a, b in IDEOGRAPHS)
_IDEOGRAPH = f"(?=\\w)[{_CLASS}]"  # the letters of those blocks (not their marks and dots)
# the tokens ``token_edges`` finds: an ideograph with the punctuation after it, or a run of
# other non-space characters
TOKEN_RE = re.compile(f"{_IDEOGRAPH}[^\\s\\w]*|(?:(?!{_IDEOGRAPH})\\S)+")
OPENERS = "\"'([{“‘«¿¡"
CLOSERS = "\"')]}”’»"
# seed 000 §3.1.2: full stops, question/exclamation marks, semicolons; and the same marks of
# other scripts: CJK (。！？；), Arabic (؟), Urdu (۔), Devanagari (।, ॥), Ethiopic (።), Armenian (։)
SENTENCE_ENDS = ".?!;\u3002\uff01\uff1f\uff1b\u061f\u06d4\u0964\u0965\u1362\u0589"
_NOT_UPPER = 0xFFFF ^ UPPER  # every class bit but UPPER (a positive uint16 mask)
_UNKNOWN = 0xFFFF  # a code point not classified yet (class bits take 13 bits)
CHUNK = 1 << 20  # characters turned into code points at a time
_VECTOR_STEPS = 8  # leading quotes/brackets skipped with array steps; longer runs by str.strip


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
    bits |= {".": FULL_STOP, "|": BAR, "_": UNDERSCORE}.get(ch, 0)
    if ch.isalnum() and any(a <= ord(ch) <= b for a, b in IDEOGRAPHS):
        bits |= IDEOGRAPH
    return bits


@lru_cache(maxsize=1)
def _table() -> np.ndarray:
    """Class bits of every code point (2 bytes each), ``_UNKNOWN`` until ``char_flags`` first
    meets it: a process classifies each character it sees once."""
    return np.full(sys.maxunicode + 1, _UNKNOWN, np.uint16)


def char_flags(codes: np.ndarray) -> np.ndarray:
    """Class bits of an array of code points, read from ``_table`` in one lookup; code points
    it does not hold yet are classified (once per distinct value) and added."""
    table = _table()
    flags = table.take(codes)
    if flags.size and flags.max() == _UNKNOWN:
        unknown = flags == _UNKNOWN
        new = np.unique(codes[unknown]).tolist()
        table[new] = np.fromiter((_flags_of(chr(v)) for v in new), np.uint16, len(new))
        flags[unknown] = table.take(codes[unknown])
    return flags


def _code_points(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)


@dataclass(frozen=True)
class Chars:
    """The texts joined with ``\\n``, the class bits of every character, and where each text
    starts in the joined string."""

    joined: str
    flags: np.ndarray  # uint16 class bits per character
    starts: np.ndarray  # offset of each text in ``joined``

    def bit_counts(self, bits: Sequence[int]) -> np.ndarray:
        """How many of each text's characters have each of the class ``bits`` (one row per
        bit): the characters' ``bit`` summed per text by one ``reduceat`` (a text's characters
        run from its start to the next text's), then divided by ``bit``; no positions listed."""
        counts = np.zeros((len(bits), len(self.starts)))
        # texts starting at the end of ``joined`` are empty and the last ones: they stay 0
        starts = self.starts[: self.starts.searchsorted(len(self.flags))]
        if len(starts):
            for row, bit in zip(counts, bits, strict=True):
                sums = np.add.reduceat(self.flags & bit, starts, dtype=np.int64)
                row[: len(starts)] = sums // bit
        return counts

    @cached_property
    def lower(self) -> Chars:
        """The lower-cased texts, with every class bit but ``UPPER`` (which lower-casing
        changes): built once, read by both the shallow and the context features.

        Lower-casing the joined texts lower-cases each text apart (the ``\\n`` between them
        ends a word for the final-sigma rule), and a character lower-cased into one keeps all
        its other class bits (tests/test_context_arrays.py), so those are reused unless
        lower-casing changed the length (U+0130)."""
        lower = self.joined.lower()
        if len(lower) == len(self.joined):
            return Chars(lower, self.flags & _NOT_UPPER, self.starts)
        ends = np.append(self.starts[1:] - 1, len(self.joined)).tolist()
        chars = chars_of([self.joined[a:b].lower() for a, b in zip(self.starts.tolist(), ends)])
        return Chars(chars.joined, chars.flags & _NOT_UPPER, chars.starts)

    def count_at(self, positions: np.ndarray) -> np.ndarray:
        """How many of the sorted character ``positions`` fall in each text."""
        return np.diff(np.append(np.searchsorted(positions, self.starts), len(positions)))

    def block_of(self, positions: np.ndarray) -> np.ndarray:
        """Index of the text holding each character position."""
        return np.searchsorted(self.starts, positions, side="right") - 1

    def codes_at(self, positions: np.ndarray) -> np.ndarray:
        """Code points at sorted ``positions``, read a chunk of the text at a time."""
        out = np.zeros(len(positions), np.int64)
        for a in range(0, len(self.joined), CHUNK):
            lo, hi = np.searchsorted(positions, (a, a + CHUNK))
            if lo < hi:
                out[lo:hi] = _code_points(self.joined[a : a + CHUNK])[positions[lo:hi] - a]
        return out


def chars_of(texts: Sequence[str]) -> Chars:
    """Join ``texts`` and classify every character, a chunk of code points at a time."""
    joined = "\n".join(texts)
    flags = np.empty(len(joined), np.uint16)
    for a in range(0, len(joined), CHUNK):
        flags[a : a + CHUNK] = char_flags(_code_points(joined[a : a + CHUNK]))
    lengths = np.fromiter(map(len, texts), np.int64, len(texts))
    return Chars(joined, flags, np.cumsum(lengths + 1) - (lengths + 1))


_IN_IDEOGRAPH_BLOCK = re.compile(f"[{_CLASS}]")


def may_hold_ideographs(text: str) -> bool:
    """False when ``text`` surely holds no ideograph: it is ASCII (known without reading it) or
    has no character in their Unicode blocks."""
    return not text.isascii() and _IN_IDEOGRAPH_BLOCK.search(text) is not None


def split_words(text: str) -> list[str]:
    """The tokens of ``text`` as ``tokenize`` cuts them (``text.split()`` unless it holds
    ideographs)."""
    return TOKEN_RE.findall(text) if may_hold_ideographs(text) else text.split()


def token_edges(flags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where tokens start and end (their last character) among characters of class bits
    ``flags``, as ``TOKEN_RE`` cuts them: runs of non-space characters, except that each
    ideograph starts a token of its own, which takes the punctuation after it."""
    solid = (flags & SPACE) == 0
    if not flags.size or flags.max() < IDEOGRAPH:  # (the highest class bit)
        return run_edges(solid)  # str.split()'s tokens
    ideograph = (flags & IDEOGRAPH) != 0
    n = len(flags)
    # the last space, word character or ideograph at or before each position: the token there
    # is led by an ideograph if that character is one
    last = np.where((flags & (SPACE | ALNUM | UNDERSCORE)) != 0, np.arange(n, dtype=np.int32), -1)
    np.maximum.accumulate(last, out=last)
    led = (last >= 0) & ideograph[np.maximum(last, 0)]
    word = (flags & (ALNUM | UNDERSCORE)) != 0
    start = solid.copy()
    start[1:] &= ~solid[:-1] | ideograph[1:] | (word[1:] & led[:-1])
    end = solid.copy()
    end[:-1] &= ~solid[1:] | start[1:]
    return np.flatnonzero(start).astype(np.int32), np.flatnonzero(end).astype(np.int32)


# A token never runs across a whitespace character or the start of an ideograph: a text may be
# cut before either (grist.whitespace.space_chunks) and its pieces tokenized apart.
TOKEN_CUT = re.compile(f"\\s|{_IDEOGRAPH}")


def run_edges(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each run of True values in ``mask`` begins and ends (its last position), as
    4-byte offsets (pages < 2 GB): ``mask`` framed by False changes value at a run's start
    and just after its end, so the changes alternate between the two."""
    framed = np.zeros(len(mask) + 2, bool)
    framed[1:-1] = mask
    changes = np.flatnonzero(framed[1:] != framed[:-1])
    return changes[0::2].astype(np.int32), (changes[1::2] - 1).astype(np.int32)


@dataclass(frozen=True)
class Tokens:
    """Per-token arrays (one entry per token of the joined texts, ``token_edges``) and per-block
    character counts."""

    chars: Chars  # the joined texts and their characters' class bits
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


def _skip(chars: Chars, at: np.ndarray, limit: np.ndarray, bit: int, forward: bool
          ) -> np.ndarray:
    """Per token, the position of the first character from ``at`` (moving forward or back, not
    past ``limit``) without ``bit`` set; -1 where every character has it."""
    flags, step = chars.flags, 1 if forward else -1
    pos = at.copy()
    pending = np.flatnonzero(flags[pos] & bit)
    for _ in range(_VECTOR_STEPS):
        if not pending.size:
            return pos
        pos[pending] += step
        past = (pos[pending] - limit[pending]) * step > 0
        pos[pending[past]] = -1
        pending = pending[~past]
        pending = pending[(flags[pos[pending]] & bit) != 0]
    marks = OPENERS if forward else CLOSERS
    for k in pending.tolist():  # long runs of quotes or brackets: rare, and linear in C
        a, b = (int(pos[k]), int(limit[k]) + 1) if forward else (int(limit[k]), int(pos[k]) + 1)
        token = chars.joined[a:b]
        kept = token.lstrip(marks) if forward else token.rstrip(marks)
        pos[k] = -1 if not kept else (b - len(kept) if forward else a + len(kept) - 1)
    return pos


def tokenize(texts: Sequence[str]) -> Tokens:
    """Tokenise all ``texts`` in one pass and classify their tokens and characters."""
    n = len(texts)
    chars = chars_of(texts)
    flags = chars.flags
    start, end = token_edges(flags)
    counts = chars.count_at(start)
    owner = np.repeat(np.arange(n, dtype=np.int32), counts)
    # the class bits found in each token: its characters run from its start to the next
    # token's (whitespace is neither ALNUM nor DIGIT)
    held = np.bitwise_or.reduceat(flags, start) if start.size else np.zeros(0, np.uint16)
    body = _skip(chars, start, end, OPENER, forward=True)
    core = _skip(chars, end, start, CLOSER, forward=False)
    punctuation, full_stops, bars = chars.bit_counts((PUNCT, FULL_STOP, BAR))
    return Tokens(
        chars=chars,
        owner=owner,
        start=start,
        length=end - start + 1,
        word=(held & ALNUM) != 0,
        digit=(held & DIGIT) != 0,
        first_upper=(body >= 0) & ((flags[body] & UPPER) != 0),
        sentence_end=(core >= 0) & ((flags[core] & STOP) != 0),
        counts=counts,
        punctuation=punctuation,
        full_stops=full_stops,
        bars=bars,
    )
