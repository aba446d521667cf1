"""``UrlTree``: seed 003's URL Tree as a cross-page model (``grist.crosspage``).

It learns which text blocks repeat across the documents of a domain and URL prefix, and judges
a page's blocks from there. Two ways to use its judgement:

- ``combine=True`` (the default): the page model (``auto``) decides every block until the node
  the heuristic selects has seen ``n_min`` documents; from then on a block the tree finds
  repeated (``c(b) > c_max``) on at least ``share_min`` of the node's documents is boilerplate,
  unless the page model is confident it is content (``block.score >= protect_above``) or it is
  the page's own headline (it repeats in other pages' lists of recent stories). Blocks
  repeated on fewer pages (a teaser, the same author's bio) and blocks found on this page only
  stay with the page model: on the benchmark, letting the tree turn them into content lost
  more than it won (docs/stream.md);
- ``combine=False``: the paper's algorithm alone, every block judged by the tree from the first
  document on (``grist stream --tree-alone``, the benchmark's "tree" lines).

The paper inserts a document before judging it; the stream runner (``grist.stream.pipeline``)
extracts first and ``insert``s the page's record afterwards, since ``relabel`` on a page not yet
inserted counts it as if it were: both orders give the same verdicts.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from grist.crosspage import Verdict, checked_page
from grist.document import BOILERPLATE, CONTENT, Block, Document, RawPage
from grist.errors import GristError, ModelError
from grist.features.matrix import FeatureMatrix
from grist.io.dates import epoch_seconds
from grist.modelfile import decode, write_model
from grist.stream.hashing import DEFAULT_HASH, block_hashes, check_hash, normalise_block
from grist.stream.heuristics import heuristic as named_heuristic
from grist.stream.tree import DocRecord, Forest, Retention, Selection
from grist.stream.urlkey import UrlRules, node_label, url_key

KIND, VERSION = "url-tree", 1
COLUMNS = ("tree_support", "tree_count", "tree_share", "tree_repeated")


def _headline(text: str, title: str) -> bool:
    """Whether a block is the page's own headline: its letters are at least half of the
    ``<title>``'s (normalised) and found in it. A story's headline repeats in other pages'
    lists of recent posts, so the tree would count it as template."""
    letters = normalise_block(text)
    return bool(letters) and 2 * len(letters) >= len(title) and letters in title


def page_blocks(page: RawPage) -> tuple[Document, list[Block]]:
    """Parse and segment a page with grist's segmenter (the blocks ``auto`` sees)."""
    from grist.html.load import load_document
    from grist.html.parse import parse_document
    from grist.segment.blocks import segment

    doc = parse_document(load_document(page.content, page.url, http_charset=page.http_charset))
    return doc, segment(doc)


