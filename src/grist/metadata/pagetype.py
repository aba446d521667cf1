"""What kind of page it is: article, forum (a thread or comments), product, listing, docs, other.

Rules, most specific evidence first: the schema.org types the page declares, its OpenGraph type,
words in its URL, then the shape of the extraction (a page of short linked teasers is a listing).
The rules and their order were chosen on modern-dev and checked on wcxb-dev
(docs/benchmarks/metadata.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from grist.document import Block
from grist.whitespace import count_tokens

PAGE_TYPES = ("article", "forum", "product", "listing", "docs", "other")

_LD = (
    ("forum", {"DiscussionForumPosting", "QAPage", "Question", "Answer", "Comment"}),
    ("product", {"Product", "ProductGroup", "Offer", "AggregateOffer", "IndividualProduct",
                 "Vehicle", "SoftwareApplication"}),
    ("docs", {"TechArticle", "APIReference"}),
    ("listing", {"ItemList", "CollectionPage", "SearchResultsPage", "OfferCatalog"}),
    ("article", {"Article", "NewsArticle", "BlogPosting", "Report", "ScholarlyArticle",
                 "AnalysisNewsArticle", "OpinionNewsArticle", "ReportageNewsArticle",
                 "LiveBlogPosting", "Recipe", "HowTo", "Review"}),
)
_URL = (
    ("forum", re.compile(r"/(?:forums?|threads?|t|topics?|questions|discussions?|community|"
                         r"comments|viewtopic\.php|showthread\.php)(?:/|$|\.|\?)|"
                         r"^(?:forums?|community|discuss|answers)\.")),
    ("docs", re.compile(r"/(?:docs?|documentation|reference|api|manual|handbook|sdk|"
                        r"developers?|guides?|tutorials?|learn|kb|knowledge-?base|wiki|"
                        r"man)(?:/|$|\.)|^(?:docs?|developers?|developer|learn|wiki|help|"
                        r"support|kb)\.")),
    ("product", re.compile(r"/(?:products?|p|dp|item|items|shop|store|buy|sku)(?:/|$)")),
    ("listing", re.compile(r"/(?:category|categories|tags?|collections?|archives?|search|"
                           r"topics|browse|directory|list|listings?)(?:/|$)")),
)


def _from_schema(ld_types: Iterable[str], og_type: str | None) -> str | None:
    names = set(ld_types)
    for kind, wanted in _LD:
        if names & wanted:
            return kind
    og = (og_type or "").lower()
    if og.startswith("product") or og == "og:product":
        return "product"
    if og in ("article", "blog", "blogpost", "news"):
        return "article"
    return None


def _from_url(url: str | None) -> str | None:
    if not url:
        return None
    parts = urlsplit(url)
    where = (parts.hostname or "").removeprefix("www.") + "\n" + parts.path.lower()
    host, _, path = where.partition("\n")
    for kind, pattern in _URL:
        if pattern.search(path) or pattern.search(host):
            return kind
    return None


def _from_blocks(blocks: list[Block]) -> str | None:
    """A listing keeps mostly short linked teasers; an article a run of long paragraphs."""
    kept = [b for b in blocks if b.is_content]
    if not kept:
        return None
    words = sum(count_tokens(b.text) for b in kept)
    linked = sum(b.anchor_words for b in kept)
    long_paragraphs = sum(1 for b in kept if count_tokens(b.text) >= 40 and not b.anchor_words)
    if words and linked / words > 0.5:
        return "listing"
    if long_paragraphs >= 3:
        return "article"
    return None


def page_type(ld_types: Iterable[str], og_type: str | None, url: str | None,
              blocks: list[Block]) -> str:
    """One of ``PAGE_TYPES``."""
    return (_from_schema(ld_types, og_type) or _from_url(url) or _from_blocks(blocks)
            or "other")
