"""Read every metadata candidate a page declares, source by source, in order of trust.

JSON-LD first (the page's own structured description of its main entity), then OpenGraph and
Twitter cards, microdata, plain ``<meta>`` and ``<link>`` elements. Each field gets its candidate
values in that order; ``grist.metadata`` keeps the first one its field's check accepts.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from selectolax.lexbor import LexborHTMLParser

from grist.metadata.jsonld import Graph, objects, parse_block, references, types

Candidates = dict[str, list[str]]

ARTICLE_TYPES = frozenset((
    "Article", "NewsArticle", "BlogPosting", "Report", "TechArticle", "ScholarlyArticle",
    "AnalysisNewsArticle", "OpinionNewsArticle", "ReportageNewsArticle", "ReviewNewsArticle",
    "LiveBlogPosting", "SocialMediaPosting", "Review", "Recipe", "HowTo", "MedicalWebPage",
    "APIReference", "Guide", "Course", "Event", "JobPosting", "Book", "Movie",
))
ENTITY_TYPES = ARTICLE_TYPES | frozenset((
    "Product", "DiscussionForumPosting", "QAPage", "Question", "SoftwareApplication", "Service",
    "Dataset", "CreativeWork",
))
PAGE_TYPES = frozenset((
    "WebPage", "ItemPage", "AboutPage", "FAQPage", "CollectionPage", "ProfilePage",
    "ContactPage", "SearchResultsPage", "CheckoutPage",
))
_SITE_TYPES = ("WebSite", "Organization", "NewsMediaOrganization", "Corporation")
_PEOPLE = frozenset(("author", "creator"))  # who wrote an entity: not the site that publishes it

# <meta name=...> keys (lower-cased) per field, in order of preference.
META_NAMES = {
    "title": ("title", "dc.title", "dcterms.title", "citation_title", "parsely-title",
              "sailthru.title"),
    "author": ("author", "article:author", "dc.creator", "dcterms.creator", "citation_author",
               "parsely-author", "sailthru.author", "byl", "cxenseparse:author", "creator"),
    "date": ("article:published_time", "datepublished", "date", "pubdate", "publishdate",
             "publish_date", "publish-date", "publication_date", "dc.date", "dc.date.issued",
             "dc.date.created", "dcterms.date", "dcterms.issued", "dcterms.created",
             "citation_publication_date", "citation_date", "citation_online_date",
             "parsely-pub-date", "sailthru.date", "article.published", "og:published_time",
             "created", "release_date", "original-publish-date", "date.created"),
    "modified": ("article:modified_time", "datemodified", "og:updated_time", "last-modified",
                 "dcterms.modified", "dc.date.modified", "lastmod", "revised", "modified"),
    "sitename": ("og:site_name", "application-name", "apple-mobile-web-app-title",
                 "twitter:site", "publisher", "dc.publisher", "citation_publisher"),
    "description": ("description", "dc.description", "dcterms.description",
                    "twitter:description"),
    "image": ("twitter:image", "twitter:image:src", "thumbnail", "parsely-image-url"),
    "tags": ("keywords", "news_keywords", "parsely-tags", "sailthru.tags", "article:tag"),
    "categories": ("article:section", "section", "parsely-section", "category"),
    "language": ("content-language", "language", "dc.language", "og:locale"),
}
# OpenGraph / Twitter card properties per field (property= or name=), trusted before <meta name>.
CARD_NAMES = {
    "title": ("og:title", "twitter:title"),
    "sitename": ("og:site_name",),
    "description": ("og:description", "twitter:description"),
    "image": ("og:image", "og:image:url", "og:image:secure_url", "twitter:image"),
    "url": ("og:url",),
    "type": ("og:type",),
    "date": ("article:published_time", "og:published_time", "og:article:published_time"),
    "modified": ("article:modified_time", "og:updated_time", "og:article:modified_time"),
    "author": ("article:author", "og:article:author", "book:author"),
    "categories": ("article:section", "og:article:section"),
    "tags": ("article:tag", "og:article:tag", "book:tag", "video:tag"),
    "language": ("og:locale",),
}
MICRODATA = {
    "headline": "title", "author": "author", "creator": "author", "datepublished": "date",
    "datecreated": "date", "datemodified": "modified", "description": "description",
    "publisher": "sitename", "image": "image", "keywords": "tags", "articlesection": "categories",
}


def _jsonld(dom: LexborHTMLParser, found: Candidates) -> None:
    """Candidates from the page's JSON-LD: its main entity first, then the page and the site."""
    blocks = [parse_block(script.text(deep=True)) for script in dom.css("script")
              if "ld+json" in (script.attributes.get("type") or "").lower()]
    graph = Graph.of(blocks)
    entities: list[dict[str, Any]] = []
    pages: list[dict[str, Any]] = []
    sites: list[dict[str, Any]] = []
    for data in blocks:
        for obj in objects(data, skip=_PEOPLE):  # an author is no entity, page or site
            names = types(obj)
            found["ld_type"].extend(sorted(names))
            if names & ENTITY_TYPES:
                entities.append(obj)
            elif names & PAGE_TYPES:
                pages.append(obj)
            elif names.intersection(_SITE_TYPES):
                sites.append(obj)
    entities.sort(key=lambda o: not (types(o) & ARTICLE_TYPES))  # articles first, stable
    for obj in entities + pages:
        _entity(obj, graph, found)
    authors = {ref for obj in entities + pages for key in _PEOPLE
               for ref in references(obj.get(key))}
    for obj in sites:  # (an organization named as an author by reference is not the site)
        if types(obj) & {"WebSite", "Organization"} and obj.get("@id") not in authors:
            found["sitename"] += graph.texts_of(obj.get("name"))[:1]


