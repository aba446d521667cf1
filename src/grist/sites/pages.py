"""Pages as a site model reads them: parsed once (extracted, when the model learns content
slots), turned into a path set, grouped by site.

A page that cannot be read (empty, not HTML, over a cap, no visible text) becomes an error
record instead; the others keep their path strings compressed until the templates are named.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import xxhash

from grist.clean.domains import host_of, registrable_domain
from grist.clean.lists import bundled_list
from grist.dedup.minhash import element_hashes
from grist.document import Block, Document, RawPage
from grist.errors import GristError, UnreadableInputError
from grist.html.load import load_document
from grist.html.parse import parse_document
from grist.html.scripted import no_text_error
from grist.limits import Limits
from grist.segment.blocks import segment
from grist.sites.paths import block_paths, node_paths
from grist.sites.slots import Slots

if TYPE_CHECKING:  # pragma: no cover
    from grist.result import Result

PATH_READINGS = ("blocks", "nodes")
GROUPINGS = ("host", "domain", "none")
_WHOLE = "*"  # the one group when pages are not grouped by site


def site_of(url: str | None, group_by: str) -> str:
    """The group a page belongs to: its host without ``www.`` (``host``), its registrable domain
    (``domain``), or one group for all (``none``); "" for a page without a URL."""
    if group_by == "none":
        return _WHOLE
    host = host_of(url) if url else ""
    if host.startswith("www."):
        host = host[4:]
    if group_by == "domain" and host:
        return registrable_domain(host, frozenset(bundled_list("public_suffixes")))
    return host


def page_digest(doc: Document) -> int:
    """What tells a page apart from every other: a 64-bit hash of its decoded source (a cluster
    keeps its members' digests, so a page extracted with the model it helped fit is known)."""
    return xxhash.xxh3_64_intdigest(doc.html.encode("utf-8", "surrogatepass"))


def page_path_strings(doc: Document, blocks: Sequence[Block] | None, reading: str,
                      fold_digits: bool) -> list[str]:
    """A parsed page's path set under ``reading`` (``blocks`` needs its blocks)."""
    if reading == "nodes":
        return node_paths(doc, fold_digits)
    return block_paths(blocks if blocks is not None else segment(doc), fold_digits)


@dataclass(frozen=True)
class PagePaths:
    """One readable page: its name, URL, group, a key that orders pages independently of the
    order they came in, its path hashes (sorted, distinct), its path strings (compressed), its
    digest (``page_digest``) and, when a page method labelled it, its content slots."""

    input: str
    url: str | None
    group: str
    order: tuple[str, str, int]
    hashes: np.ndarray
    packed: bytes
    digest: int = 0
    slots: Slots = field(default_factory=Slots.empty)

    def strings(self) -> list[str]:
        return zlib.decompress(self.packed).decode("utf-8", "surrogatepass").split("\n")


@dataclass(frozen=True)
class PageError:
    """A page the model could not learn from, and why."""

    input: str
    error: str
    reason: str

    def record(self) -> dict[str, str]:
        return {"input": self.input, "error": self.error, "reason": self.reason}


def _check_fields(page: RawPage) -> None:
    """UnreadableInputError for a RawPage whose content is not bytes or text, or whose URL or
    charset is not text (such a page is skipped like any unreadable one, not a crash of fit)."""
    if not isinstance(page.content, (bytes, bytearray, memoryview, str)):
        raise UnreadableInputError(f"the page's content must be bytes or str, not "
                                   f"{type(page.content).__name__}")
    for name in ("url", "http_charset"):
        value = getattr(page, name)
        if value is not None and not isinstance(value, str):
            raise UnreadableInputError(f"the page's {name} must be a str or None, not "
                                       f"{type(value).__name__}")


def read_page(page: RawPage, reading: str, fold_digits: bool, group_by: str,
              limits: Limits | None = None,
              labeller: Callable[[RawPage], Result] | None = None) -> PagePaths | PageError:
    """Parse one page into its path set, or say why it cannot be. With a ``labeller`` (an
    extractor, which applies its own limits) the page is extracted instead of only parsed, and
    its content slots recorded."""
    name = str(page.input or page.url or "<page>")
    try:
        _check_fields(page)
        if labeller is not None:
            result = labeller(page)
            doc, blocks, slots = result.document, result.blocks, Slots.of_page(result.blocks)
        else:
            doc = parse_document(load_document(page.content, page.url,
                                               http_charset=page.http_charset, limits=limits),
                                 limits)
            blocks, slots = None, Slots.empty()
        strings = page_path_strings(doc, blocks, reading, fold_digits)
        if not any("\t" in s for s in strings):
            raise no_text_error(doc.html)
    except GristError as exc:
        return PageError(name, str(exc), exc.reason)
    content = page.content.encode("utf-8", "surrogatepass") if isinstance(page.content, str) \
        else page.content
    hashes = np.unique(element_hashes(strings))
    packed = zlib.compress("\n".join(strings).encode("utf-8", "surrogatepass"), 1)
    return PagePaths(name, page.url, site_of(page.url, group_by),
                     (page.url or "", name, xxhash.xxh3_64_intdigest(content)), hashes, packed,
                     page_digest(doc), slots)


def names_of(wanted: np.ndarray, pages: Sequence[PagePaths]) -> dict[int, str]:
    """The path strings of the hashes in ``wanted``, looked up in the pages' own strings."""
    found: dict[int, str] = {}
    missing = set(wanted.tolist())
    for page in pages:
        if not missing:
            break
        strings = page.strings()
        for value, string in zip(element_hashes(strings).tolist(), strings, strict=True):
            if value in missing:
                found[value] = string
                missing.discard(value)
    return found
