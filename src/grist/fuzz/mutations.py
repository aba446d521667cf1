"""Fuzz families that damage a plausible page: byte flips, truncation, splices, repeated and
deleted slices, markup fragments inserted at random places, random tag soup."""

from __future__ import annotations

from grist.fuzz.cases import Context, Made, family
from grist.fuzz.pages import article_page, sentence

# Pieces of markup that change the parser's state when dropped anywhere.
FRAGMENTS = (
    "<", "</", "<!--", "-->", "<!", "<?", "<![CDATA[", "]]>", "<script>", "</script>", "<style>",
    "<textarea>", "<title>", "<plaintext>", "<xmp>", "<noscript>", "<iframe>", "<template>",
    "<svg>", "<math>", "<table>", "<tr>", "<td>", "</table>", "<select>", "<option>", "<b>", "</b>",
    "<a href=x>", "</a>", "<p>", "</p>", "<div>", "</div>", "</span>", "<li>", "<br>", "</br>",
    "<frameset>", "<body>", "<html>", "<head>", "<foreignObject>", "<annotation-xml>", "<desc>",
    '"', "'", "=", ">", "&", "&#", "&amp", "&#x", "\x00", "\r", "\x0c", "\ufeff", "\ud7ff",
    "<object>", "<applet>", "<marquee>", "<caption>", "<colgroup>", "<col>", "<nobr>", "<font>",
    "<meta charset=utf-16>", "<meta charset=idna>", "<base href=http://[>", "<image>", "<isindex>",
)
TAGS = (
    "div", "span", "p", "a", "b", "i", "em", "strong", "font", "nobr", "u", "s", "table", "tr",
    "td", "th", "tbody", "caption", "col", "ul", "ol", "li", "dl", "dt", "dd", "h1", "h3", "form",
    "select", "option", "optgroup", "textarea", "button", "input", "img", "br", "hr", "svg", "math",
    "path", "mi", "mtext", "foreignobject", "template", "script", "style", "title", "noscript",
    "iframe", "object", "embed", "marquee", "applet", "section", "article", "nav", "aside", "main",
    "header", "footer", "pre", "code", "blockquote", "x-custom", "frameset", "frame", "body",
    "html", "head", "meta", "link", "base", "plaintext", "xmp", "ruby", "rt", "label", "center",
)


def base_page(ctx: Context) -> str:
    """A page to damage: a real one from the corpus when there is one, else a synthetic one."""
    if ctx.corpus and ctx.rng.random() < 0.6:
        return ctx.pick(ctx.corpus)
    return article_page(ctx.rng, ctx.count(1, 200))


def _bytes(ctx: Context) -> bytearray:
    return bytearray(base_page(ctx).encode("utf-8"))


@family("flip", 6)
def flip(ctx: Context) -> Made:
    """Random bytes of a page replaced by random bytes (some by markup characters)."""
    data = _bytes(ctx)
    flips = ctx.count(1, max(1, len(data) // 20))
    for _ in range(flips):
        at = ctx.rng.randrange(len(data))
        data[at] = ctx.pick(b"<>/\"'=&!-\x00\xff\xc3\x80") if ctx.rng.random() < 0.5 \
            else ctx.rng.randrange(256)
    return Made(bytes(data), f"{flips} byte flips")


@family("truncate", 4)
def truncate(ctx: Context) -> Made:
    """A page cut short anywhere: inside a tag, an entity, a comment or a UTF-8 sequence."""
    data = _bytes(ctx)
    cut = ctx.rng.randrange(1, len(data) + 1)
    return Made(bytes(data[:cut]), f"cut at {cut} of {len(data)}")


@family("splice", 4)
def splice(ctx: Context) -> Made:
    """Slices of two pages glued together (a second head inside a body, an unclosed table...)."""
    first, second = _bytes(ctx), _bytes(ctx)
    a, b = sorted(ctx.rng.randrange(len(first) + 1) for _ in range(2))
    c = ctx.rng.randrange(len(second) + 1)
    return Made(bytes(first[:a] + second[c:] + first[b:]), "splice")


@family("duplicate", 5)
def duplicate(ctx: Context) -> Made:
    """A slice of a page repeated many times: a storm of whatever structure the slice holds."""
    text = base_page(ctx)
    start = ctx.rng.randrange(len(text))
    piece = text[start : start + ctx.count(2, 400)]
    times = ctx.count(2, max(2, 2_000_000 // max(len(piece), 1)))
    return Made(text[:start] + piece * times + text[start:], f"{len(piece)} chars x {times}")


@family("delete", 2)
def delete(ctx: Context) -> Made:
    """Random ranges of a page removed (end tags and starts lose their partners)."""
    text = base_page(ctx)
    for _ in range(ctx.count(1, 50)):
        at = ctx.rng.randrange(len(text) + 1)
        text = text[:at] + text[at + ctx.count(1, 200) :]
    return Made(text or "x", "deletions")


@family("insert", 6)
def insert(ctx: Context) -> Made:
    """Markup fragments dropped at random places of a page."""
    text = base_page(ctx)
    pieces = ctx.count(1, 3000)
    parts, last = [], 0
    for at in sorted(ctx.rng.randrange(len(text) + 1) for _ in range(pieces)):
        parts += [text[last:at], ctx.pick(FRAGMENTS)]
        last = at
    parts.append(text[last:])
    return Made("".join(parts), f"{pieces} fragments")


@family("soup", 6)
def soup(ctx: Context) -> Made:
    """Random start and end tags, attributes, comments and text in any order."""
    rng = ctx.rng
    out = []
    for _ in range(ctx.count(10, 60_000)):
        roll = rng.random()
        tag = ctx.pick(TAGS)
        if roll < 0.4:
            attrs = "".join(f' {ctx.pick(("class", "id", "href", "style", "src", "color", "x"))}='
                            f'"{ctx.pick(("ad", "nav", "x", "background:url(a)", "http://a/"))}"'
                            for _ in range(rng.randint(0, 2)))
            out.append(f"<{tag}{attrs}{'/' if rng.random() < 0.1 else ''}>")
        elif roll < 0.7:
            out.append(f"</{tag}>")
        elif roll < 0.95:
            out.append(sentence(rng, rng.randint(1, 8)))
        else:
            out.append(ctx.pick(FRAGMENTS))
    return Made("".join(out), f"{len(out)} tokens")
