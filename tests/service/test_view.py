"""The inspector's page view: inert whatever the page holds, text nodes numbered as the
segmenter numbers them, and blocks located on it for every method."""

from __future__ import annotations

import pytest
from conftest import ARTICLE
from selectolax.lexbor import LexborHTMLParser

import grist
from grist.service.view import locate_blocks, page_view, safe_attributes

HOSTILE = [
    "<script>alert(1)</script><p>text</p>",
    "<img src=x onerror=alert(1)><p>text</p>",
    '<a href="jav&#x09;ascript:alert(1)">text</a>',
    '<a href=" JaVaScRiPt:alert(1)">text</a>',
    '<a href="vbscript:msgbox(1)">text</a>',
    '<iframe src="javascript:alert(1)"></iframe><iframe srcdoc="<script>alert(1)</script>"></iframe>',
    '<object data="javascript:alert(1)"></object><embed src="x.swf">',
    "<svg><script>alert(1)</script><a xlink:href=javascript:alert(1)>x</a></svg>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\">text</p></noscript>",
    '<meta http-equiv="refresh" content="0;url=javascript:alert(1)"><base href="javascript:/">',
    '<form action="javascript:alert(1)"><button formaction="javascript:alert(1)">go</button></form>',
    '<div style="background:url(javascript:alert(1))">x</div><div style="width: expression(alert(1))">y</div>',
    "<style>@import 'x.css'; </style ><script>alert(1)</script><p>text</p>",
    '<a href="data:text/html,<script>alert(1)</script>">x</a><img src="data:image/svg+xml,<svg onload=alert(1)>">',
    "<details open ontoggle=alert(1)><summary>s</summary>x</details>",
    '<template><script>alert(1)</script></template><xmp><script>alert(1)</script></xmp>',
    '<link rel=import href=evil.html><link rel=stylesheet href="javascript:alert(1)">',
    "<p>" + "<b>" * 300 + "deep" + "</b>" * 300 + "</p>",
]


@pytest.mark.parametrize("page", HOSTILE)
def test_nothing_active_survives(page: str) -> None:
    view = page_view(page).html
    dom = LexborHTMLParser(view)  # read back as a browser would
    for node in dom.root.traverse():
        assert node.tag not in ("script", "iframe", "object", "embed", "base", "svg", "math",
                                "template", "xmp", "noscript", "frame", "applet")
        if node.tag == "meta":
            assert "http-equiv" not in node.attributes or node.attributes["http-equiv"] == "Content-Security-Policy"
            continue
        for name, value in node.attributes.items():
            assert not name.lower().startswith("on"), (name, view)
            assert name not in ("srcdoc", "formaction", "action")
            assert "javascript:" not in (value or "").lower().replace("\t", "")
            assert "vbscript:" not in (value or "").lower()
            assert not (value or "").lower().startswith("data:text")
            if name == "style":
                assert "expression(" not in value


def test_view_keeps_the_page_and_declares_no_scripts() -> None:
    view = page_view(ARTICLE, "https://example.org/rivers").html
    assert view.startswith("<!DOCTYPE html>")
    assert "script-src &#x27;none&#x27;" in view and '<base href="https://example.org/rivers">' in view
    assert '<a href="/about">' in view and 'class="nav"' in view
    assert "<script" not in view and "onload" not in view and "onerror" not in view
    assert "javascript:" not in view and "Contact" in view
    dark = page_view(ARTICLE, remote=False).html
    assert "img-src data:;" in dark and "<base" not in dark


@pytest.mark.parametrize("method", ["auto", "justext", "tree"])
def test_recorded_ranges_are_the_segmenters_text_nodes(method: str) -> None:
    result = grist.extract(ARTICLE, method=method)
    view = page_view(result.document.html)
    ranges, counts = locate_blocks(result.blocks, view.texts)
    assert counts == {"by_nodes": len(result.blocks), "by_text": 0, "unmapped": 0}
    dom = LexborHTMLParser(view.html)
    spans = {int(s.attributes["data-gn"]): s.text() for s in dom.css("span[data-gn]")}
    for block, (first, last) in zip(result.blocks, ranges, strict=True):
        shown = "".join(spans.get(n, "") for n in range(first, last + 1))
        assert "".join(shown.split()) == "".join(block.text.split())


