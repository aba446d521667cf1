"""Where the images that stood alone are written, decided once the method has chosen the blocks.

An image in a block without text (a picture paragraph, a figure, a list item or table cell of its
own) is recorded by the segmenter where it stood, between two blocks
(``grist.segment.blocks.record_alone``). ``written_blocks`` writes it beside a kept block next to
where it stood (the one that suits it better, ``_goes_after``), either in that block's text on a
line of its own or, when the block is a heading, code, or in a quote, list item or table cell the
image did not stand in, as a block of its own without text in the list item or cell it stood in
(``_own_block``); ``grist.render.layout`` then treats such a block as any other. Images that show
nothing, the site's logo and a lazy-loading placeholder before its ``noscript`` image are not
written (``_shown``).
"""

from __future__ import annotations

import re
from dataclasses import replace
from urllib.parse import urlsplit

from grist.clean.domains import host_of
from grist.document import Block
from grist.render.inline import safe_url, shown_text
from grist.render.layout import data_tables
from grist.segment.inline import (ALONE, Alone, alone_at, alone_marks, image_source, link_href,
                                  set_apart)

_LISTS = frozenset(("ol", "ul"))
_LOGO = re.compile(r"(?<![a-z])logo|Logo|LOGO")  # (a word or a camel-case part: siteLogo)
_HOME_PATHS = frozenset(("", ".", "..", "index.html", "index.htm", "index.php", "home"))


def _host(url: str | None) -> str:
    """A URL's host without ``www.`` (empty without one)."""
    return host_of(url or "").removeprefix("www.")


def written_blocks(blocks: list[Block], images: bool, base: str | None = None) -> list[Block]:
    """The kept blocks of a page's ``blocks`` (all of them, in order) as they are written, but
    those that show nothing (a permalink alone, ``shown_text``: it would be an empty paragraph,
    term or definition); with ``images``, with the images that stood alone between them: each
    image is written beside a kept block next to where it stood (one with neither neighbour kept
    is not), the one after it or before it as ``_goes_after`` says (once one goes after, those
    following it do too), in that block's text on a line of its own or, when it stood apart from
    the block (``_stood_apart``), as a block of its own (``_own_block``). ``base``: the page's
    address, whose host tells the site's own logo (``_logo``)."""
    if not images:
        return [block for block in blocks if block.is_content and shown_text(block)]
    plain, gaps = _gaps(blocks)
    host = _host(base)
    data = data_tables([block for block in plain if block.is_content])
    n = len(plain)
    at_start: list[list[Alone]] = [[] for _ in range(n)]
    at_end: list[list[Alone]] = [[] for _ in range(n)]
    own: list[list[Block]] = [[] for _ in range(n + 1)]  # the blocks of their own, per gap
    for g, alone in enumerate(gaps):
        before = plain[g - 1] if g and plain[g - 1].is_content else None
        after = plain[g] if g < n and plain[g].is_content else None
        if before is None and after is None:
            continue
        sides = []  # per image: whether it goes after, and whether it stood apart
        goes_after = before is None
        for image in _shown(alone, host):
            goes_after = goes_after or (after is not None and _goes_after(image, before, after))
            sides.append((image, goes_after,
                          _stood_apart(image, after if goes_after else before, data)))
        for image, goes_after, apart in _in_page_order(sides):
            beside = after if goes_after else before
            if apart:
                own[g].append(_own_block(image, beside))
            else:
                (at_start[g] if goes_after else at_end[g - 1]).append(image)
    written = []
    for g, block in enumerate(plain):
        written += own[g]
        if block.is_content and (shown_text(block) or at_start[g] or at_end[g]):
            written.append(_with_images(block, at_start[g], at_end[g]))
    return written + own[n]


