"""Shallow text, density, structure and context features of blocks, one NumPy row per block.

The features are those of seed 000 §3.1 and §5 (after Kohlschütter et al., WSDM 2010) plus seed
001's punctuation count. Definitions (each tested on hand-made pages in tests/test_features.py):

- a *token* is a whitespace-delimited item; a *word* is a token holding at least one letter or
  digit (seed 000 §3.1.2).
- ``avg_sentence_length``: words per sentence; a sentence ends at a token ending in ``.``, ``?``,
  ``!`` or ``;`` (closing quotes/brackets allowed after it), and an unterminated tail counts as one.
- ``upper_words``: words whose first letter is upper-case (this includes all-upper-case words).
- ``full_stop_ratio``: ``.`` characters per word. ``date_tokens``: tokens that look like a date or
  time (month/day names, ``12:30``, ``2008-01-23``, ``23/01/2008`` with a day and a month in
  range, so not a version ``2.0.12``, years 1900-2099).
- ``link_density``: anchor tokens / tokens (seed 000); ``link_char_density``: anchor characters /
  characters (what jusText uses).
- ``text_density``: Kohlschütter's reading of seed 000 §3.1.3 — wrap the block at 80 columns;
  with one line it is the word count, else the words of all lines but the last per such line.
- ``punctuation``: punctuation characters in the block (seed 001 §3.2).
- ``tag_h1``..``tag_h6``, ``tag_p``, ``tag_div``: the block-level element closing the block;
  ``tag_a``: the block holds anchor text (links never close a block).
- ``position`` (block index), ``relative_position`` (index / (blocks - 1)).
- ``num_words_quotient``, ``text_density_quotient``: current / previous block (seed 000 §5; a
  missing previous block counts as 0 and denominators are at least 1); ``next_*`` are the same
  quotients of the following block, and ``prev_*``/``next_*`` the neighbours' raw values.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from itertools import repeat
from operator import attrgetter, contains, eq, or_
from pathlib import Path

import numpy as np

from grist.document import Block
from grist.features.chars import PUNCT, Tokens, chars_of, split_words, token_edges, tokenize
from grist.features.matrix import FeatureMatrix, side_by_side
from grist.features.stopwords import AUTO, guess_language, load_stopwords
from grist.features.tokens import DAY_WORDS, MONTH_WORDS, alternation

LINE_WIDTH = 80  # Kohlschütter et al.: text is word-wrapped at 80 characters
TOKEN_CHUNK = 100_000  # tokens lower-cased and looked up at a time
LANGUAGE_SAMPLE = 1_000_000  # characters the stop-word language is guessed from

_HEADINGS = ("tag_h1", "tag_h2", "tag_h3", "tag_h4", "tag_h5", "tag_h6")
FEATURE_NAMES: tuple[str, ...] = (
    "num_chars",
    "num_tokens",
    "num_words",
    "avg_word_length",
    "num_sentences",
    "avg_sentence_length",
    "upper_words",
    "upper_ratio",
    "full_stop_ratio",
    "date_tokens",
    "vertical_bars",
    "link_density",
    "link_char_density",
    "text_density",
    "stopword_density",
    "punctuation",
    "copyright",
    *_HEADINGS,
    "tag_p",
    "tag_div",
    "tag_a",
    "depth",
    "position",
    "relative_position",
    "num_words_quotient",
    "text_density_quotient",
    "next_num_words_quotient",
    "next_text_density_quotient",
    "prev_num_words",
    "next_num_words",
    "prev_text_density",
    "next_text_density",
    "prev_link_density",
    "next_link_density",
)

_DATE_WORDS = alternation(MONTH_WORDS + DAY_WORDS)
_DATE_WORD_SET = frozenset(MONTH_WORDS + DAY_WORDS) | {"a.m.", "p.m."}
_MONTH_NUMBER, _DAY_NUMBER = r"(?:0?[1-9]|1[0-2])", r"(?:0?[1-9]|[12]\d|3[01])"
_DATE = re.compile(  # a token that looks like a date or time
    r"[(\[]?(?:"
    rf"(?i:{_DATE_WORDS})\.?"
    r"|\d{1,2}:\d{2}(?::\d{2})?(?i:am|pm)?"
    r"|\d{4}-\d{1,2}-\d{1,2}(?:T[\d:.+Z-]*)?"
    # day and month either way round, one separator, a year of 2 or 4 digits: not a version
    # number (2.0.12), a score (0-16.855) or a time with dots (16.40.26)
    rf"|(?:{_MONTH_NUMBER}(?P<sep>[./-]){_DAY_NUMBER}|{_DAY_NUMBER}(?P<sep2>[./-]){_MONTH_NUMBER})"
    r"(?:(?P=sep)|(?P=sep2))\d{2}(?:\d{2})?"
    r"|(?:19|20)\d{2}"
    r"|(?i:a\.m\.|p\.m\.)"
    r")[)\],.;:]*"
)
_DATE_PUNCTUATION = "()[],.;:"  # stripped off a token before it is looked up as a date word
_STOP_CODE, _DATE_CODE = 1, 2  # per-token bits of ``_token_codes``


def _bincount(owner: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """Sum a per-token flag (or value) per block."""
    return np.bincount(owner, weights=values.astype(float), minlength=n)


def _wrapped_density(line_end: np.ndarray, words: np.ndarray, first: int, stop: int) -> float:
    """Kohlschütter's text density of the block made of tokens ``first..stop-1``.

    ``line_end[k]``: the token after the line that starts at token k; ``words[k]``: words of the
    page's first k tokens. The loop runs per line, reading the arrays as Python ints.
    """
    next_line, words_before = line_end.item, words.item
    lines, start = 0, first
    while (end := next_line(start)) < stop:
        lines, start = lines + 1, end
    if lines == 0:
        return float(words_before(stop) - words_before(first))
    return float(words_before(start) - words_before(first)) / lines


def text_densities(num_chars: np.ndarray, num_words: np.ndarray, token_lengths: np.ndarray,
                   word_flags: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Text density per block from its characters and words; only blocks longer than a line
    (``num_chars``) are wrapped, the others' density is their word count.

    A line takes as many tokens as fit in 80 columns (a token and one space each), at least
    one; where a line starting at each token ends is found for all tokens at once.
    """
    density = num_words.astype(float)
    wrapped = np.flatnonzero(num_chars > LINE_WIDTH)
    if not wrapped.size:
        return density
    ends = np.cumsum(counts)
    # 4-byte running sums (pages < 2 GB): a page may hold millions of tokens
    widths = np.zeros(len(token_lengths) + 1, np.int32)
    np.cumsum(token_lengths + 1, dtype=np.int32, out=widths[1:])
    line_end = widths.searchsorted(widths[:-1] + (LINE_WIDTH + 1), side="right")
    line_end -= 1
    np.maximum(line_end, np.arange(1, len(token_lengths) + 1), out=line_end)
    del widths
    words = np.zeros(len(word_flags) + 1, np.int32)
    np.cumsum(word_flags, dtype=np.int32, out=words[1:])
    stops = ends[wrapped].tolist()
    firsts = (ends - counts)[wrapped].tolist()
    density[wrapped] = [_wrapped_density(line_end, words, first, stop)
                        for first, stop in zip(firsts, stops, strict=True)]
    return density


