"""Seed 001 §3.2 primary-noise rules over the lexbor DOM, one function per rule.

A rule looks at the page and returns the elements it wants gone, each with a short reason
(``Hit``); ``grist.clean.apply_rules`` removes them and records what was removed and why. Rules
never decide about ``html``/``body``/``head`` themselves.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from grist.clean.counts import SubtreeCounts, word_count
from grist.clean.domains import host_matches, host_of, registrable_domain
from grist.limits import Budget

Node = Any  # a selectolax LexborNode
Hit = tuple[Node, str]

_NEVER = frozenset({"html", "head", "body"})
_TOKEN_SPLIT = re.compile(r"[^a-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_BACKGROUND_PROPERTY = re.compile(r"background(?:-image)?\s*:", re.IGNORECASE)
_URL = re.compile(r"url\(", re.IGNORECASE)
_PIXELS = re.compile(r"(\d+)\s*(?:px)?")  # fullmatch on the stripped value: one \s* run, linear
_COPYRIGHT = re.compile(r"©|&copy;|\bcopyright\b|\ball rights reserved\b", re.IGNORECASE)
_LINK_CONTAINERS = frozenset(
    "li ul ol p div nav footer header aside section td tr table dd dt dl span small center".split()
)
_COPYRIGHT_TAGS = "p, div, span, small, footer, td, li, address, center"


@dataclass(frozen=True)
class RuleContext:
    """What the rules need to know besides the DOM: the page URL, the lists and the limits."""

    url: str | None
    ad_providers: frozenset[str]
    ad_tokens: frozenset[str]
    ad_substrings: tuple[str, ...]
    social: frozenset[str]
    legal: tuple[str, ...]
    iab_sizes: frozenset[tuple[int, int]]
    suffixes: frozenset[str]
    background_max_words: int
    link_block_max_other_words: int
    copyright_max_words: int
    words: Callable[[Node], int] = word_count
    budget: Budget | None = None


def background_images(style: str) -> tuple[bool, str]:
    """Whether a style sets a background image (``background[-image]: ... url(``, in one
    declaration), and the style with each such declaration's head up to its last ``url(`` cut
    out. The same as searching and substituting ``background(?:-image)?\\s*:[^;]*url\\(``, but
    linear: that pattern backtracks over every ``background:`` without a ``url(`` after it."""
    found, kept = False, []
    for declaration in style.split(";"):
        head = _BACKGROUND_PROPERTY.search(declaration)
        urls = [m.start() for m in _URL.finditer(declaration, head.end())] if head else []
        if urls:
            found = True
            declaration = declaration[: head.start()] + declaration[urls[-1] + 4 :]
        kept.append(declaration)
    return found, ";".join(kept)


def class_tokens(value: str) -> list[str]:
    """``topAdBox ad_slot-2`` -> ``top ad box ad slot 2``: camelCase humps and punctuation split."""
    return [t for t in _TOKEN_SPLIT.split(_CAMEL.sub(" ", value).lower()) if t]


def _elements(dom: Node, selector: str) -> list[Node]:
    return [n for n in dom.css(selector) if n.tag not in _NEVER]


def background(dom: Node, ctx: RuleContext) -> list[Hit]:
    """Elements with a ``background`` attribute or a background-image style (decorative)."""
    hits = []
    for node in dom.css("[background], [style*=background], [style*=BACKGROUND]"):
        attrs = node.attributes
        has_attr = "background" in attrs
        style = attrs.get("style") or ""
        image, stripped = background_images(style)
        if not has_attr and not image:
            continue
        if node.tag in _NEVER or ctx.words(node) > ctx.background_max_words:
            if has_attr:  # a content-bearing container: drop the decoration, keep the text
                del node.attrs["background"]
            if style:
                node.attrs["style"] = stripped
            continue
        hits.append((node, "background attribute" if has_attr else "background-image style"))
    return hits


def foreign_images(dom: Node, ctx: RuleContext) -> list[Hit]:
    """Images served from another registrable domain than the page's (needs the page URL)."""
    page_host = host_of(ctx.url) if ctx.url else ""
    if not page_host:
        return []
    page_domain = registrable_domain(page_host, ctx.suffixes)
    hits = []
    for node in dom.css("img[src]"):
        host = host_of(node.attributes.get("src") or "", ctx.url)
        if host and registrable_domain(host, ctx.suffixes) != page_domain:
            hits.append((node, f"image from {host}"))
    return hits


def ad_providers(dom: Node, ctx: RuleContext) -> list[Hit]:
    """Links, scripts, frames and images pointing at a known advertising provider."""
    hits = []
    for node in dom.css("a[href], script[src], iframe[src], img[src], embed[src], object[data], link[href]"):
        attrs = node.attributes
        url = attrs.get("href") or attrs.get("src") or attrs.get("data") or ""
        provider = host_matches(host_of(url, ctx.url), ctx.ad_providers)
        if provider:
            hits.append((node, f"ad provider {provider}"))
    return hits


def ad_keywords(dom: Node, ctx: RuleContext) -> list[Hit]:
    """Elements whose class, id or src holds an advertising keyword as a whole token."""
    hits = []
    for node in _elements(dom, "[class], [id], [src]"):
        attrs = node.attributes
        for attr in ("id", "class", "src"):
            value = attrs.get(attr)
            if not value:
                continue
            tokens = class_tokens(value)
            found = next((t for t in tokens if t in ctx.ad_tokens), None)
            if found is None:
                lowered = value.lower()
                found = next((s for s in ctx.ad_substrings if s in lowered), None)
            if found is not None:
                hits.append((node, f"ad keyword {found!r} in {attr}"))
                break
    return hits


def _size(attrs: dict, name: str) -> int | None:
    match = _PIXELS.fullmatch((attrs.get(name) or "").strip())
    return int(match.group(1)) if match else None


def iab_banners(dom: Node, ctx: RuleContext) -> list[Hit]:
    """Images and ad slots sized exactly like an IAB standard banner (width x height)."""
    hits = []
    for node in dom.css("img[width][height], iframe[width][height], ins[width][height], embed[width][height]"):
        size = (_size(node.attributes, "width"), _size(node.attributes, "height"))
        if size in ctx.iab_sizes:
            hits.append((node, f"IAB banner size {size[0]}x{size[1]}"))
    return hits


def plugins(dom: Node, ctx: RuleContext) -> list[Hit]:
    """EMBED, OBJECT, APPLET, AUDIO, VIDEO and IFRAME-with-SRC plug-ins."""
    return [(n, f"plug-in <{n.tag}>") for n in dom.css("embed, object, applet, audio, video, iframe[src]")]


def _link_blocks(dom: Node, is_target: Callable[[Node], bool], max_other: int, what: str,
                 budget: Budget | None = None) -> list[Hit]:
    """The largest containers made of target links: at least half their links are targets and at
    most ``max_other`` words lie outside links.

    Totals come from one walk (``SubtreeCounts``) and each container is judged once, however
    many links lie under it, so a storm of links costs linear time.
    """
    counts = SubtreeCounts(dom.root, is_target, budget)
    if not counts.target_links:
        return []
    words, links, targets, linked = counts.words, counts.links, counts.targets, counts.linked

    def qualifies(node: Node) -> bool:
        if node.tag in _NEVER or node.tag not in _LINK_CONTAINERS:
            return False
        key = node.mem_id
        return targets[key] * 2 >= links[key] and words[key] - linked[key] <= max_other

    top: dict[int, Node] = {}  # a qualifying container -> the highest one its climb reaches
    failed: set[int] = set()
    chosen: dict[int, Node] = {}
    for link in counts.target_links:
        climbed, node, best = [], link.parent, None
        while node is not None:
            key = node.mem_id
            if key in top:
                best = top[key]
                break
            if key in failed or not qualifies(node):
                failed.add(key)
                break
            climbed.append(node)
            node = node.parent
        if best is None:
            best = climbed[-1] if climbed else link
        for node in climbed:
            top[node.mem_id] = best
        if best is not link:  # a lone link inside running text stays
            chosen[best.mem_id] = best
    return [(n, what) for n in outermost(list(chosen.values()))]


def outermost(nodes: list[Node]) -> list[Node]:
    """The distinct nodes of the list that do not lie inside another node of the list.

    Each ancestor is visited once over all nodes (what is known of it is remembered), so the
    cost is linear in the size of the tree, not in nodes times depth.
    """
    unique = {n.mem_id: n for n in nodes}
    inside: dict[int, bool] = {}  # an ancestor -> whether it lies inside a node of the list
    kept = []
    for node in unique.values():
        climbed, parent, covered = [], node.parent, False
        while parent is not None:
            key = parent.mem_id
            if key in unique:
                covered = True
                break
            if key in inside:
                covered = inside[key]
                break
            climbed.append(key)
            parent = parent.parent
        for key in climbed:
            inside[key] = covered
        if not covered:
            kept.append(node)
    return kept


def social_links(dom: Node, ctx: RuleContext) -> list[Hit]:
    """Share/follow blocks: links to social networks and the small containers made of them."""

    def is_social(a: Node) -> bool:
        href = a.attributes.get("href") or ""
        return host_matches(host_of(href, ctx.url), ctx.social) is not None

    return _link_blocks(dom, is_social, ctx.link_block_max_other_words, "social-network links",
                        ctx.budget)


def legal_links(dom: Node, ctx: RuleContext) -> list[Hit]:
    """Blocks of terms/privacy/disclaimer/copyright links, and short copyright notices."""

    def is_legal(a: Node) -> bool:
        words = a.text(deep=True, separator=" ").lower().split()
        if not words or len(words) > 5:
            return False
        text = f" {' '.join(words)} "
        return any(f" {phrase} " in text for phrase in ctx.legal)

    hits = _link_blocks(dom, is_legal, ctx.link_block_max_other_words, "legal links", ctx.budget)
    notices = []
    for number, node in enumerate(_elements(dom, _COPYRIGHT_TAGS)):
        if ctx.budget is not None and number % 1024 == 1023:
            ctx.budget.check("noise rules")
        if ctx.words(node) <= ctx.copyright_max_words and _COPYRIGHT.search(node.text(deep=True)):
            notices.append(node)
    hits.extend((n, "copyright notice") for n in outermost(notices))
    return hits


RULES: dict[str, Callable[[Node, RuleContext], list[Hit]]] = {
    "background": background,
    "foreign_images": foreign_images,
    "ad_providers": ad_providers,
    "ad_keywords": ad_keywords,
    "iab_banners": iab_banners,
    "plugins": plugins,
    "social_links": social_links,
    "legal_links": legal_links,
}