@pytest.mark.parametrize("method", ["lineblock", "tagscore"])
def test_blocks_without_usable_ranges_are_found_by_their_text(method: str) -> None:
    result = grist.extract(ARTICLE, method=method)
    view = page_view(result.document.html)
    ranges, counts = locate_blocks(result.blocks, view.texts)
    assert counts["unmapped"] == 0 and counts["by_text"] > 0
    for block, (first, last) in zip(result.blocks, ranges, strict=True):
        joined = "".join("".join(view.texts[first:last + 1]).split())
        assert "".join(block.text.split()) in joined


def test_repeated_texts_are_located_in_page_order() -> None:
    page = "<body>" + "".join(f"<p>Share</p><p>Story number {i} with words.</p>" for i in range(3))
    result = grist.extract(page, method="lineblock")
    view = page_view(result.document.html)
    ranges, _ = locate_blocks(result.blocks, view.texts)
    shares = [r for b, r in zip(result.blocks, ranges, strict=True) if b.text == "Share"]
    assert len(shares) == 3 and len({tuple(r) for r in shares}) == 3
    assert shares == sorted(shares)


def test_attributes_keep_safe_urls_only() -> None:
    kept = safe_attributes("img", {"src": "data:image/png;base64,AAAA", "alt": 'say "hi"',
                                   "srcset": "a.png 1x, javascript:x 2x", "onclick": "x()"})
    assert kept == ' src="data:image/png;base64,AAAA" alt="say &quot;hi&quot;"'
    assert safe_attributes("a", {"href": "mailto:a@b.c", "data-gn": "7"}) == ' href="mailto:a@b.c"'


def test_html_output_passes_an_allow_list_whatever_the_renderer_emits() -> None:
    from grist.service.jobs import sanitise_html

    out = sanitise_html('<html><head><title>T</title><script>x()</script></head><body>'
                        '<h1 onclick="x()">Head</h1><p style="color:red">Text <a href="javascript:x()">'
                        'bad</a> <a href="https://example.org/a">good</a><img src=x onerror=y()>'
                        '</p><iframe src="https://example.org"></iframe><ol start="3" onclick="x()">'
                        '<li value="7">seventh</li></ol></body></html>')
    assert '<ol start="3"><li value="7">seventh</li></ol>' in out  # the page's list numbers
    assert out.startswith("<!DOCTYPE html>") and "<h1>Head</h1>" in out and "<title>T</title>" in out
    assert '<a href="https://example.org/a" rel="noopener noreferrer nofollow">good</a>' in out
    for bad in ("<script", "onclick", "onerror", "javascript:", "style=", "<iframe", "x()"):
        assert bad not in out


def test_html_output_head_keeps_metadata_and_nothing_active() -> None:
    from grist.service.jobs import sanitise_html

    head = ('<meta charset="utf-8">\n<title>T</title><script>x()</script>\n'
            '<meta http-equiv="refresh" content="0;url=https://evil.example">\n'
            '<meta name="author" content="A &amp; B">\n<link rel="stylesheet" href="https://e.x/s.css">'
            '\n<link rel="canonical" href="https://example.org/a">')
    out = sanitise_html(f'<!DOCTYPE html>\n<html lang="de">\n<head>\n{head}\n</head>\n<body>\n'
                        '<article>\n<p onclick="x()">Text</p>\n</article>\n</body>\n</html>')
    assert out.startswith('<!DOCTYPE html>\n<html lang="de">\n<head>\n<meta charset="utf-8">')
    assert '<meta name="author" content="A &amp; B">' in out
    assert '<link rel="canonical" href="https://example.org/a">' in out
    assert "<body>\n<article>\n<p>Text</p>\n</article>\n</body>\n</html>" in out
    for bad in ("<script", "http-equiv", "stylesheet", "onclick"):
        assert bad not in out


def test_html_output_keeps_the_link_schemes_the_renderer_writes() -> None:
    from grist.service.jobs import sanitise_html

    out = sanitise_html('<p><a href="tel:+123">call</a> <a href="ftp://f.example/x">get</a> '
                        '<a href="mailto:a@b.c">mail</a> <a href="data:text/html,x">no</a></p>')
    for kept in ('href="tel:+123"', 'href="ftp://f.example/x"', 'href="mailto:a@b.c"'):
        assert kept in out
    assert "data:" not in out