@lru_cache(maxsize=8)
def _word_codes(stop: frozenset[str]) -> dict[str, int]:
    """``_STOP_CODE`` for every stop word plus ``_DATE_CODE`` for every date word that
    stripping leaves as it is (built once per list)."""
    codes = dict.fromkeys(stop, _STOP_CODE)
    for word in _DATE_WORD_SET:
        if word.strip(_DATE_PUNCTUATION) == word:
            codes[word] = codes.get(word, 0) | _DATE_CODE
    return codes


def _token_codes(lowered: list[str], stop: frozenset[str], edged: np.ndarray) -> np.ndarray:
    """Per lower-cased token, ``_STOP_CODE`` if it is a stop word plus ``_DATE_CODE`` if it is
    a date word once stripped of brackets and punctuation: every token is looked up once, for
    both; stripping can only change the tokens ``edged`` (indices of those with punctuation
    first or last), so only they are stripped and looked up again."""
    codes = np.fromiter(map(_word_codes(stop).get, lowered, repeat(0)), np.uint8, len(lowered))
    picked = edged.tolist()
    stripped = map(str.strip, map(lowered.__getitem__, picked), repeat(_DATE_PUNCTUATION))
    dated = np.fromiter(map(_DATE_WORD_SET.__contains__, stripped), bool, len(picked))
    codes[edged[dated]] |= _DATE_CODE
    return codes


