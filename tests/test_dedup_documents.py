"""Document near-duplicates with MinHash-LSH over word shingles (grist dedup's default)."""

from __future__ import annotations

import json
import random

import numpy as np

from grist.cli import main
from grist.dedup.documents import (
    DocumentSketcher, MinHashConfig, MinHashGroups, duplicate_groups, first_of_group,
    near_duplicate_pairs,
)

WORDS = ["river", "stone", "market", "winter", "letter", "garden", "engine", "harbour", "silver",
         "window", "forest", "signal", "candle", "meadow", "bridge", "orchard", "lantern",
         "valley", "compass", "thunder", "council", "museum", "railway", "village", "teacher",
         "doctor", "season", "weather", "festival", "library", "painter"]


def text(seed: int, length: int = 400) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) for _ in range(length))


def substitute(words: str, share: float, seed: int) -> str:
    rng = random.Random(seed)
    out = words.split()
    for at in rng.sample(range(len(out)), round(share * len(out))):
        out[at] = "changed" + str(at)
    return " ".join(out)


def test_a_page_with_2_5_percent_changed_is_found():
    originals = [text(n) for n in range(5)]
    copies = [substitute(t, 0.025, n) for n, t in enumerate(originals)]
    # MinHash-LSH at the default settings finds all five and pairs nothing else
    sketcher = DocumentSketcher()
    a, b, sim = near_duplicate_pairs(sketcher.signatures(originals + copies), sketcher.config)
    assert sorted(zip(a.tolist(), b.tolist(), strict=True)) == [(n, n + 5) for n in range(5)]
    assert np.all(sim >= sketcher.config.threshold)


def test_short_texts_match_nothing_and_groups_are_transitive():
    config = MinHashConfig(min_words=10)
    base = text(7, 200)
    texts = [base, "too short", substitute(base, 0.02, 1), "too short", substitute(base, 0.04, 2)]
    sigs = DocumentSketcher(config).signatures(texts)
    a, b, _ = near_duplicate_pairs(sigs, config)
    first = first_of_group(len(texts), a, b)
    assert first.tolist() == [0, 1, 0, 3, 0]
    assert duplicate_groups(first) == [[0, 2, 4]]


def test_groups_saved_and_loaded(tmp_path):
    groups = MinHashGroups()
    groups.add("a", text(1))
    groups.add("b", text(2))
    groups.save(tmp_path / "index.npz")
    again = MinHashGroups.load(tmp_path / "index.npz")
    again.add("c", substitute(text(2), 0.01, 3))
    assert [[again.key(i) for i in g] for g in again.groups()] == [["b", "c"]]
    assert MinHashGroups.is_index(tmp_path / "index.npz")


def test_cli_documents_default_to_minhash(tmp_path, capsys):
    lines = [json.dumps({"id": str(n), "text": t}) for n, t in
             enumerate([text(1), text(2), substitute(text(1), 0.05, 9)])]
    (tmp_path / "docs.jsonl").write_text("\n".join(lines) + "\n")
    assert main(["dedup", str(tmp_path / "docs.jsonl"), "--quiet",
                 "--save-index", str(tmp_path / "i.npz")]) == 0
    found = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [[m["key"] for m in g["members"]] for g in found] == [["0", "2"]]
    assert MinHashGroups.is_index(tmp_path / "i.npz")