def _in_page_order(sides: list[tuple[Alone, bool, bool]]) -> list[tuple[Alone, bool, bool]]:
    """The images of a gap (each: whether it goes after, whether it stood apart) so that they
    are written in page order: the blocks of their own sit between the block before the gap and
    the block after it, so an image written in the block before follows none of them (from the
    first of its own on, those going before are blocks of their own too), and one written in
    the block after precedes none (up to the last of its own, those going after are too)."""
    last_after = max((k for k, (_, after, apart) in enumerate(sides) if after and apart),
                     default=-1)
    ordered, apart_before = [], False
    for k, (image, after, apart) in enumerate(sides):
        if not after:
            apart = apart_before = apart_before or apart
        ordered.append((image, after, apart or (after and k < last_after)))
    return ordered


def _gaps(blocks: list[Block]) -> tuple[list[Block], list[list[Alone]]]:
    """The blocks, the kept ones without the images that stood alone, and those images per gap
    between two blocks (gap ``g`` is before ``blocks[g]``; the last one after the last block)."""
    plain = []
    gaps: list[list[Alone]] = [[] for _ in range(len(blocks) + 1)]
    for g, block in enumerate(blocks):
        if block.marks is not None and any(mark[3] == ALONE for mark in block.marks[1]):
            before, marks, after = set_apart(block.marks)
            gaps[g] += before
            gaps[g + 1] += after
            if block.is_content:
                block = replace(block, marks=marks if marks[1] else None)
        plain.append(block)
    return plain, gaps


def _shown(alone: list[Alone], host: str) -> list[Alone]:
    """The images of a gap a format writes: not a ``data:`` or ``javascript:`` one, which would
    make an empty item, cell or paragraph, nor a site's logo (``_logo``: branding beside the
    text, not part of it); of an image and the ``noscript`` image right after it (a
    lazy-loading page's fallback) one: the fallback, as the image before it may be a
    placeholder (a blurred, tiny copy), or the image itself when both show the same."""
    shown: list[Alone] = []
    before = ""  # the source of the image before, when it is shown (images showing none between)
    for image in alone:
        attrs = image[0].attributes
        src = image_source(attrs)
        if safe_url(src, None) is None:  # (the lazy image itself, its source left to a script)
            continue
        if _logo(image, host):
            before = ""
            continue
        if before and getattr(image[0].parent, "tag", None) == "noscript":
            if src != before:
                shown[-1] = image
            before = ""
            continue
        shown.append(image)
        before = src
    return shown


def _logo(image: Alone, host: str) -> bool:
    """Whether an image is the site's logo: it says it is a logo by its own class or id
    (``logo``, ``site-logo``, ``customLogo``) and links to the home page of the page's own site
    (``host``; a relative link is the site's). A listing's, a client wall's or a partner's logos,
    which say whose entry it is, link elsewhere, to other sites or nowhere."""
    attrs = image[0].attributes
    return (_LOGO.search(f"{attrs.get('class') or ''} {attrs.get('id') or ''}") is not None
            and _home(link_href(image[1]), host))


def _home(href: str, host: str) -> bool:
    """Whether a link's address is the home page (``/``, ``../index.html``, the site's
    ``https://host/``) of the site on ``host`` (``www.`` aside)."""
    try:
        parts = urlsplit(href)
    except ValueError:  # (a malformed address: ``http://[x``)
        return False
    if (not href or href.startswith("#") or parts.query
            or parts.scheme not in ("", "http", "https") or (parts.netloc and _host(href) != host)):
        return False
    path = parts.path
    while path.startswith(("./", "../")):
        path = path.split("/", 1)[1]
    return path.strip("/").lower() in _HOME_PATHS


def _with_images(block: Block, at_start: list[Alone], at_end: list[Alone]) -> Block:
    """``block`` with images that stood alone written at its start and its end."""
    if not (at_start or at_end):
        return block
    pieces, marks = block.marks or ([block.text], [])
    return replace(block, marks=(pieces, [*alone_at(at_start, 0), *marks,
                                          *alone_at(at_end, len(pieces))]))


def _nearness(image: Alone, block: Block) -> int:
    """Where a block is from the list item or table cell an image stood in: 2 in that item or
    the cell's row, 1 elsewhere in its list (an image alone in a list's first item stays in the
    list; not so in a table, whose row after a lone image is often its caption), else 0."""
    _, _, item, cell, _ = image
    if cell is not None and block.cell is not None and cell[:2] == block.cell[:2]:
        return 2
    if item is None or block.list_item is None or item[0] != block.list_item[0]:
        return 0
    return 2 if item[1] == block.list_item[1] else 1


