"""Plausible web pages built from a random generator: the raw material the fuzz families mutate.

A page has what extractors meet every day (a head with a charset and scripts, navigation, an
article with headings, paragraphs, lists, tables and figures, share and legal links, ads, a
footer) in several scripts, so that mutating it reaches every stage of every method.
"""

from __future__ import annotations

import random

WORDS = (
    "the of and to in a is that for it as was with be by on not he this are or his from at which "
    "but have an they you were her she there been one all we their has would when if so no will "
    "river town train station morning market village mill winter harbour letter council bridge "
    "report minister season garden museum school history weather island festival factory road"
).split()
# Short runs of other scripts: Cyrillic, Greek, Arabic, Hebrew, CJK, Devanagari, Thai, emoji.
FOREIGN = (
    "Москва река утро", "Αθήνα θάλασσα", "القاهرة مدينة كبيرة", "שלום עולם", "北京市的天气很好",
    "東京の朝", "서울 날씨", "नमस्ते दुनिया", "สวัสดีครับ", "café naïve façade", "Größe Straße",
    "emoji \U0001f600\U0001f44d\u200d", "\u202ereversed\u202c", "zero\u200bwidth",
)
SOCIAL = ("facebook.com", "twitter.com", "x.com", "linkedin.com", "pinterest.com", "reddit.com")
LEGAL = ("Privacy policy", "Terms of use", "Cookie settings", "Imprint", "Disclaimer")
AD_HOSTS = ("doubleclick.net", "googlesyndication.com", "adnxs.com", "taboola.com")
URLS = (
    "/", "/about", "https://example.com/a/b?c=d#e", "//cdn.example.net/x.png", "javascript:void(0)",
    "mailto:a@b.c", "http://[::1]/", "http://[bad", "http://a:99999/", "https://xn--bcher-kva.ch/",
    "https://bücher.example/ü", "../../../../x", "%zz%", "data:text/html,<p>x</p>", "http://",
    "https://user:pass@host:8080/p", "\x00http://nul.example/", " https://spaces.example/ ",
)


def sentence(rng: random.Random, words: int = 12) -> str:
    """A sentence of common English words, sometimes with a run of another script."""
    parts = [rng.choice(WORDS) for _ in range(max(words, 1))]
    if rng.random() < 0.15:
        parts.insert(rng.randrange(len(parts) + 1), rng.choice(FOREIGN))
    text = " ".join(parts)
    return text[:1].upper() + text[1:] + rng.choice((".", ".", ",", "!", "?", ";", ""))


def paragraph(rng: random.Random) -> str:
    """A paragraph of one to five sentences, with the odd link or emphasis."""
    text = " ".join(sentence(rng, rng.randint(4, 25)) for _ in range(rng.randint(1, 5)))
    if rng.random() < 0.3:
        text += f' <a href="{rng.choice(URLS)}">{sentence(rng, 3)}</a>'
    if rng.random() < 0.2:
        text = f"<b>{sentence(rng, 3)}</b> {text} <em>{rng.choice(WORDS)}</em>"
    return f"<p>{text}</p>"


def _links(rng: random.Random, count: int, kind: str) -> str:
    items = []
    for i in range(count):
        if kind == "social":
            href, text = f"https://{rng.choice(SOCIAL)}/share?u={i}", "Share"
        elif kind == "legal":
            href, text = f"/legal/{i}", rng.choice(LEGAL)
        else:
            href, text = rng.choice(URLS), sentence(rng, rng.randint(1, 3))
        items.append(f'<li><a href="{href}">{text}</a></li>')
    return "".join(items)


def _table(rng: random.Random) -> str:
    rows = "".join(
        "<tr>" + "".join(f"<td>{rng.choice(WORDS)} {rng.randint(0, 999)}</td>"
                         for _ in range(rng.randint(1, 5))) + "</tr>"
        for _ in range(rng.randint(1, 8))
    )
    return f"<table><thead><tr><th>{sentence(rng, 2)}</th></tr></thead><tbody>{rows}</tbody></table>"


def _extras(rng: random.Random) -> list[str]:
    """Things around and inside an article that stress particular stages."""
    host = rng.choice(AD_HOSTS)
    return [
        _table(rng),
        f"<ul>{_links(rng, rng.randint(1, 6), 'other')}</ul>",
        f'<div class="ad-slot topAd"><a href="https://{host}/c"><img src="https://{host}/b.gif" '
        'width="728" height="90"></a></div>',
        f'<div style="background-image: url(bg.png)">{sentence(rng, 4)}</div>',
        f'<figure><img src="/i.jpg" alt="x"><figcaption>{sentence(rng, 6)}</figcaption></figure>',
        f"<blockquote>{sentence(rng, 15)}</blockquote>",
        f"<pre>\tcode {rng.randint(0, 99)}\n  indented</pre>",
        f'<iframe src="https://{host}/frame"></iframe>',
        f"<script>var s = '<p>{rng.choice(WORDS)}</p>'; if (a < b) {{}}</script>",
        f"<!-- comment {sentence(rng, 3)} -->",
        f'<svg viewBox="0 0 10 10"><path d="M0 0"/><text>{rng.choice(WORDS)}</text></svg>',
        f'<form><select><option>{rng.choice(WORDS)}</option></select><textarea><p>t</p></textarea></form>',
        f"<h2>{sentence(rng, 5)}</h2>",
        f"<ol>{''.join(f'<li>{sentence(rng, 6)}</li>' for _ in range(rng.randint(1, 5)))}</ol>",
        f"<p>{sentence(rng, 5)}<br><br>{sentence(rng, 5)}</p>",
        f"<noscript><p>{sentence(rng, 6)}</p></noscript>",
        f"<template><p>{sentence(rng, 4)}</p></template>",
        f"<details><summary>{rng.choice(WORDS)}</summary>{paragraph(rng)}</details>",
    ]


def article_page(rng: random.Random, paragraphs: int | None = None, charset: str = "utf-8") -> str:
    """A whole page: head, navigation, an article of ``paragraphs`` paragraphs, extras, footer."""
    count = paragraphs if paragraphs is not None else rng.randint(1, 30)
    body = [paragraph(rng) for _ in range(count)]
    extras = _extras(rng)
    for _ in range(rng.randint(0, 8)):
        body.insert(rng.randrange(len(body) + 1), rng.choice(extras))
    title = sentence(rng, rng.randint(2, 8))
    meta = f'<meta charset="{charset}">' if charset else ""
    return (
        f"<!DOCTYPE html><html><head>{meta}<title>{title}</title>"
        '<style>p { color: red } .nav > li { display: inline }</style></head><body>'
        f'<ul class="nav">{_links(rng, rng.randint(0, 10), "other")}</ul>'
        f'<article><h1>{title}</h1>{"".join(body)}</article>'
        f'<div class="share"><ul>{_links(rng, rng.randint(0, 6), "social")}</ul></div>'
        f'<footer><ul>{_links(rng, rng.randint(0, 5), "legal")}</ul>'
        f"<p>&copy; 2024 {rng.choice(WORDS)} All rights reserved</p></footer></body></html>"
    )
