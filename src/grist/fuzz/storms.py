"""Fuzz families that repeat one pattern many times: deep nesting, stray end tags, formatting
bombs, tiny tags, link and ad storms, entities, huge text and attributes, unterminated
constructs, raw-text and foreign content. Most slow paths are a storm of one pattern."""

from __future__ import annotations

from grist.fuzz.cases import Context, Made, family
from grist.fuzz.pages import AD_HOSTS, LEGAL, SOCIAL, URLS, WORDS, sentence

HEAD = "<html><head><title>Storm page</title></head><body><p>Intro text, with words.</p>"
FORMATTING = ("a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike",
              "strong", "tt", "u")
NESTING = ("div", "span", "section", "b", "a", "font", "table", "ul", "li", "blockquote", "td",
           "article", "x-y", "object", "template", "p", "dl", "em", "center", "form", "label")
STRAY = ("</span>", "</x>", "</i>", "</p>", "</div>", "</a>", "</table>", "</li>", "</br>",
         "</body>", "</html>", "</td>", "</b>", "</form>", "</template>", "</svg>", "</select>")


def _storm(ctx: Context, unit, limit: int = 400_000) -> tuple[str, int]:
    """``unit(i)`` repeated a drawn number of times (at most ``limit``)."""
    times = ctx.count(1, limit)
    return "".join(unit(i) for i in range(times)), times


def _text(ctx: Context, i: int) -> str:
    return ctx.pick(("", "", f"w{i}, ", "x", " ", sentence(ctx.rng, 3)))


@family("deep", 6)
def deep(ctx: Context) -> Made:
    """Elements nested deep: one tag or a mix, text at some levels, closed or not."""
    tags = [ctx.pick(NESTING) for _ in range(ctx.rng.randint(1, 3))]
    texty = ctx.rng.random() < 0.5
    depth = ctx.count(10, 60_000)
    if ctx.rng.random() < 0.3:  # close to the cap
        depth = max(1, ctx.limits.max_depth + ctx.rng.randint(-8, 8))
    opening = "".join(f"<{tags[i % len(tags)]}>" + (_text(ctx, i) if texty else "")
                      for i in range(depth))
    closing = "".join(f"</{tags[i % len(tags)]}>" for i in reversed(range(depth))) \
        if ctx.rng.random() < 0.5 else ""
    return Made(HEAD + opening + "deepest words" + closing, f"{depth} x {tags} text={texty}")


@family("stray", 6)
def stray(ctx: Context) -> Made:
    """Start tags each followed by end tags that close nothing open (``<div></span>``)."""
    opens = [ctx.pick(NESTING) for _ in range(ctx.rng.randint(1, 3))]
    closes = [ctx.pick(STRAY) for _ in range(ctx.rng.randint(1, 3))]
    body, times = _storm(ctx, lambda i: f"<{opens[i % len(opens)]}>{closes[i % len(closes)]}"
                         + _text(ctx, i), 120_000)
    return Made(HEAD + body, f"{opens} {closes} x {times}")


