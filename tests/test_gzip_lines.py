"""Reading gzip-compressed JSON lines as far as the data goes (``grist.io.sources.gzip_lines``)."""

from __future__ import annotations

import gzip
import io
import random
import zlib

import pytest

from grist.errors import CorruptInputError
from grist.io.sources import gzip_chunks, gzip_lines


def text_of(lines: int, seed: int = 3) -> bytes:
    rng = random.Random(seed)
    return b"".join(b"%d %s\n" % (n, bytes(rng.choice(b"abcdefgh ") for _ in range(rng.randint(0, 900))))
                    for n in range(lines))


def read_all(data: bytes) -> tuple[list[bytes], CorruptInputError | None]:
    lines: list[bytes] = []
    try:
        for line in gzip_lines(io.BytesIO(data)):
            lines.append(line)
    except CorruptInputError as exc:
        return lines, exc
    return lines, None


def test_every_member_is_read_and_zero_padding_between_them_is_skipped() -> None:
    text = text_of(300)
    data = gzip.compress(text[:7000]) + b"\0\0\0" + gzip.compress(text[7000:]) + b"\0" * 5
    assert b"".join(gzip_chunks(io.BytesIO(data))) == text
    assert read_all(data) == (text.splitlines(keepends=True), None)


def test_a_last_line_without_a_newline_is_given() -> None:
    assert read_all(gzip.compress(b"one\ntwo")) == ([b"one\n", b"two"], None)


@pytest.mark.parametrize("keep", [0.1, 0.35, 0.6, 0.9, 0.999])
def test_a_cut_gives_every_whole_line_before_it_then_the_error(keep: float) -> None:
    text = text_of(400)
    data = gzip.compress(text)
    cut = data[: int(len(data) * keep)]
    readable = zlib.decompressobj(31).decompress(cut)  # all that zlib can get out of the cut
    lines, error = read_all(cut)
    assert b"".join(lines) == readable[: readable.rfind(b"\n") + 1]
    assert error is not None and "cut off" in str(error)


def test_a_bad_checksum_gives_every_line_before_the_error() -> None:
    text = text_of(60)
    data = bytearray(gzip.compress(text))
    data[-8] ^= 0xFF  # the CRC-32 in the trailer: the data decompresses whole
    lines, error = read_all(bytes(data))
    assert b"".join(lines) == text
    assert error is not None and "damaged" in str(error)


def readable_before_damage(data: bytes) -> bytes:
    """What zlib gives, fed a byte at a time, before it fails on ``data``."""
    inflater, out = zlib.decompressobj(31), []
    for byte in data:
        try:
            out.append(inflater.decompress(bytes([byte])))
        except zlib.error:
            break
    return b"".join(out)


def test_damage_gives_the_lines_before_it_that_the_gzip_module_loses() -> None:
    """zlib fails a whole call on damage; Python's gzip module reads 8 KiB a call, so lines
    decoded from the same 8 KiB before the damage were lost."""
    text = text_of(400)
    data = gzip.compress(text)
    compared = 0
    for position in range(20, 8000, 13):
        damaged = bytearray(data)
        damaged[position] ^= 0xFF
        try:
            zlib.decompressobj(31).decompress(bytes(damaged))
        except zlib.error:
            readable = readable_before_damage(bytes(damaged))
            lines, error = read_all(bytes(damaged))
            assert b"".join(lines) == readable[: readable.rfind(b"\n") + 1]
            assert error is not None and "damaged" in str(error)
            by_gzip = 0
            with pytest.raises((OSError, EOFError, zlib.error)):
                for _ in gzip.GzipFile(fileobj=io.BytesIO(bytes(damaged))):
                    by_gzip += 1
            assert by_gzip <= len(lines)
            compared += by_gzip < len(lines)
    assert compared >= 3  # positions where the gzip module lost lines that come out here


def test_a_bomb_comes_out_in_bounded_pieces() -> None:
    pieces = [len(chunk) for chunk in gzip_chunks(io.BytesIO(gzip.compress(b"a" * (8 << 20))))]
    assert sum(pieces) == 8 << 20 and max(pieces) <= 1 << 20


def test_data_that_is_not_gzip_is_damaged_from_its_first_byte() -> None:
    lines, error = read_all(b"plain text, not gzip\n")
    assert lines == [] and error is not None and "damaged" in str(error)


@pytest.mark.parametrize("compressed", [False, True])
def test_a_line_past_the_cap_is_named_and_the_next_lines_still_read(tmp_path, compressed) -> None:
    """A JSON-lines file with a 300 MB line held it whole (940 MB resident) before the page
    behind it was refused by the size cap; a line past the cap is now read past in pieces."""
    from grist.errors import LimitExceededError
    from grist.io.sources import json_records, plain_lines

    long_line = b'{"html": "' + b"x" * 5000 + b'"}\n'
    lines = [b'{"html": "a"}\n', long_line, b'{"html": "b"}\n', long_line, b'{"html": "c"}']
    data = b"".join(lines)
    path = tmp_path / ("pages.jsonl.gz" if compressed else "pages.jsonl")
    path.write_bytes(gzip.compress(data) if compressed else data)
    records = list(json_records(str(path), cap=1000))
    assert [label.rsplit(":", 1)[1] for label, _ in records] == ["1", "2", "3", "4", "5"]
    assert [r["html"] for _, r in records if isinstance(r, dict)] == ["a", "b", "c"]
    for _, error in (records[1], records[3]):
        assert isinstance(error, LimitExceededError) and "longer than" in str(error)
    ends_long = b'{"html": "a"}\n' + long_line.rstrip(b"\n")  # the file ends inside it
    assert list(plain_lines(io.BytesIO(ends_long), 1000)) == [b'{"html": "a"}\n', None]
    assert list(gzip_lines(io.BytesIO(gzip.compress(ends_long)), 1000)) == [
        b'{"html": "a"}\n', None]
    assert list(gzip_lines(io.BytesIO(gzip.compress(data)))) == lines  # no cap: every line
