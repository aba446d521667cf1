"""Method ``auto``: the learned two-stage classifier over shallow + DOM-context block features.

Segments the page (seed 000 §4.1.1), computes ``grist.features.auto`` rows, scores every block
with the shipped model (``grist/data/auto-2.json.gz``) or a user's (``AutoConfig.model_path``,
made with ``grist train``). Each block's ``score`` is the final probability of content; its
``reason`` lists the features that pushed it most and the shift the context stage added. A
hidden or ``noscript`` copy of text the page already shows is dropped (``hidden_copies``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import NamedTuple

import numpy as np

from grist.classify.boosted import SHIPPED, AutoModel
from grist.classify.explain import top_contributions
from grist.classify.roles import derive_roles
from grist.dedup.similarity import shingles
from grist.document import BOILERPLATE, CONTENT, ROLES, Document
from grist.errors import ConfigError
from grist.features.auto import stage1_features
from grist.features.matrix import FeatureMatrix
from grist.features.tokens import words as word_tokens
from grist.methods.base import Labelled, Method, PageContext
from grist.modelfile import shipped
from grist.segment.blocks import segment_elements


@dataclass(frozen=True)
class AutoConfig:
    """model_path: a model file from ``grist train`` (None: the shipped model).

    threshold: probability from which a block is content (None: the model's own, or the cut it
               learned for each page).
    whole_page_words: a page with fewer words than this is kept whole: too little text to tell
               content from noise (a snippet, a stub); 0 turns it off.
    fallback_words: when the blocks over the threshold hold fewer words than this, every block
               is kept, with a warning on the page. Off by default: in site-grouped CV it fired
               only on pages with little or no main text, and did worse on each of them
               (docs/decisions.md, "A learned method needs a fallback").
    fallback_below: the same when they hold less than this share of the page's words (0, off:
               a short article on a long page of comments is not "nothing").
    drop_hidden_copies: drop a kept block under a hidden or ``noscript`` element when the kept
               visible blocks already hold its text (``hidden_copies``): the reader sees it once.
    explain:   each block's ``reason`` gives the context stage's shift and, in
               ``Result.explained()`` (JSON output uses it), the ``top_features`` stage-1
               features whose path contributions (over all trees) pushed it most towards its label;
               computed on demand because it costs about as much as the prediction itself.
    """

    model_path: str | None = None
    threshold: float | None = None
    whole_page_words: int = 10
    fallback_words: int = 0
    fallback_below: float = 0.0
    drop_hidden_copies: bool = True
    explain: bool = True
    top_features: int = 3

    def __post_init__(self) -> None:
        if self.threshold is not None and not 0.0 <= self.threshold <= 1.0:
            raise ConfigError(f"AutoConfig.threshold is a probability, from 0 to 1, not "
                              f"{self.threshold!r}")


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return np.log(p / (1 - p))


def _short_reasons(scores: list[float], shifts: list[float] | None, roles: list[str],
                   kept_not_body: np.ndarray, copies: dict[int, float], share: float | None,
                   small: bool) -> list[str]:
    """Every block's reason (what ``run`` writes on it): its probability, the shift the context
    stage added (``shifts``, when explaining), then what set its label apart: a kept block of
    another role (``kept_not_body``, unless the page was kept whole), a dropped hidden copy, the
    fallback or a small page. The common head is formatted in bulk (``%`` formats a float
    in half the time ``str.format`` takes); only the blocks with notes are touched one by one."""
    if shifts is None:
        short = list(map("p=%.3f".__mod__, scores))
    else:
        short = ["p=%.3f; context %+.2f" % pair for pair in zip(scores, shifts)]
    if share is None and not small:
        for i in np.flatnonzero(kept_not_body).tolist():
            short[i] += f"; {roles[i]}, not body"
    for i, shown in copies.items():
        short[i] += f"; hidden copy of shown text ({shown:.0%}), dropped"
    tail = ("; fallback: whole page kept" if share is not None
            else "; small page: too few words to judge, kept" if small else "")
    if tail:
        short = [r if i in copies else r + tail for i, r in enumerate(short)]
    return short


class Selection(NamedTuple):
    """The blocks ``auto`` keeps, and why all of them when it keeps all regardless of the model:
    ``fallback`` (the kept share) when the model kept too little, ``small`` when the page has too
    few words to judge."""

    keep: np.ndarray
    fallback: float | None = None
    small: bool = False


def select_content(p: np.ndarray, words: np.ndarray, threshold: float, fallback_below: float,
                   fallback_words: int = 0, whole_page_words: int = 0) -> Selection:
    """Blocks to keep: ``p >= threshold``; all of them on a page of fewer than
    ``whole_page_words`` words, or when those over the threshold hold fewer than
    ``fallback_words`` words or under ``fallback_below`` of the page's words."""
    keep = p >= threshold
    total = float(words.sum())
    if total < whole_page_words:
        return Selection(np.ones(len(p), dtype=bool), small=True)
    kept = float(words[keep].sum())
    share = kept / total if total else 1.0
    if kept < fallback_words or share < fallback_below:
        return Selection(np.ones(len(p), dtype=bool), share)
    return Selection(keep)


# Stage-1 columns that say a block sits under a hidden or ``noscript`` element.
HIDING_COLUMNS = ("anc_hidden", "anc_noscript")
# Words a hidden block needs to count as a copy: shorter texts ("Show more", a code line's
# number) recur by chance.
MIN_COPY_WORDS = 6
# Share of a hidden block's word triples the kept visible text must hold for it to be a copy:
# a copy may be cut into blocks differently, or differ in a word or two.
COPY_SHARE = 0.9


