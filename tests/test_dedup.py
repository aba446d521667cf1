"""Near-duplicate fingerprints and similarities (seed 001 §3.3, seed 000 Eq. 2)."""

from collections import Counter

import numpy as np
import pytest

from grist.dedup.minhash import MinHasher, estimate_jaccard
from grist.dedup.simhash import frequency_simhash, hamming, modified_simhash, simhash, term_hashes
from grist.dedup.similarity import cosine, jaccard, shingles, text_jaccard
from grist.dedup.stage import DedupConfig, drop_near_duplicates
from grist.features.tokens import terms
from grist.dedup.twcpfm import twc_pfm_weights
from grist.document import BOILERPLATE, Block

PAPER_SEQUENCE = "a b c d a b a c a b d".split()


def _algorithm1_pair_sum(seq: list[str], ti: str, tj: str) -> float:
    """Algorithm 1's two-pointer walk over P(t_i), P(t_j), written out literally (the reference)."""
    pi = [p for p, t in enumerate(seq, 1) if t == ti]
    pj = [p for p, t in enumerate(seq, 1) if t == tj]
    i = j = 0
    total = 0.0
    while i < len(pi) and j < len(pj):
        nxt = pi[i + 1] if i + 1 < len(pi) else float("inf")
        if pi[i] < pj[j] < nxt:
            total += 1 / (pj[j] - pi[i])
            i += 1
        elif pi[i] < pj[j]:
            i += 1
        else:
            j += 1
    return total


def _reference_weights(seq: list[str]) -> dict[str, float]:
    unique = list(dict.fromkeys(seq))
    return {
        t: (seq.count(t) + sum(_algorithm1_pair_sum(seq, t, u) for u in unique if u != t)) / len(unique)
        for t in unique
    }


def test_twc_pfm_paper_sequence_positions_and_weights():
    # P(a)={1,5,7,9}, P(b)={2,6,10}, P(c)={3,8}, P(d)={4,11}; f = 4, 3, 2, 2; N_t = 4.
    # TP sums by hand: a: ab 1+1+1, ac 1/2+1, ad 1/3+1/2; b: ba 1/3+1, bc 1+1/2, bd 1/2+1;
    # c: ca 1/2+1, cb 1/3+1/2, cd 1+1/3; d: da 1, db 1/2, dc 1/4.
    w = twc_pfm_weights(PAPER_SEQUENCE)
    assert w["a"] == pytest.approx((4 + 3 + 1.5 + 5 / 6) / 4)
    assert w["b"] == pytest.approx((3 + 4 / 3 + 1.5 + 1.5) / 4)
    assert w["c"] == pytest.approx((2 + 1.5 + 5 / 6 + 4 / 3) / 4)
    assert w["d"] == pytest.approx((2 + 1 + 0.5 + 0.25) / 4)
    assert w == pytest.approx(_reference_weights(PAPER_SEQUENCE))


def test_twc_pfm_single_pass_equals_pairwise_walk_on_random_sequences():
    rng = np.random.default_rng(7)
    for _ in range(30):
        seq = [str(x) for x in rng.integers(0, 6, size=rng.integers(1, 40))]
        assert twc_pfm_weights(seq) == pytest.approx(_reference_weights(seq))


def test_twc_pfm_empty_and_single_term():
    assert twc_pfm_weights([]) == {}
    assert twc_pfm_weights(["x", "x"]) == {"x": 2.0}


def test_terms_lowercase_stopwords_porter():
    assert terms("The Performers were performing; it performs!") == ["perform", "perform", "perform"]


def test_simhash_bits_follow_weight_signs():
    h = int(term_hashes(["solo"])[0])
    assert simhash({"solo": 2.5}) == h  # one term: the fingerprint is its hash
    assert simhash({}) is None
    heavy, light = "alpha", "beta"
    fp = simhash({heavy: 10.0, light: 1.0})
    assert fp == int(term_hashes([heavy])[0])


def test_near_duplicate_texts_are_close_and_unrelated_far():
    base = ("The city council approved the new budget on Tuesday, raising spending on schools, "
            "parks and public transport while cutting administrative costs by four percent.")
    edited = base.replace("Tuesday", "Wednesday")
    other = "Quantum computers use qubits that can represent superpositions of zero and one states."
    for fp in (modified_simhash, frequency_simhash):
        assert hamming(fp(base), fp(base)) == 0
        assert hamming(fp(base), fp(edited)) < hamming(fp(base), fp(other))
        assert hamming(fp(base), fp(other)) > 3


def test_jaccard_cosine_and_minhash():
    assert jaccard({1, 2, 3}, {2, 3, 4}) == 0.5
    assert jaccard(set(), set()) == 1.0
    assert shingles(["a", "b", "c"], 2) == {("a", "b"), ("b", "c")}
    # Eq. 2 on weight vectors (1, 2, 0) and (2, 1, 1): 4 / (sqrt 5 * sqrt 6)
    assert cosine(Counter(x=1, y=2), Counter(x=2, y=1, z=1)) == pytest.approx(4 / (5**0.5 * 6**0.5))
    assert cosine(Counter(), Counter(x=1)) == 0.0
    a = " ".join(f"word{i}" for i in range(200))
    b = " ".join(f"word{i}" for i in range(100, 300))
    exact = text_jaccard(a, b)
    assert exact == pytest.approx(1 / 3)
    hasher = MinHasher(num_perm=256)
    assert abs(estimate_jaccard(hasher.signature(a), hasher.signature(b)) - exact) < 0.1
    assert estimate_jaccard(hasher.signature(a), hasher.signature(a)) == 1.0


def test_drop_near_duplicates_keeps_first():
    text = "Subscribe to our newsletter for weekly updates about science, technology and culture."
    blocks = [
        Block(text=text, index=0),
        Block(text="An entirely different paragraph about the history of Roman aqueducts.", index=1),
        Block(text=text + "", index=2),
        Block(text="the of and", index=3),
        Block(text="to be or", index=4),
    ]
    drop_near_duplicates(blocks, DedupConfig())
    assert [b.label for b in blocks] == [None, None, BOILERPLATE, None, None]
    assert blocks[2].reason == "near-duplicate of block 0"