class UrlTree:
    """The URL Tree of seed 003 behind the cross-page protocol (see the module doc).

    heuristic: ``strict``, ``strict-support-N``, ``strict-at-domain``, ``relaxed-at-domain-N``.
    hash: ``xxh3`` (default) or ``md5`` (the paper's) for blocks and ``_cid_``.
    rules: a URL rule file (None: the bundled Table 1 rules).
    """

    source = "tree"

    def __init__(self, heuristic: str = "strict", *, combine: bool = True,
                 protect_above: float = 0.9, share_min: float = 0.9,
                 hash: str = DEFAULT_HASH, rules: str | Path | UrlRules | None = None,
                 retention: Retention | None = None) -> None:
        self.heuristic = heuristic
        self.heuristic_rule = named_heuristic(heuristic)
        self.combine = combine
        self.protect_above = protect_above
        self.share_min = share_min
        self.hash = check_hash(hash)
        self.rules = rules if isinstance(rules, UrlRules) else UrlRules.load(rules)
        self.retention = retention or Retention()

    # -- learning ------------------------------------------------------------------------

    def fit(self, pages: Iterable[RawPage]) -> UrlTree:
        """Forget everything, then learn from ``pages`` in order."""
        self.forest_ = Forest(self.retention)
        for page in pages:
            self.update(page)
        return self

    def update(self, page: RawPage) -> UrlTree:
        """Insert one page (its ``_cid_`` from the page's ``<title>``); unusable pages are skipped."""
        if not checked_page(page, "a URL Tree").url:
            return self
        try:
            doc, blocks = page_blocks(page)
            key = url_key(page.url, doc.title or None, self.rules, self.hash)
        except (GristError, ValueError):
            return self
        hashes = block_hashes([b.text for b in blocks], self.hash)
        self.insert(self.record(key, page.url, hashes, epoch_seconds(page.date)))
        return self

    @staticmethod
    def record(key: str, url: str, hashes: np.ndarray, date: float | None) -> DocRecord:
        """What the tree keeps of a document: its distinct block hashes, key, URL and date."""
        return DocRecord(key, url, np.unique(hashes), date)

    def insert(self, record: DocRecord) -> list[str]:
        """Insert a document (the runner's way, key already computed); returns the keys
        retention removed. A key already held is ignored: one URL key is one document."""
        if not hasattr(self, "forest_"):
            self.forest_ = Forest(self.retention)
        return self.forest_.insert(record)

    def restore(self, records: Iterable[DocRecord]) -> UrlTree:
        """Rebuild from the documents a store kept (in arrival order), without retention."""
        self.forest_ = Forest(self.retention)
        for record in records:
            self.forest_.insert(record, retain=False)
        return self

    def hashes(self, blocks: Sequence[Block]) -> np.ndarray:
        """The block hashes this tree uses, one per block."""
        return block_hashes([b.text for b in blocks], self.hash)

    # -- reading -------------------------------------------------------------------------

    def _select(self, doc: Document, blocks: Sequence[Block]) -> Selection | None:
        forest = getattr(self, "forest_", None)
        if forest is None or not doc.url or not blocks:
            return None
        hashes = self.hashes(blocks)
        key = forest.by_url.get(doc.url)
        held = forest.get(key) if key else None
        virtual = held is None or not np.isin(hashes, held.hashes).all()
        if key is None:
            try:
                key = url_key(doc.url, doc.title or None, self.rules, self.hash)
            except ValueError:
                return None
        selection = forest.select(key, hashes, self.heuristic_rule, virtual)
        return selection if selection.path else None

    def annotate(self, doc: Document, blocks: Sequence[Block]) -> FeatureMatrix:
        """Per block: the selected node's support, c(b) there, c(b)/support, and c(b) > c_max."""
        values = np.zeros((len(blocks), len(COLUMNS)))
        selection = self._select(doc, blocks)
        if selection is not None:
            values[:, 0] = selection.support
            values[:, 1] = selection.counts
            values[:, 2] = selection.counts / selection.support
            values[:, 3] = selection.boilerplate
        return FeatureMatrix(COLUMNS, values)

    def relabel(self, doc: Document, blocks: Sequence[Block]) -> list[Verdict | None]:
        """The tree's verdicts (None where it leaves the block to the page model)."""
        selection = self._select(doc, blocks)
        if selection is None:
            return [None] * len(blocks)
        where = node_label(selection.path)
        if not self.combine:
            return [self._verdict(selection, i, where) for i in range(len(blocks))]
        if selection.support < self.heuristic_rule.n_min:
            return [None] * len(blocks)
        template = selection.boilerplate & (selection.counts >= self.share_min * selection.support)
        title = normalise_block(doc.title or "")
        return [self._verdict(selection, i, where)
                if template[i] and (b.score is None or b.score < self.protect_above)
                and not _headline(b.text, title) else None
                for i, b in enumerate(blocks)]

    def _verdict(self, selection: Selection, i: int, where: str) -> Verdict:
        count, support = int(selection.counts[i]), selection.support
        if count > selection.c_max:
            return Verdict(BOILERPLATE, f"tree: on {count} of {support} pages under {where} "
                           f"(> {selection.c_max})", self.source)
        return Verdict(CONTENT, f"tree: on {count} of {support} pages under {where} "
                       f"(<= {selection.c_max})", self.source)

    # -- files ---------------------------------------------------------------------------

    def _config(self) -> dict:
        return {"heuristic": self.heuristic, "combine": self.combine,
                "protect_above": self.protect_above, "share_min": self.share_min,
                "hash": self.hash, "rules": self.rules.text(), "rules_origin": self.rules.origin,
                "retention": [self.retention.max_docs, self.retention.max_age_days,
                              self.retention.keep_recent]}

    def save(self, path: str | Path) -> None:
        """Write the configuration and every document held (counts are rebuilt on load)."""
        forest = getattr(self, "forest_", None)
        docs = [[r.key, r.url, r.date, base64.b64encode(r.hashes.astype("<u8").tobytes()).decode()]
                for r in (forest.records() if forest else ())]
        write_model(path, KIND, VERSION, {"config": self._config(), "fitted": forest is not None,
                                          "docs": docs})

    @classmethod
    def load(cls, path: str | Path) -> UrlTree:
        """A tree saved by ``save``; ModelError for a file that is not one."""
        path = Path(path)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ModelError(f"cannot read model {path}: {exc.strerror or exc}") from None
        payload = decode(data, str(path), KIND, VERSION)
        try:
            config = payload["config"]
            tree = cls(config["heuristic"], combine=config["combine"],
                       protect_above=config["protect_above"], share_min=config["share_min"],
                       hash=config["hash"],
                       rules=UrlRules.parse(config["rules"], config["rules_origin"]),
                       retention=Retention(*config["retention"]))
            if payload["fitted"]:
                tree.restore(DocRecord(key, url, np.frombuffer(base64.b64decode(packed),
                                                               dtype="<u8").astype(np.uint64), date)
                             for key, url, date, packed in payload["docs"])
        except (KeyError, TypeError, ValueError, GristError) as exc:
            raise ModelError(f"{path}: broken {KIND} model: {exc!r}") from None
        return tree