def _date_tokens(joined: str, start: np.ndarray, length: np.ndarray, named: np.ndarray,
                 digit: np.ndarray) -> np.ndarray:
    """Which tokens (at ``start``, of ``length``, in ``joined``) look like a date or time; the
    pattern only runs on plausible candidates: digits, or ``named`` (a date word once
    stripped)."""
    # a date or time with digits has at least 4 characters
    candidates = (digit & (length >= 4)) | named
    found = np.zeros(len(named), bool)
    chosen = np.flatnonzero(candidates)
    match = _DATE.fullmatch
    found[chosen] = [match(joined, a, a + size) is not None
                     for a, size in zip(start[chosen].tolist(), length[chosen].tolist(), strict=True)]
    return found


def _lowered(lower: str, tokens: int, joined: str, flags: np.ndarray | None = None) -> list[str]:
    """The tokens of ``lower``, which is ``joined`` lower-cased and holds ``tokens`` tokens:
    those of ``split_words`` on it. ``flags``: ``lower``'s class bits, when known.

    Lower-casing keeps every character's whitespace-ness, and ``split_words`` only ever cuts
    ``str.split()``'s tokens further: when ``str.split()`` finds ``tokens`` tokens it finds
    them all. Else (ideographs) they are cut by ``token_edges``, which on a page of text is
    faster than ``split_words``'s pattern.
    """
    lowered = lower.split()
    if len(lowered) == tokens:
        return lowered
    start, end = token_edges(chars_of([lower]).flags if flags is None else flags)
    if len(start) == tokens:
        return list(map(lower.__getitem__, map(slice, start.tolist(), (end + 1).tolist())))
    return [t.lower() for t in split_words(joined)]  # lower-casing merged or split a token


def _lowered_chunks(tok: Tokens) -> Iterator[tuple[slice, list[str]]]:
    """The lower-cased tokens, ``TOKEN_CHUNK`` at a time, with the slice of the token arrays
    they cover: a list of every word of a 20 MB page would take hundreds of megabytes. A page
    of one chunk reads the lower-cased text the context features read too (``Chars.lower``)."""
    m = len(tok.start)
    if m <= TOKEN_CHUNK:
        lower = tok.chars.lower
        yield slice(0, m), _lowered(lower.joined, m, tok.chars.joined, lower.flags)
        return
    for first in range(0, m, TOKEN_CHUNK):
        last = min(first + TOKEN_CHUNK, m) - 1
        piece = tok.chars.joined[int(tok.start[first]) : int(tok.start[last] + tok.length[last])]
        yield slice(first, last + 1), _lowered(piece.lower(), last - first + 1, piece)


def stopword_language(texts: Sequence[str]) -> str:
    """The bundled stop-word language covering most of the texts' tokens (what ``"auto"`` picks),
    judged on their first ``LANGUAGE_SAMPLE`` characters."""
    sample = "\n".join(texts)[:LANGUAGE_SAMPLE]
    return guess_language(_lowered(sample.lower(), len(split_words(sample)), sample))


def _attribute(blocks: Sequence[Block], name: str, n: int) -> np.ndarray:
    """Attribute ``name`` of every block, as floats (read in C: no Python frame per block)."""
    return np.fromiter(map(attrgetter(name), blocks), float, n)