def _entity(obj: dict[str, Any], graph: Graph, found: Candidates) -> None:
    """The fields of one entity or page, read through the references it holds."""
    found["title"] += graph.texts_of(obj.get("headline"))[:1] + graph.texts_of(obj.get("name"))[:1]
    found["author"] += [", ".join(graph.texts_of(obj.get("author") or obj.get("creator")))]
    found["date"] += graph.texts_of(obj.get("datePublished") or obj.get("dateCreated")
                                    or obj.get("uploadDate"))[:1]
    found["modified"] += graph.texts_of(obj.get("dateModified"))[:1]
    found["description"] += graph.texts_of(obj.get("description"))[:1]
    image = graph.url_of(obj.get("image") or obj.get("thumbnailUrl"))
    found["image"] += [image] if image else []
    keywords = obj.get("keywords")
    found["tags"] += [", ".join(graph.texts_of(keywords))] if keywords else []
    found["categories"] += [", ".join(graph.texts_of(obj.get("articleSection")))]
    publisher = obj.get("publisher")
    if isinstance(publisher, (dict, list)):
        found["sitename"].append(graph.text_of(publisher) or "")
    language = obj.get("inLanguage")
    found["language"] += [graph.text_of(language) or ""] if language else []
    url = graph.url_of(obj.get("url") or obj.get("mainEntityOfPage"))
    found["url"] += [url] if url else []


def _meta(dom: LexborHTMLParser, found: Candidates) -> None:
    """OpenGraph and Twitter cards, then ``<meta name>``, ``<link>`` and ``<html lang>``."""
    values: dict[str, list[str]] = defaultdict(list)
    for node in dom.css("meta"):
        attrs = node.attributes
        key = attrs.get("property") or attrs.get("name") or attrs.get("itemprop") \
            or attrs.get("http-equiv")
        content = attrs.get("content")
        if key and content and content.strip():
            values[key.strip().lower()].append(content.strip())
    for field, keys in CARD_NAMES.items():
        for key in keys:
            found[field] += values.get(key, [])
    for field, keys in META_NAMES.items():
        for key in keys:
            found[f"meta_{field}"] += values.get(key, [])
    for node in dom.css("link[rel]"):
        rel = (node.attributes.get("rel") or "").lower().split()
        href = (node.attributes.get("href") or "").strip()
        if href and "canonical" in rel:
            found["canonical"].append(href)
    html = dom.css_first("html")
    if html is not None:
        found["html_lang"] += [(html.attributes.get("lang") or html.attributes.get("xml:lang")
                                or "").strip()]
    base = dom.css_first("base[href]")
    if base is not None:
        found["base"].append((base.attributes.get("href") or "").strip())


