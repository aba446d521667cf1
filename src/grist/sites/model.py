"""``SiteModel``: learn the templates of a site's pages (seed 002) and use them when extracting.

``fit(pages)`` groups the pages by site, clusters each site's pages by their non-content DOM paths
(TEXT-MDL, TEXT-HASH or LSH; ``grist.sites.search``) and keeps, per cluster, how many pages
contain each path. Extraction reads the model (``grist.extract(page, site=model)``): the page
joins the cluster of its site whose template it matches best, and each block is looked up by its
path and text: ``annotate`` gives that evidence as columns, ``relabel`` turns it into verdicts:
a block the page method kept whose path and text are a template path becomes boilerplate,
"template path shared by N of M pages of cluster K". (Weighing the evidence against the page
method's probability with a learned combiner was measured and did no better: docs/decisions.md.)
With ``decide="template+slots"`` (the default) ``fit`` also extracts each page with
``slot_method`` and learns the cluster's content slots (``grist.sites.slots``): a block of new
text the page method dropped, in a place (path and classes) where it kept nearly every block on
the cluster's other pages, is kept (unless its role is one the text holds only on request):
"content slot: the page method kept N of B blocks in this place on P other pages of cluster K".

``fit`` does not depend on the order of the pages (they are sorted by URL, name and content
first); ``update(page)`` adds one page to its best cluster (or a new one) and so depends on the
order of updates, like any online learner; refit to re-cluster.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, fields, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from grist.crosspage import Verdict, checked_page
from grist.dedup.minhash import element_hashes
from grist.document import BOILERPLATE, CONTENT, REPORTED_ROLES, Block, Document, RawPage
from grist.errors import ConfigError, GristError, ModelError
from grist.features.matrix import FeatureMatrix
from grist.methods import available_methods, split_spec
from grist.modelfile import load_model, write_model
from grist.result import Result
from grist.checks import check_choice, check_flag, check_share, check_whole, refused
from grist.sites.evidence import Evidence
from grist.sites.mdl import READINGS
from grist.sites.pages import (GROUPINGS, PATH_READINGS, PageError, PagePaths, names_of,
                               page_digest, page_path_strings, read_page, site_of)
from grist.sites.pathsets import THRESHOLDS, PathSets
from grist.sites.payload import broken, entries, entry
from grist.sites.paths import block_key
from grist.sites.search import METHODS, ClusterConfig, cluster
from grist.sites.slots import Slots, SlotVote, slot_hashes
from grist.sites.templates import SiteCluster

Labeller = Callable[[RawPage], Result]  # an Extractor, or any page -> labelled blocks

KIND = "site"
VERSION = 2  # 2: content slots and member digests
SLOTS = "template+slots"
DECISIONS = (SLOTS, "template", "none")
COLUMNS = ("site_pages", "site_path_pages", "site_text_pages", "site_template",
           "site_slot_pages", "site_slot_share")


@dataclass(frozen=True)
class SiteConfig:
    """What a site model learns and how it decides (docs/sites.md explains each reading).

    method:         clustering: ``mdl`` (TEXT-MDL), ``hash`` (TEXT-HASH) or ``lsh``.
    paths:          ``blocks`` (grist's blocks as text steps) or ``nodes`` (every DOM node).
    fold_digits:    digit runs in texts count as one (``Copyright 2009`` = ``2010``).
    threshold:      which paths are non-content (``grist.sites.pathsets.THRESHOLDS``).
    reading:        the MDL cost, ``delta`` or ``literal`` (``grist.sites.mdl``).
    group_by:       pages are clustered per ``host`` (``www.`` dropped), per registrable
                    ``domain``, or all together (``none``, the seed's setting).
    min_pages:      a cluster is used for extraction from this many pages on.
    min_similarity: a page joins a cluster when the Jaccard similarity of its paths and the
                    cluster's template (over the site's template paths) reaches this.
    decide:         ``template+slots`` (kept template blocks become boilerplate, dropped
                    blocks in a content slot content), ``template`` (the template rule only:
                    ``fit`` only parses pages, no extraction) or ``none`` (evidence columns
                    only, no verdicts).
    slot_method:    the page method ``fit`` extracts the pages with to learn content slots.
    slot_share:     a slot restores a block when the method kept at least this share of the
                    blocks in its slot (path and classes) on the cluster's other pages ...
    slot_pages:     ... on at least this many of them.
    num_perm, neighbours, lsh_threshold, max_candidates: ``grist.sites.search.ClusterConfig``.
    """

    method: str = "lsh"
    paths: str = "blocks"
    fold_digits: bool = False
    threshold: str = "mode-shared"
    reading: str = "delta"
    group_by: str = "host"
    min_pages: int = 3
    min_similarity: float = 0.2
    decide: str = SLOTS
    slot_method: str = "auto"
    slot_share: float = 0.9
    slot_pages: int = 3
    num_perm: int = 128
    neighbours: int = 1
    lsh_threshold: float = 0.3
    max_candidates: int = 4

    def __post_init__(self) -> None:
        """Refuse a wrong setting here (ConfigError), not in the middle of an extraction."""
        for name, allowed in (("method", METHODS), ("paths", PATH_READINGS),
                              ("threshold", THRESHOLDS), ("reading", READINGS),
                              ("group_by", GROUPINGS), ("decide", DECISIONS)):
            check_choice(self, name, allowed)
        check_flag(self, "fold_digits")
        for name in ("min_pages", "slot_pages", "num_perm", "neighbours", "max_candidates"):
            check_whole(self, name, least=1)
        check_share(self, "min_similarity")
        check_share(self, "slot_share")
        check_share(self, "lsh_threshold", strict=True)
        known = available_methods()
        if not isinstance(self.slot_method, str) or split_spec(self.slot_method)[0] not in known:
            raise refused(self, "slot_method", f"an extraction method ({', '.join(known)})")

    @classmethod
    def make(cls, base: SiteConfig | None = None, /, **values: Any) -> SiteConfig:
        """``base`` (the defaults when None) with ``values`` changed; ConfigError for a base that
        is not a SiteConfig or a name that is no setting (instead of a dataclass TypeError)."""
        if base is not None and not isinstance(base, SiteConfig):
            raise ConfigError(f"config must be a grist.sites.SiteConfig, not {type(base).__name__}")
        settings = [f.name for f in fields(cls)]
        unknown = sorted(set(values) - set(settings))
        if unknown:
            raise ConfigError(f"unknown setting{'s' if len(unknown) > 1 else ''} "
                              f"{', '.join(map(repr, unknown))} (the settings are "
                              f"{', '.join(settings)})")
        return replace(base or cls(), **values)

    def clustering(self) -> ClusterConfig:
        return ClusterConfig(self.method, self.reading, self.num_perm, self.neighbours,
                             self.lsh_threshold, self.max_candidates)

    @classmethod
    def literal(cls, method: str = "mdl") -> SiteConfig:
        """Every choice read as seed 002 prints it: DOM-node paths with raw text, non-content
        paths at exactly the mode, the two-matrix cost, all pages clustered together."""
        return cls(method=method, paths="nodes", fold_digits=False, threshold="mode-equal",
                   reading="literal", group_by="none")


def decide(found: Evidence, kept: np.ndarray, reported: np.ndarray, config: SiteConfig
           ) -> tuple[np.ndarray, np.ndarray]:
    """What the site model changes on a page whose blocks ``kept`` says the page method kept:
    the kept template blocks it drops and (``template+slots``) the dropped blocks of new text
    in a content slot it keeps. Blocks of a role reported beside the body (``reported``: a
    title, byline, caption or comment the output leaves out unless asked) are never added."""
    drops = kept & found.template()
    if config.decide != SLOTS or found.slots is None:
        return drops, np.zeros(len(kept), dtype=bool)
    return drops, found.slots.restores(kept, found.text_elsewhere == 0, config.slot_share,
                                       config.slot_pages) & ~reported


def _count_paths(pages: Sequence[PagePaths]) -> tuple[np.ndarray, np.ndarray]:
    hashes, support = np.unique(np.concatenate([p.hashes for p in pages]), return_counts=True)
    return hashes, support.astype(np.int64)


def _jaccard(a: np.ndarray, b: np.ndarray) -> float:
    union = len(np.union1d(a, b))
    return len(np.intersect1d(a, b, assume_unique=True)) / union if union else 0.0


class SiteModel:
    """A cross-page model of site templates (``grist.crosspage``); ``source`` is ``site``."""

    source = "site"

    def __init__(self, config: SiteConfig | None = None, *, extractor: Labeller | None = None,
                 **options: Any) -> None:
        """``extractor``: what ``fit`` and ``update`` label pages with to learn content slots, an
        ``Extractor`` or any function of a RawPage to a Result (default: an ``Extractor`` of
        ``config.slot_method``; e.g. ``auto`` with your own model). It is not saved."""
        self.config = SiteConfig.make(config, **options)
        self._extractor = extractor
        self._groups: dict[str, list[SiteCluster]] = {}

    # -- learning ---------------------------------------------------------------------------
    def fit(self, pages: Iterable[RawPage]) -> SiteModel:
        """Learn the templates of ``pages`` (unreadable ones are listed in ``errors_``)."""
        readable: dict[str, list[PagePaths]] = {}
        errors: list[dict[str, str]] = []
        labeller = self._labeller()
        for page in pages:
            read = self._read(page, labeller)
            if isinstance(read, PageError):
                errors.append(read.record())
            else:
                readable.setdefault(read.group, []).append(read)
        clusters: list[SiteCluster] = []
        costs: dict[str, tuple[float, float]] = {}
        for group in sorted(readable):
            members = sorted(readable[group], key=lambda p: p.order)
            sets = PathSets.build([p.hashes for p in members])
            found = cluster(sets.non_content(self.config.threshold), sets.hashes,
                            self.config.clustering())
            costs[group] = (found.cost_before, found.cost_after)
            for docs in found.members:
                pages_in = [members[d] for d in docs]
                hashes, support = _count_paths(pages_in)
                made = SiteCluster(len(clusters), group, [p.input for p in pages_in], hashes,
                                   support, slots=Slots.total([p.slots for p in pages_in]),
                                   digests=np.sort(np.array([p.digest for p in pages_in],
                                                            dtype=np.uint64)))
                made.names = names_of(made.template_hashes, pages_in)
                clusters.append(made)
        self.clusters_ = clusters
        self.errors_ = errors
        self.costs_ = costs
        self.n_pages_ = sum(len(v) for v in readable.values())
        self._index()
        return self

    def update(self, page: RawPage) -> SiteModel:
        """Add one page: to the best-matching cluster of its site, or to a new cluster."""
        if not hasattr(self, "clusters_"):
            self.clusters_, self.errors_, self.costs_, self.n_pages_ = [], [], {}, 0
        read = self._read(page, self._labeller())
        if isinstance(read, PageError):
            self.errors_ = [*self.errors_, read.record()]
            return self
        strings = read.strings()
        named = dict(zip(element_hashes(strings).tolist(), strings, strict=True))
        target, _ = self._assign(read.group, read.hashes, min_pages=1)
        clusters = list(self.clusters_)
        if target is None:
            target = SiteCluster(len(clusters), read.group, [], read.hashes[:0],
                                 np.zeros(0, dtype=np.int64))
            clusters.append(target)
        clusters[target.id] = target.with_page(read.input, read.hashes, named, read.slots,
                                               read.digest)
        self.clusters_ = clusters
        self.n_pages_ += 1
        self._index()
        return self

    def _labeller(self) -> Labeller | None:
        """The extractor whose labels teach the content slots (None when they are not used)."""
        if self.config.decide != SLOTS:
            return None
        if self._extractor is None:
            from grist.api import Extractor
            from grist.methods import get_method

            if not get_method(self.config.slot_method).needs_dom:
                raise GristError(f"content slots are places in the DOM; {self.config.slot_method}"
                                 " reads no DOM (choose another slot_method, or decide='template')")
            self._extractor = Extractor(method=self.config.slot_method)
        return self._extractor

    def _read(self, page: RawPage, labeller: Labeller | None) -> PagePaths | PageError:
        """One page's paths, or why it cannot be read (a TypeError when it is no RawPage)."""
        return read_page(checked_page(page, "a site model"), self.config.paths,
                         self.config.fold_digits, self.config.group_by, labeller=labeller)

    def _index(self) -> None:
        self._groups = {}
        for made in self.clusters_:
            self._groups.setdefault(made.group, []).append(made)

    # -- reading ----------------------------------------------------------------------------
    def _assign(self, group: str, hashes: np.ndarray, min_pages: int | None = None
                ) -> tuple[SiteCluster | None, float]:
        """The cluster of ``group`` whose template the page's paths match best (None when none
        reaches ``min_similarity``), and that similarity."""
        least = self.config.min_pages if min_pages is None else min_pages
        candidates = [c for c in self._groups.get(group, ()) if c.size >= least]
        if not candidates:
            return None, 0.0
        known = np.unique(np.concatenate([c.template_hashes for c in candidates]))
        mine = np.intersect1d(hashes, known, assume_unique=True)
        scores = [_jaccard(mine, c.template_hashes) for c in candidates]
        best = int(np.argmax(scores))
        found = candidates[best] if scores[best] >= self.config.min_similarity else None
        return found, scores[best]

    def cluster_of(self, doc: Document, blocks: Sequence[Block]) -> tuple[SiteCluster, float]:
        """The cluster a page belongs to and how similar the page is to its template; a
        GristError says why there is none."""
        self._check_fitted()
        group = site_of(doc.url, self.config.group_by)
        if not any(c.size >= self.config.min_pages for c in self._groups.get(group, ())):
            where = f"site {group}" if group else "pages without a URL"
            raise GristError(f"no template of {where} is known "
                             f"(no cluster of {self.config.min_pages} pages or more)")
        if (self.config.paths == "nodes" and doc.dom is None) or not any(b.path for b in blocks):
            raise GristError("the site model reads DOM paths; this method's blocks have none "
                             "(lineblock reads lines, not the DOM: use another method)")
        strings = page_path_strings(doc, blocks, self.config.paths, self.config.fold_digits)
        found, similarity = self._assign(group, np.unique(element_hashes(strings)))
        if found is None:
            raise GristError(f"no template of {group or 'pages without a URL'} matches this page "
                             f"(best similarity {similarity:.2f} < {self.config.min_similarity})")
        return found, similarity

    def evidence(self, doc: Document, blocks: Sequence[Block]) -> Evidence:
        """The cluster's counts for every block: its path, and its path with its text; and what
        the page method did in its slot on the cluster's other pages (a page the cluster was
        fitted on has its own counts taken out, by its present labels)."""
        found, similarity = self.cluster_of(doc, blocks)
        fold = self.config.fold_digits
        text = found.counts(element_hashes(block_key(b, fold) for b in blocks))
        path = found.counts(element_hashes(b.path for b in blocks))
        slots = slot_hashes(blocks)
        pages, placed, kept = found.slots.lookup(slots)
        own = found.is_member(page_digest(doc))
        if own:
            _, mine, mine_kept = Slots.of_page(blocks, slots).lookup(slots)
            pages, placed = np.maximum(pages - 1, 0), np.maximum(placed - mine, 0)
            kept = np.minimum(np.maximum(kept - mine_kept, 0), placed)
        return Evidence(found.id, found.size, path, text, similarity,
                        SlotVote(pages, placed, kept), own)

    def annotate(self, doc: Document, blocks: Sequence[Block]) -> FeatureMatrix:
        """Columns ``COLUMNS``: cluster size M, pages with the block's path, pages with its path
        and text, whether that is a template path; all 0 when the page matches no cluster."""
        values = np.zeros((len(blocks), len(COLUMNS)))
        try:
            found = self.evidence(doc, blocks)
        except GristError:
            return FeatureMatrix(COLUMNS, values)
        values[:, 0] = found.pages
        values[:, 1] = found.path_pages
        values[:, 2] = found.text_pages
        values[:, 3] = found.template()
        if found.slots is not None:
            values[:, 4] = found.slots.pages
            values[:, 5] = found.slots.share()
        return FeatureMatrix(COLUMNS, values)

    def relabel(self, doc: Document, blocks: Sequence[Block]) -> list[Verdict | None]:
        """Verdicts where the site evidence changes a block's label (None elsewhere); a
        GristError when the page matches no cluster or every block it kept is template text
        (extraction keeps the page's labels)."""
        if self.config.decide == "none":
            return [None] * len(blocks)
        found = self.evidence(doc, blocks)
        kept = np.fromiter((b.label == CONTENT for b in blocks), bool, len(blocks))
        if found.empties(kept):
            raise GristError(f"every block the page kept is template text of cluster "
                             f"{found.cluster}, so the page is kept as the page method found it")
        reported = np.fromiter((b.role in REPORTED_ROLES for b in blocks), bool, len(blocks))
        drops, restores = decide(found, kept, reported, self.config)
        verdicts: list[Verdict | None] = [None] * len(blocks)
        for i in np.flatnonzero(drops).tolist():
            verdicts[i] = Verdict(BOILERPLATE, found.reason(int(found.text_pages[i])), self.source)
        slots = found.slots
        if slots is not None:
            for i in np.flatnonzero(restores).tolist():
                verdicts[i] = Verdict(CONTENT, slots.reason(i, found.cluster), self.source)
        return verdicts

    def transform(self, page: RawPage, method: str = "auto") -> Result:
        """The page extracted with this model's verdicts: ``grist.extract(page, site=self)``."""
        from grist.api import extract

        return extract(page, method=method, site=self)

    def _check_fitted(self) -> None:
        if not hasattr(self, "clusters_"):
            raise GristError("the site model is not fitted: call fit(pages) first")

    # -- inspection -------------------------------------------------------------------------
    def describe(self) -> list[dict[str, Any]]:
        """One record per cluster: number, site, size, pages and template paths."""
        self._check_fitted()
        return [{"cluster": c.id, "site": c.group, "pages": c.size, "members": c.pages,
                 "template": [{"path": p, "pages": n} for p, n in c.template()]}
                for c in self.clusters_]

    # -- persistence ------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Write the model (``grist.modelfile``, kind ``site``), atomically."""
        self._check_fitted()
        write_model(path, KIND, VERSION, {
            "config": asdict(self.config), "n_pages": self.n_pages_, "errors": self.errors_,
            "costs": {g: list(c) for g, c in self.costs_.items()},
            "clusters": [c.payload() for c in self.clusters_]})

    @classmethod
    def load(cls, path: str | Path) -> SiteModel:
        """Read a model written by ``save``; ModelError for anything else."""
        return load_model(path, KIND, VERSION, partial(cls._from_payload, origin=str(path)))

    @classmethod
    def _from_payload(cls, payload: dict[str, Any], origin: str) -> SiteModel:
        """The model a saved payload describes; a ModelError naming the file (``origin``) and
        the field or setting that is wrong."""
        try:
            model = cls(SiteConfig.make(**entry(payload, "config", dict)))
            model.clusters_ = _clusters(entries(payload, "clusters", dict))
            model.errors_ = [dict(e) for e in entries(payload, "errors", dict)]
            model.costs_ = _costs(entry(payload, "costs", dict))
            model.n_pages_ = entry(payload, "n_pages", int)
        except (ModelError, ConfigError) as exc:
            raise ModelError(f"{origin}: {exc}") from None
        model._index()
        return model


def _clusters(saved: list[dict[str, Any]]) -> list[SiteCluster]:
    """The clusters ``save`` wrote, each numbered by its place (as ``update`` finds them)."""
    clusters = [SiteCluster.from_payload(c, f"cluster {i}'s") for i, c in enumerate(saved)]
    for i, made in enumerate(clusters):
        if made.id != i:
            raise broken(f"cluster {i} is numbered {made.id}")
    return clusters


def _costs(saved: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """The clustering cost before and after per site, as ``save`` wrote them."""
    if any(type(c) is not list or len(c) != 2 or any(type(x) not in (int, float) for x in c)
           for c in saved.values()):
        raise broken("its 'costs' field should give each site two numbers")
    return {g: (float(a), float(b)) for g, (a, b) in saved.items()}