def _quotient(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    return numerator / np.maximum(denominator, 1.0)


def _shift(values: np.ndarray, step: int) -> np.ndarray:
    """``values`` of the previous (step=1) or next (step=-1) block; 0 beyond the page's edges."""
    out = np.zeros_like(values)
    if step > 0:
        out[step:] = values[:-step]
    else:
        out[:step] = values[-step:]
    return out


def block_features(
    blocks: Sequence[Block],
    stopwords: str | Path | Iterable[str] = "en",
    tokens: Tokens | None = None,
) -> FeatureMatrix:
    """Compute the features of every block (columns: ``FEATURE_NAMES``).

    ``stopwords`` is a language code, ``"auto"`` (the bundled list covering most of the page's
    tokens, ``stopword_language``), a file path or a set of words. ``tokens``: the blocks'
    ``tokenize`` result, when the caller has it already.
    """
    n = len(blocks)
    if n == 0:
        return FeatureMatrix(FEATURE_NAMES, np.zeros((0, len(FEATURE_NAMES))))
    texts = [b.text for b in blocks]
    tok = tokenize(texts) if tokens is None else tokens
    owner, m = tok.owner, len(tok.owner)
    if isinstance(stopwords, str) and stopwords == AUTO:
        stopwords = stopword_language(texts)
    stop = load_stopwords(stopwords, extended=True)
    stop_flags, date_flags = np.zeros(m, bool), np.zeros(m, bool)
    # the tokens with punctuation first or last: the only ones stripping may change
    flags = tok.chars.flags
    edged = ((flags.take(tok.start) | flags.take(tok.start + tok.length - 1)) & PUNCT) != 0
    for part, lowered in _lowered_chunks(tok):
        codes = _token_codes(lowered, stop, np.flatnonzero(edged[part]))
        stop_flags[part] = (codes & _STOP_CODE) != 0
        date_flags[part] = _date_tokens(tok.chars.joined, tok.start[part], tok.length[part],
                                        (codes & _DATE_CODE) != 0, tok.digit[part])

    word_flags = tok.word
    lengths = np.fromiter(map(len, texts), np.int64, n)
    num_chars = lengths.astype(float)
    num_tokens = tok.counts.astype(float)
    num_words = _bincount(owner, word_flags, n)
    word_chars = _bincount(owner, np.where(word_flags, tok.length, 0), n)
    boundaries = _bincount(owner, tok.sentence_end & word_flags, n)
    open_tail = np.zeros(n)
    has_tokens = tok.counts > 0
    last_token = np.cumsum(tok.counts) - 1
    open_tail[has_tokens] = ~tok.sentence_end[last_token[has_tokens]]
    num_sentences = boundaries + (open_tail * (num_words > 0))
    upper = _bincount(owner, tok.first_upper & word_flags, n)
    stop_hits = _bincount(owner, stop_flags, n)
    dates = _bincount(owner, date_flags, n)
    anchor_words = _attribute(blocks, "anchor_words", n)
    anchor_chars = _attribute(blocks, "anchor_chars", n)
    link_density = np.minimum(_quotient(anchor_words, num_tokens), 1.0)
    density = text_densities(lengths, num_words, tok.length, word_flags, tok.counts)

    columns: dict[str, np.ndarray] = {
        "num_chars": num_chars,
        "num_tokens": num_tokens,
        "num_words": num_words,
        "avg_word_length": _quotient(word_chars, num_words),
        "num_sentences": num_sentences,
        "avg_sentence_length": _quotient(num_words, num_sentences),
        "upper_words": upper,
        "upper_ratio": _quotient(upper, num_words),
        "full_stop_ratio": _quotient(tok.full_stops, num_words),
        "date_tokens": dates,
        "vertical_bars": tok.bars,
        "link_density": link_density,
        "link_char_density": _quotient(anchor_chars, num_chars),
        "text_density": density,
        "stopword_density": _quotient(stop_hits, num_tokens),
        "punctuation": tok.punctuation,
        "copyright": np.fromiter(map(or_, map(contains, texts, repeat("\xa9")),
                                     map(contains, texts, repeat("&copy"))), float, n),
    }
    tags = list(map(attrgetter("tag"), blocks))
    headings = _attribute(blocks, "heading", n)
    for level, name in enumerate(_HEADINGS, start=1):
        columns[name] = (headings == level).astype(float)
    columns["tag_p"] = np.fromiter(map(eq, tags, repeat("p")), float, n)
    columns["tag_div"] = np.fromiter(map(eq, tags, repeat("div")), float, n)
    columns["tag_a"] = (anchor_words > 0).astype(float)
    columns["depth"] = _attribute(blocks, "depth", n)
    position = np.arange(n, dtype=float)
    columns["position"] = position
    columns["relative_position"] = position / max(n - 1, 1)
    words_q = _quotient(num_words, _shift(num_words, 1))
    density_q = _quotient(density, _shift(density, 1))
    columns["num_words_quotient"] = words_q
    columns["text_density_quotient"] = density_q
    columns["next_num_words_quotient"] = _shift(words_q, -1)
    columns["next_text_density_quotient"] = _shift(density_q, -1)
    for name, values in (
        ("num_words", num_words),
        ("text_density", density),
        ("link_density", link_density),
    ):
        columns[f"prev_{name}"] = _shift(values, 1)
        columns[f"next_{name}"] = _shift(values, -1)
    values = side_by_side([columns[name] for name in FEATURE_NAMES])
    return FeatureMatrix(FEATURE_NAMES, values)