def _rank(image: Alone, block: Block) -> int:
    """How well a block next to an image that stood alone suits it: one in the image's list item
    or table row best, then one elsewhere in its list (``_nearness``), then other text, then a
    heading or a block all of whose text is a link (a button, a menu's entry), and last code, a
    figure's caption (captions are left out of the text unless asked for; the figure's image is
    the text's) or a block in a list, table or quote the image was not in."""
    near = _nearness(image, block)
    if near:
        return 2 + near
    _, _, item, cell, quotes = image
    if block.preformatted or block.tag == "figcaption" or (
            item is None and block.list_item is not None) or (
            cell is None and block.cell is not None) or block.quote_depth > quotes:
        return 0
    return 1 if block.heading or block.anchor_chars >= len(block.text) else 2


def _goes_after(image: Alone, before: Block, after: Block) -> bool:
    """Whether an image that stood alone between two kept blocks goes with the one after it: the
    one that suits it better (``_rank``), else the one that is no heading (a heading is one
    line), else the one after (the text an image illustrates usually follows it) but in a table,
    beside a block of its own list item or list (which goes on from the one before) and between
    two headings (the image is in the first one's section)."""
    rank_before, rank_after = _rank(image, before), _rank(image, after)
    if rank_before != rank_after:
        return rank_after > rank_before
    if bool(before.heading) != bool(after.heading):
        return bool(before.heading)
    return not (image[3] is not None or _nearness(image, before) or before.heading)


def _stood_apart(image: Alone, block: Block, data_tables: set[int]) -> bool:
    """Whether an image written beside ``block`` stood apart from it: the block is a heading (one
    line) or code, or in a quote the image was not in, or in a list item or a data table's cell
    (the table in ``data_tables``; a layout table's cells are laid out like the rest of the page)
    the image did not stand in (``_elsewhere``)."""
    _, _, item, cell, quotes = image
    data_cell = block.cell if block.cell is not None and block.cell[0] in data_tables else None
    return bool(block.heading or block.preformatted or block.quote_depth > quotes
                or _elsewhere(item, block.list_item) or _elsewhere(cell, data_cell))


def _elsewhere(stood: tuple[int, ...] | None, place: tuple[int, ...] | None) -> bool:
    """Whether an image that stood in the list item or table cell ``stood`` (None: in none)
    stood outside the item or cell ``place`` of a block: in none, or in another of the same list
    or table (the first three numbers name an item or a cell). One in another list or table (a
    nested one) is taken to stand in the block's."""
    return place is not None and (stood is None or (stood[0] == place[0]
                                                    and stood[:3] != place[:3]))


def _own_block(image: Alone, block: Block) -> Block:
    """A block without text holding an image that stood alone, written beside ``block`` (which
    lends it its place): no heading or code, in the quotes around both, and in the list item
    and table cell the image stood in (``_where``; out of the block's lists, its path too, when
    it stood in none)."""
    _, _, item, cell, quotes = image
    list_item, cell = _where(item, block.list_item), _where(cell, block.cell)
    in_list = list_item is not None
    tags = block.path.split(">")
    path = block.path if in_list else ">".join(
        tags[: next((k for k, tag in enumerate(tags) if tag in _LISTS), len(tags))])
    return replace(block, text="", path=path, marks=alone_marks(image), heading=0,
                   preformatted=False, quote_depth=min(quotes, block.quote_depth),
                   list_kind=block.list_kind if in_list else "",
                   list_depth=block.list_depth if in_list else 0, list_item=list_item,
                   cell=cell, table=block.table if cell is not None else None)


def _where(stood: tuple[int, ...] | None, place: tuple[int, ...] | None) -> tuple | None:
    """The list item (table cell) a block of its own for an image is in, beside a block in
    ``place``: the one it ``stood`` in when that is in the block's list (table), the block's when
    it stood in another (a nested one), none when either is in none."""
    if stood is None or place is None:
        return None
    return stood if stood[0] == place[0] else place
