"""Measure the rule that refuses binary bytes: the share of control and undecodable characters.

    python benchmarks/not_html.py --datasets-dir ../shared/datasets

Every page of every dataset is encoded back to bytes with its recorded ``encoding`` and decoded
by grist; the share of noise characters (``grist.html.sniff.noise_share``) is tallied per
dataset, and set against random bytes, compressed pages and other payloads without a magic
number. A rule is safe when no real page comes near the threshold.
"""

from __future__ import annotations

import argparse
import random
import zlib
from pathlib import Path

import numpy as np

from grist.errors import GristError
from grist.html.decode import decode
from grist.html.sniff import NOISE_COUNT, NOISE_SHARE, noise, sniff_binary
from grist.io.datasets import page_datasets, read_jsonl


def noise_share(text: str) -> float:
    found, seen = noise(text)
    return found / max(seen, 1)


def _shares_of_payloads(pages: list[str]) -> dict[str, list[float]]:
    rng = random.Random(0)
    western = [p for p in pages if not p.isascii()]
    kinds: dict[str, list[bytes]] = {
        "random bytes": [rng.randbytes(size) for size in (64, 500, 5000, 50_000) for _ in range(25)],
        "zlib-compressed page": [zlib.compress(p.encode("utf-8")) for p in pages[:100]],
        "raw deflate page": [zlib.compress(p.encode("utf-8"))[2:-4] for p in pages[100:200]],
    }
    misdeclared = [p.encode("cp1252", "replace") for p in western if _cp1252(p)][:300]
    shares: dict[str, tuple[list[float], int]] = {}
    for name, payloads in kinds.items():
        found = [1.0 if sniff_binary(data) else noise_share(decode_only(data)) for data in payloads]
        shares[name] = found, sum(_refused(data) for data in payloads)
    found = [noise_share(decode_only(data, "utf-8")) for data in misdeclared]
    shares["Western page declared UTF-8"] = found, sum(_refused(d, "utf-8") for d in misdeclared)
    return shares


def _cp1252(text: str) -> bool:
    try:
        text.encode("cp1252")
    except UnicodeEncodeError:
        return False
    return True


def _refused(data: bytes, charset: str | None = None) -> bool:
    try:
        decode(data, charset)
    except GristError:
        return True
    return False


def decode_only(data: bytes, charset: str | None = None) -> str:
    """The text grist decodes, without the noise rule (so that the share can be measured)."""
    from grist.html.decode import _decode

    return _decode(data, charset)[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets-dir", type=Path, default=Path("../shared/datasets"))
    args = parser.parse_args()
    print(f"rule: at least {NOISE_COUNT} control characters and {NOISE_SHARE:.2%} of the text\n")
    print("| input | pages | max share | p99.9 | refused |")
    print("|---|---:|---:|---:|---:|")
    all_pages: list[str] = []
    for path in page_datasets(args.datasets_dir)[0]:
        shares, refused = [], 0
        for page in read_jsonl(path):
            all_pages.append(page.html)
            data = page.html.encode(page.extra.get("encoding") or "utf-8", "replace")
            shares.append(noise_share(decode_only(data)))
            try:
                decode(data)
            except GristError:
                refused += 1
        print(f"| {path.name.split('.')[0]} | {len(shares)} | {max(shares):.4%} | "
              f"{np.percentile(shares, 99.9):.4%} | {refused} |")
    for name, (shares, refused) in _shares_of_payloads(all_pages).items():
        print(f"| {name} | {len(shares)} | min {min(shares):.2%} | median "
              f"{np.median(shares):.2%} | {refused} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