@family("fmtbomb", 5)
def fmtbomb(ctx: Context) -> Made:
    """Unclosed formatting tags, then many elements that make the parser re-open them all."""
    k = ctx.count(1, 5000)
    same = ctx.rng.random() < 0.3
    names = [ctx.pick(FORMATTING) for _ in range(ctx.rng.randint(1, 4))]
    formatting = "".join(f"<{names[i % len(names)]}{'' if same else f' id=v{i}'}>"
                         for i in range(k))
    trigger = ctx.pick(("<p>x", "<div>x</div>", "<li>x", "<td>x", "<h2>x</h2>", "<p>x</p>",
                        "<table><tr><td>x</table>", "<object>x</object>", "x<br>", "<p><b>x"))
    m = ctx.count(1, max(1, 2_000_000 // max(k, 1)))
    lead = ctx.pick(("<p>", "", "<div>", "<table><tr><td>"))
    return Made(HEAD + lead + formatting + trigger * m, f"{k} x {names} same={same}, {trigger!r} x {m}")


@family("adoption", 3)
def adoption(ctx: Context) -> Made:
    """Misnested formatting and block tags that run the adoption agency algorithm each time."""
    unit = ctx.pick(("<b><p><i></b>x", "<a><div><a>x</div></a>", "<b><div><b><div></b>x</div>",
                     "<i><table><tr><td><i></i></td></tr></table>x", "<a>1<a>2<a>3</a>",
                     "<font><p><font><p></font>x", "<nobr><nobr><nobr>x", "<b>1<p>2</b>3</p>"))
    body, times = _storm(ctx, lambda i: unit, 60_000)
    return Made(HEAD + body, f"{unit!r} x {times}")


@family("tinytags", 6)
def tinytags(ctx: Context) -> Made:
    """Very many tiny elements: paragraphs of one letter, empty inline tags, breaks, cells."""
    unit = ctx.pick(("<p>x", "<b>x</b>", "<br>", "<i></i>", "<span>", "<p>x</p>", "<li>x", "<td>x",
                     "<x{i}>y", "<a>x</a>", "<option>x", "<img>", "<div>x</div>", "x<br><br>",
                     "<h1>x</h1>", "<dt>x<dd>y", "<tr><td>x", "<wbr>", "<p>{i}"))
    body, times = _storm(ctx, lambda i: unit.replace("{i}", str(i)), ctx.limits.max_tags)
    return Made(HEAD + body, f"{unit!r} x {times}")


def _link(ctx: Context, kind: str, i: int) -> str:
    if kind == "social":
        return f'<a href="https://{ctx.pick(SOCIAL)}/u{i}">Share</a>'
    if kind == "legal":
        return f'<a href="/privacy{i}">{ctx.pick(LEGAL)}</a>'
    if kind == "ad":
        return f'<a href="https://{ctx.pick(AD_HOSTS)}/c{i}"><img src="x.gif" width=300 height=250></a>'
    if kind == "long":
        return f'<a href="https://example.com/{"a" * ctx.count(10, 20_000)}">{ctx.pick(WORDS)}</a>'
    return f'<a href="{ctx.pick(URLS)}">{ctx.pick(WORDS)} {i}</a>'


@family("linkstorm", 6)
def linkstorm(ctx: Context) -> Made:
    """Thousands of links (social, legal, ad, long, odd URLs) in lists, divs or running text."""
    kind = ctx.pick(("social", "legal", "ad", "long", "odd"))
    wrap = ctx.pick(("<li>{}", "<li>{}</li>", "<div>{}</div>", "{} ", "<p>{} words here</p>",
                     "<span>{}<div>", "<td>{}", "<ul><li>{}"))
    body, times = _storm(ctx, lambda i: wrap.format(_link(ctx, kind, i)), 200_000)
    return Made(HEAD + f"<ul>{body}</ul>", f"{kind} links in {wrap!r} x {times}")


@family("adnest", 4)
def adnest(ctx: Context) -> Made:
    """Nested or repeated ad-like containers: background styles, ad classes, banners, plug-ins."""
    unit = ctx.pick(('<div style="background:url(x.png)">', "<div background=x.png>",
                     '<div class="ad">', '<div id="topAd ad-slot">', "<embed src=x>",
                     "<iframe src=https://doubleclick.net/x></iframe>", "<object data=x>",
                     '<img src="https://ads.example/b.gif" width=728 height=90>',
                     '<span class="sponsored">', "<td background=x.png>", "<p>&copy; 2024"))
    text = ctx.rng.random() < 0.5
    body, times = _storm(ctx, lambda i: unit + (f"w{i} " if text else ""), 200_000)
    return Made(HEAD + body, f"{unit!r} x {times} text={text}")


@family("entities", 3)
def entities(ctx: Context) -> Made:
    """Character references by the thousand: named, numeric, out of range, unterminated, long."""
    unit = ctx.pick(("&amp;", "&#x1F600;", "&#0;", "&#xD800;", "&#99999999999;", "&notin",
                     "&" + "a" * 40, "&#" + "9" * 30, "&nbsp;", "&copy;", "&#x110000;", "&"))
    sep = ctx.pick(("", " ", "x", "<b>"))
    body, times = _storm(ctx, lambda i: unit + sep, 300_000)
    return Made(HEAD + f"<p>{body}</p>", f"{unit!r}{sep!r} x {times}")


@family("bigtext", 3)
def bigtext(ctx: Context) -> Made:
    """One huge text node: one long word, many words, commas, whitespace or one script."""
    unit = ctx.pick(("x", "word ", "a,", " ", "\u5b57", "\U0001f600", "\t\n", ". ", "\u00a0"))
    size = ctx.count(1000, ctx.limits.max_bytes // 2)
    where = ctx.pick(("<p>{}</p>", "<pre>{}</pre>", "<title>{}</title>", "{}", "<td>{}",
                      "<textarea>{}</textarea>", "<a href=x>{}</a>", "<li>{}"))
    return Made(HEAD + where.format(unit * (size // len(unit.encode()))), f"{unit!r} x {size}")


@family("attrs", 4)
def attrs(ctx: Context) -> Made:
    """Huge attribute values, very many attributes, unterminated quotes and tags."""
    size = ctx.count(10, 2_000_000)
    shape = ctx.rng.randrange(6)
    if shape == 0:
        tag = f'<div class="{"ad " * (size // 3)}">text</div>'
    elif shape == 1:
        tag = f'<div style="{"background:" * (size // 11)}">text</div>'
    elif shape == 2:
        tag = "<p " + " ".join(f"a{i}=x" for i in range(size // 6)) + ">text</p>"
    elif shape == 3:
        tag = f'<a href="{"/" * size}">text</a>'
    elif shape == 4:
        tag = f'<div title="{"<p>" * (size // 3)}>unterminated quote'
    else:
        tag = f'<img src="x" alt="{"x" * size}"><p class={"topAdBox" * (size // 8)}>x</p>'
    times = ctx.count(1, max(1, 4_000_000 // max(len(tag), 1)))
    return Made(HEAD + tag * times, f"shape {shape}, {size} bytes x {times}")


@family("prefix", 4)
def prefix(ctx: Context) -> Made:
    """Constructs that are opened and never finished, repeated: each may scan to the end."""
    unit = ctx.pick(("<title ", "<title>", "<meta charset", "<!--", "<script", "<a href=\"",
                     "<![CDATA[", "</", "<?", "&#", "<style>", "<textarea>", "<meta ",
                     "background:", "<svg><style>", "<!DOCTYPE", "<table", "<x ", "='", '="'))
    body, times = _storm(ctx, lambda i: unit + ctx.pick(("", "x", " ", "\n")), 400_000)
    return Made(HEAD + body, f"{unit!r} x {times}")


@family("cutstorm", 3)
def cutstorm(ctx: Context) -> Made:
    """Start tags with attributes and no ">" after them: the rest of the page is one tag the
    input cuts, which a scan that tries every "<" again reads to the end from each."""
    name = ctx.pick(("p", "b", "a", "div", "x-y", "td", "font"))
    attributes = ctx.pick((" b c d e", " b", " x='", ' x="y" z', " a=1 b=2 c=3", " t='<p>'"))
    before = ctx.pick(("", "<p>text</p>" * ctx.count(1, 2_000),
                       "<a href=x>link</a> " * ctx.count(1, 5_000)))
    body, times = _storm(ctx, lambda i: f"<{name}{attributes} ", 200_000)
    return Made(HEAD + before + body, f"<{name}{attributes} x {times} after {len(before)} chars")


@family("rawtext", 3)
def rawtext(ctx: Context) -> Made:
    """Markup inside script, style, textarea, title, noscript, xmp, iframe and plaintext."""
    name = ctx.pick(("script", "style", "textarea", "title", "noscript", "xmp", "iframe",
                     "noembed", "noframes", "plaintext", "template"))
    inner = ctx.pick(("<div>", "</span>", "<!--<script>", "</" + name + " ", "<p>x",
                      "<" + name + ">", "-->", "<b>", "</div>", "<script>", "<iframe>"))
    body, times = _storm(ctx, lambda i: inner, 200_000)
    close = f"</{name}>" if ctx.rng.random() < 0.6 else ""
    tail = ctx.pick(("", "<div></span>" * ctx.count(1, 50_000), "<p>after</p>"))
    return Made(HEAD + f"<{name}>{body}{close}{tail}", f"{inner!r} x {times} in {name}")


@family("foreign", 3)
def foreign(ctx: Context) -> Made:
    """SVG and MathML: self-closing tags, breakout tags, integration points, CDATA."""
    unit = ctx.pick(("<path/>", "<g>", "<svg>", "<math><mi>", "<foreignObject><div>",
                     "<desc><p>", "<annotation-xml encoding=text/html><div>", "<![CDATA[x]]>",
                     "<b>", "<font color=red>", "<title><b>", "<style><div></style>", "<mtext><i>"))
    body, times = _storm(ctx, lambda i: unit + _text(ctx, i), 100_000)
    return Made(HEAD + ctx.pick(("<svg>", "<math>", "")) + body, f"{unit!r} x {times}")


@family("tables", 3)
def tables(ctx: Context) -> Made:
    """Table soup: foster-parented text, cells outside tables, nested and unclosed tables."""
    unit = ctx.pick(("<table>x", "<table><tr><td>", "<tr><td>x", "<td>x<table>", "<caption>x",
                     "<colgroup><col>", "<table><b>x", "<table><tr>x<td>y</table>",
                     "<tbody><tr><th>x", "</td></tr></table>", "<table><select><option>x"))
    body, times = _storm(ctx, lambda i: unit, 100_000)
    return Made(HEAD + body, f"{unit!r} x {times}")


@family("metastorm", 3)
def metastorm(ctx: Context) -> Made:
    """What the metadata readers parse: JSON-LD nested deep or wide or broken, microdata scopes
    within scopes, meta tags and dated lines by the thousand (read when metadata is asked for)."""
    depth = ctx.count(1, 100_000)
    unit = ctx.pick((
        '<script type="application/ld+json">' + "[" * depth + "]" * depth + "</script>",
        '<script type="application/ld+json">{"@type":"Article","author":' + '{"name":' * depth
        + '"x"' + "}" * depth + "}</script>",
        '<script type="application/ld+json">{"@type":"Article","headline":' + "[" * depth
        + '"x"' + "]" * depth + "}</script>",
        '<script type="application/ld+json">{"@graph":[{"@type":"NewsArticle","image":'
        + '{"url":' * depth + '"/i.png"' + "}" * depth + "}]}</script>",
        '<script type="application/ld+json">{"@type":"Article",,"name":"x",}' + "{" * depth
        + "</script>",
        '<div itemscope itemtype="https://schema.org/Article">' * depth
        + '<span itemprop="name">x</span>' + "</div>" * depth,
    ))
    times = ctx.count(1, 20_000)
    many = ctx.pick((
        '<meta property="article:tag" content="t{i}">', '<meta name="author" content="A {i}">',
        '<time datetime="2020-01-0{d}">d</time>', "<p>Posted on March {d}, 2024 by W{i}.</p>",
        '<link rel="author" href="/a{i}">', '<a rel="author" href="/author/{i}">A {i}</a>'))
    repeated = "".join(many.replace("{i}", str(i)).replace("{d}", str(i % 9 + 1))
                       for i in range(times))
    return Made(HEAD + unit + repeated + "<p>" + sentence(ctx.rng, 30) + "</p>",
                f"{unit[:60]!r} (depth {depth}), {many!r} x {times}")