def _triples(text: str) -> set[tuple[str, ...]]:
    """The text's runs of three words (lower-cased)."""
    return shingles([t.lower() for t in word_tokens(text)], 3)


def hidden_copies(texts: Sequence[str], counts: np.ndarray, hidden: np.ndarray,
                  keep: np.ndarray) -> dict[int, float]:
    """Kept blocks of at least ``MIN_COPY_WORDS`` words under a hidden or ``noscript`` element
    whose word triples the kept visible blocks hold (``COPY_SHARE`` of them or more), mapped to
    that share.

    Pages repeat a whole article in a hidden or ``noscript`` copy; the copy adds nothing the
    reader sees. A hidden block with text of its own stays the model's call (collapsed tabs and
    accordions hide real content).
    """
    candidates = np.flatnonzero(keep & hidden & (counts >= MIN_COPY_WORDS)).tolist()
    if not candidates:
        return {}
    shown: set[tuple[str, ...]] = set()
    for i in np.flatnonzero(keep & ~hidden).tolist():
        shown |= _triples(texts[i])
    copies = {}
    for i in candidates:
        own = _triples(texts[i])
        share = len(own & shown) / len(own) if own else 0.0
        if share >= COPY_SHARE:
            copies[i] = share
    return copies


def choose_blocks(p: np.ndarray, matrix: FeatureMatrix, texts: Sequence[str], threshold: float,
                  config: AutoConfig) -> tuple[Selection, dict[int, float]]:
    """``select_content`` with the config's rules, less the hidden copies of kept blocks
    (``hidden_copies``, returned too so each one's reason can say how much of it is shown)."""
    words = matrix.column("num_words")
    chosen = select_content(p, words, threshold, config.fallback_below, config.fallback_words,
                            config.whole_page_words)
    hidden = np.zeros(len(p), dtype=bool)
    for column in HIDING_COLUMNS:  # (an ablation may have left them out)
        if column in matrix.positions:  # (a dict: the names are a long tuple)
            hidden |= matrix.column(column) > 0
    copies = hidden_copies(texts, words, hidden, chosen.keep) if config.drop_hidden_copies else {}
    if not copies:
        return chosen, copies
    keep = chosen.keep.copy()
    keep[list(copies)] = False
    return chosen._replace(keep=keep), copies


def content_mask(selection: Selection, roles: np.ndarray) -> np.ndarray:
    """The blocks output as the page's content: the kept blocks of the body role, or every kept
    block of a page kept whole (too few words to judge, or the model's fallback)."""
    whole = selection.fallback is not None or selection.small
    return selection.keep & ((roles == ROLES.index("body")) | whole)


def load(config: AutoConfig) -> AutoModel:
    """The model the config names (the shipped one by default)."""
    return AutoModel.load(config.model_path or shipped(SHIPPED))


def run(doc: Document, config: AutoConfig, ctx: PageContext) -> Labelled:
    """Label every block of the page with the learned model, and name every block's role."""
    blocks, elements = segment_elements(doc, budget=ctx.budget)
    ctx.budget.check("segmentation")
    if not blocks:
        return Labelled(blocks)
    matrix = stage1_features(blocks, doc, elements, ctx.budget)
    ctx.budget.check("features")
    model: AutoModel = ctx.resources
    p1, p2, cut = model.predict(matrix, [b.region for b in blocks], [b.path for b in blocks])
    threshold = cut if config.threshold is None else config.threshold
    texts = [b.text for b in blocks]
    selection, copies = choose_blocks(p2, matrix, texts, threshold, config)
    keep, share, small = selection
    roles = derive_roles(matrix, texts, keep)
    notes = []
    if share is not None:
        notes.append(
            f"auto kept {share:.1%} of the page's words: a kind of page the model does not "
            "recognise; every block is kept"
        )
    body = roles == ROLES.index("body")
    names = list(map(ROLES.__getitem__, roles.tolist()))
    scores = p2.tolist()
    shifts = (_logit(p2) - _logit(p1)).tolist() if config.explain else None
    short = _short_reasons(scores, shifts, names, keep & ~body, copies, share, small)
    labels = list(map((BOILERPLATE, CONTENT).__getitem__, content_mask(selection, roles).tolist()))
    for block, role, label, score, reason, first in zip(
            blocks, names, labels, scores, short, p1.tolist(), strict=True):
        block.role, block.label, block.score, block.reason = role, label, score, reason
        block.info["stage1"] = first
    reasons = (partial(full_reasons, short, keep, matrix, model, config.top_features)
               if config.explain else None)  # (computed when asked)
    return Labelled(blocks, features=matrix, notes=notes, reasons=reasons)


def full_reasons(short: list[str], keep: np.ndarray, matrix: FeatureMatrix, model: AutoModel,
                 top: int) -> list[str]:
    """Each block's short reason with the ``top`` stage-1 features that pushed it most towards
    its label (``keep``) inserted after the probability."""
    _, contrib = model.stage1_scores(matrix, contributions=True)
    texts = top_contributions(contrib, matrix.values, matrix.names, keep, top)
    out = []
    for reason, why in zip(short, texts, strict=True):
        head, _, context = reason.partition("; ")
        out.append(f"{head}; {why}; {context}")
    return out


METHOD = Method(
    name="auto",
    summary="learned two-stage boosted trees over shallow and DOM-context block features",
    config_type=AutoConfig,
    run=run,
    load=load,
    variants={"fallback": lambda: AutoConfig(fallback_words=10),
              "no-fallback": lambda: AutoConfig(whole_page_words=0, fallback_words=0,
                                                fallback_below=0.0),
              "keep-hidden-copies": lambda: AutoConfig(drop_hidden_copies=False)},
)
