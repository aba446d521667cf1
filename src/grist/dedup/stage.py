"""Within-page dedup stage: label later near-duplicates of earlier blocks as boilerplate."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from grist.dedup.index import FingerprintIndex
from grist.dedup.simhash import frequency_simhash, modified_simhash
from grist.document import BOILERPLATE, Block

FINGERPRINTS: dict[str, Callable[[str], int | None]] = {
    "modified_simhash": modified_simhash,
    "simhash": frequency_simhash,
}


@dataclass(frozen=True)
class DedupConfig:
    """``fingerprint``: ``modified_simhash`` (seed 001) or ``simhash``; near-duplicate when <= k bits."""

    fingerprint: str = "modified_simhash"
    k: int = 3


def drop_near_duplicates(blocks: list[Block], config: DedupConfig | None = None) -> list[Block]:
    """Keep the first of every group of near-duplicate blocks; label the others boilerplate.

    Blocks already labelled boilerplate are skipped; the ones dropped here get reason
    ``near-duplicate of block N`` and ``info['fingerprint']``. Returns the same list.
    """
    config = config or DedupConfig()
    fingerprint = FINGERPRINTS[config.fingerprint]
    index = FingerprintIndex(config.k)
    for block in blocks:
        if block.label == BOILERPLATE:
            continue
        fp = fingerprint(block.text)
        if fp is None:
            continue
        block.info["fingerprint"] = fp
        earlier = index.query(fp)
        if earlier:
            block.label = BOILERPLATE
            block.reason = f"near-duplicate of block {index.key(earlier[0])}"
        else:
            index.add(fp, str(block.index))
    return blocks