def _microdata(dom: LexborHTMLParser, found: Candidates) -> None:
    """``itemprop`` values (the ``content``/``datetime`` attribute, a nested ``name``, or the
    element's text) for the properties grist reads."""
    for node in dom.css("[itemprop]"):
        if node.tag == "meta":
            continue  # read with the <meta> elements
        for prop in (node.attributes.get("itemprop") or "").lower().split():
            field = MICRODATA.get(prop)
            if field is None:
                continue
            attrs = node.attributes
            value = attrs.get("content") or attrs.get("datetime")
            if not value and field in ("author", "sitename"):
                name = node.css_first("[itemprop~=name]")
                value = name.text(deep=True) if name is not None else None
            if not value and field == "image":
                value = attrs.get("src") or attrs.get("href")
            if not value:
                value = node.text(deep=True, separator=" ")
            value = " ".join((value or "").split())
            if value and len(value) < 300:
                found[f"micro_{field}"].append(value)


_AUTHOR_CLASS = re.compile(r"(?:^|[\s_-])(?:author|byline|writer|posted-by|post-author)"
                           r"(?:name|-name|_name|s)?(?:$|\s)", re.IGNORECASE)
_PUBLISHED_CLASS = re.compile(r"publish|entry-date|post-date|posted|article-date|date-published",
                              re.IGNORECASE)


def _markup(dom: LexborHTMLParser, found: Candidates) -> None:
    """What the markup says without a vocabulary: ``<time datetime>`` elements (those marked
    as the publication date first) and elements classed or linked as the author."""
    marked: list[str] = []
    plain: list[str] = []
    for node in dom.css("time[datetime]"):
        attrs = node.attributes
        value = (attrs.get("datetime") or "").strip()
        if not value:
            continue
        if "pubdate" in attrs or _PUBLISHED_CLASS.search(attrs.get("class") or ""):
            marked.append(value)
        else:
            plain.append(value)
    found["time"] += marked + plain[:1]
    for node in dom.css("time:not([datetime]), [class*=date], [class*=Date]"):
        text = " ".join(node.text(deep=True, separator=" ").split())
        if 6 <= len(text) <= 80:
            found["markup_date"].append(text)
        if len(found["markup_date"]) >= 10:
            break
    for node in dom.css("[rel~=author], a[href*='/author/'], [class*=uthor], [class*=yline]"):
        attrs = node.attributes
        if node.tag in ("meta", "link", "img", "script", "style"):
            continue
        if not (attrs.get("rel") or "/author/" in (attrs.get("href") or "")
                or _AUTHOR_CLASS.search(attrs.get("class") or "")):
            continue
        text = " ".join(node.text(deep=True, separator=" ").split())
        if 2 <= len(text) <= 80:
            found["markup_author"].append(text)
        if len(found["markup_author"]) >= 5:
            break


def read_candidates(dom: LexborHTMLParser) -> Candidates:
    """Every candidate value per field, most trusted first: ``title``, ``author``, ``date``, ...
    from JSON-LD and cards; ``micro_*`` from microdata; ``meta_*`` from ``<meta name>``; plus
    ``canonical``, ``html_lang``, ``base`` and ``ld_type`` (the JSON-LD types on the page)."""
    found: Candidates = defaultdict(list)
    _jsonld(dom, found)
    _meta(dom, found)
    _microdata(dom, found)
    _markup(dom, found)
    return found
