"""Markdown that round-trips: a CommonMark parser (markdown-it-py, GFM tables and strikethrough)
renders grist's Markdown back to the same text, on a corpus of pages made to be hard: lists,
tables, code, links, images, nested emphasis, and every character Markdown treats specially."""

from __future__ import annotations

import html
import random
import re

import pytest
from markdown_it import MarkdownIt
from selectolax.lexbor import LexborHTMLParser

import grist
from grist.render.markdown import escape

PARSER = MarkdownIt("commonmark").enable("table").enable("strikethrough")
SPECIAL = r"\ * _ [ ] # < > | ` ~ & ! + - = . ) ( { } ' \" : ; ^ $ % @"

PAGES = {
    "special characters": f"<p>Every one: {html.escape(SPECIAL)} and *not* _emphasis_ here.</p>"
                          "<p>&amp;copy; is not &amp;#169; nor &amp;amp; in AT&amp;T's Q&amp;A</p>"
                          "<p># not a heading</p><p>- not a list</p><p>+ nor this</p>"
                          "<p>1. nor this</p><p>12) nor this</p><p>&gt; not a quote</p>"
                          "<p>=== not a rule</p><p>--- nor this</p><p>~~~ no fence</p>"
                          "<p>```not code```</p><p>    four spaces are not code</p>"
                          "<p>&lt;div&gt;raw html&lt;/div&gt; &lt;http://not.autolink&gt;</p>"
                          "<p>[brackets](not-a-link) ![not](an-image) end with a backslash \\</p>"
                          "<p>snake_case_name, MAX__SIZE, __init__, a_b_ and _c_d stay</p>",
    "nested emphasis": "<p>Some <em>emphasis with <strong>strong inside</strong> it</em> and "
                       "<strong>bold with <em>italic</em></strong>, <b>b</b><i>i</i> adjacent, "
                       "in<em>side</em>word, <em> spaced </em>, <em>(parenthesised)</em>, "
                       "<strong>*stars*</strong>, <del>gone</del> and <code>a `tick` b</code> "
                       "and <code>`</code>.</p><p><strong>Sa<strong>wm (Fasting):</strong> "
                       "each year</strong> and <em>one <em>two</em> three</em>.</p>",
    "links and images": "<p>A <a href='/rel/path?q=1&amp;r=(2)'>relative <em>link</em></a>, "
                        "an <a href='http://x.org/a b'>unsafe-spaced URL</a>, "
                        "a <a href='javascript:alert(1)'>script link</a>, wow!<a href='/b'>bang"
                        "</a> and <img src='/img/a (1).png' alt='An [alt] *text*'> image, "
                        "<a href='/c'><img src='/in-link.png' alt='in link'></a>.</p>"
                        "<p><img data-src='/lazy.jpg' src='data:image/gif;base64,R0'> a lazy image here</p>",
    "lists": "<ul><li>one <b>bold</b></li><li>two<ul><li>two.a</li><li>two.b<ol><li>deep</li>"
             "</ol></li></ul></li><li>- dash item</li><li>1. numbered-looking item</li></ul>"
             "<ol><li>first</li><li>second</li></ol><p>after the lists</p>",
    "numbered lists": "<ol start='3'><li>third</li><li value='7'>seventh</li><li>eighth</li>"
                      "</ol><ol reversed><li>three</li><li>two</li><li>one</li></ol><ul><li>"
                      "<p>para one</p><p>para two</p></li><li>next</li></ul><ul><li>another "
                      "list</li></ul><ol start='100'><li>hundred<ul><li>nested under a wide "
                      "marker</li></ul></li></ol>",
    "headed items": "<ol start='20'><li><h2>Kia <em>PV5</em></h2><p>A big family car.</p><p>"
                    "Read the review</p></li><li><h2>Volvo # EX90</h2></li></ol><ul><li>a "
                    "paragraph<h3>1. then a heading</h3><ul><li><h4>nested</h4></li></ul></li>"
                    "</ul>",
    "items holding code and quotes": "<ol start='2'><li><p>Unpack <em>it</em>:</p><pre><code>"
                                     "tar xf a.tgz\n\tcd a  # ``` no fence</code></pre><p>1. "
                                     "then</p></li><li>quoted<blockquote><p>a note<br>- on two "
                                     "lines</p><ul><li>in the quote</li></ul><pre>&gt; code"
                                     "</pre></blockquote></li></ol><p>after</p>",
    "tables": "<table><thead><tr><th>Size</th><th>Width | in</th><th>Note</th></tr></thead>"
              "<tr><td>Twin XL</td><td>38</td><td><em>long</em></td></tr>"
              "<tr><td>Queen</td><td>60</td><td></td></tr>"
              "<tr><td>King</td><td>76</td><td>a \\ backslash</td></tr></table>",
    "line breaks": "<p>12 Flour Street<br>- Breadtown<br>1. United Kingdom<br>+ more<br>"
                   "# hash<br></p><ul><li>item<br>- next line<ul><li>nested<br>2) two</li></ul>"
                   "</li></ul><blockquote><p>Roses<br>violets</p></blockquote><h3>Head<br>line"
                   "</h3><table><tr><th>A<br>B</th></tr><tr><td>c<br>d</td></tr></table><p>"
                   "<a href='/l'>link<br>text</a> and <em>em<br>- phasis</em></p>",
    "code and quotes": "<pre><code class='language-python'>def f(x):\n    return x * 2  # ``` fence\n"
                       "</code></pre><blockquote><p>Quoted <em>words</em></p><p>second</p>"
                       "</blockquote><pre>plain\n  indented\n</pre><h2>A # heading *</h2>",
}


def _rendered_text(markdown: str) -> list[str]:
    """The text a reader sees in the rendered Markdown: one entry per line of block text."""
    dom = LexborHTMLParser(PARSER.render(markdown))
    lines = []
    for node in dom.css("p, li, h1, h2, h3, h4, h5, h6, td, th, pre"):
        if node.tag == "li":  # the item's own text, not its nested lists', quotes' or blocks'
            own = [c.text(deep=True) for c in node.iter(include_text=True) if c.tag not in (
                "ul", "ol", "p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre")]
            lines.append(" ".join("".join(own).split()))
        elif node.tag == "pre":
            lines.extend(node.text(deep=True).rstrip("\n").split("\n"))
        else:
            lines.append(" ".join(node.text(deep=True).split()))
    return [line for line in lines if line]


def _expected_text(result: grist.Result) -> list[str]:
    out = []
    for block in result.content_blocks:
        if block.preformatted:
            out.extend(block.text.split("\n"))
        else:
            out.append(block.text)
    return out


@pytest.mark.parametrize("name", sorted(PAGES))
@pytest.mark.parametrize("links", [False, True])
def test_markdown_renders_back_to_the_same_text(standin: str, name: str, links: bool) -> None:
    page = f"<html><body>{PAGES[name]}</body></html>"
    result = grist.extract(page, url="https://example.org/dir/page.html", method=standin)
    for block in result.blocks:  # the stand-in drops short blocks; keep all of them here
        block.label = "content"
    markdown = result.to_markdown(links=links, images=links)
    assert _rendered_text(markdown) == _expected_text(result), markdown


def test_links_and_images_are_absolute_and_safe(standin: str) -> None:
    page = f"<html><body>{PAGES['links and images']}</body></html>"
    result = grist.extract(page, url="https://example.org/dir/page.html", method=standin)
    markdown = result.to_markdown(links=True, images=True)
    rendered = PARSER.render(markdown)
    hrefs = re.findall(r'href="([^"]*)"', rendered)
    sources = re.findall(r'src="([^"]*)"', rendered)
    assert hrefs == ["https://example.org/rel/path?q=1&amp;r=%282%29", "http://x.org/a%20b",
                     "https://example.org/b", "https://example.org/c"]  # (around an image)
    assert sources == ["https://example.org/img/a%20%281%29.png", "https://example.org/in-link.png",
                       "https://example.org/lazy.jpg"]
    assert "javascript" not in markdown
    assert '<em>link</em>' in rendered and 'alt="An [alt] *text*"' in rendered
    assert "wow!" in PARSER.render(markdown).replace("\\", "")  # "!" before a link stays text


def test_without_links_the_markdown_has_none(standin: str) -> None:
    page = f"<html><body>{PAGES['links and images']}</body></html>"
    markdown = grist.extract(page, url="https://example.org/", method=standin).to_markdown()
    assert "](" not in markdown and "relative *link*" in markdown


def test_structure_survives(standin: str) -> None:
    page = f"<html><body>{PAGES['lists']}{PAGES['tables']}{PAGES['code and quotes']}</body></html>"
    result = grist.extract(page, method=standin)
    for block in result.blocks:
        block.label = "content"
    dom = LexborHTMLParser(PARSER.render(result.to_markdown()))
    assert [li.text(deep=False).strip() for li in dom.css("ul ul ol li")] == ["deep"]
    assert [th.text() for th in dom.css("thead th")] == ["Size", "Width | in", "Note"]
    assert [td.text() for td in dom.css("tbody tr td:first-child")] == ["Twin XL", "Queen", "King"]
    assert dom.css_first("pre code.language-python") is not None
    assert [p.text() for p in dom.css("blockquote p")] == ["Quoted words", "second"]
    assert dom.css_first("blockquote em").text() == "words"
    assert dom.css_first("h2").text() == "A # heading *"


def test_lists_keep_their_numbers_items_and_boundaries(standin: str) -> None:
    page = f"<html><body>{PAGES['numbered lists']}</body></html>"
    result = grist.extract(page, method=standin)
    for block in result.blocks:
        block.label = "content"
    markdown = result.to_markdown()
    # lists of a kind side by side are one run of items, as on the page, each with its number
    assert "3. third\n7. seventh\n8. eighth\n3. three\n2. two\n1. one" in markdown
    dom = LexborHTMLParser(PARSER.render(markdown))
    top = [node for node in dom.css("body > ol, body > ul")]
    assert [(node.tag, node.attributes.get("start")) for node in top] == [
        ("ol", "3"), ("ul", None), ("ol", "100")]
    first_item = top[1].css_first("li")
    assert [p.text() for p in first_item.css("p")] == ["para one", "para two"]
    assert [li.text() for li in top[2].css("li li")] == ["nested under a wide marker"]


@pytest.mark.parametrize("text", ["a*b", "1. x", "#tag", "- a", "<b>", "x_y_z", "[x]", "~~s~~",
                                  "&amp;", "\\", "`c`", "a|b", "!"])
def test_escaped_text_parses_back(text: str) -> None:
    rendered = PARSER.render(escape(text))
    assert html.unescape(re.sub(r"<[^>]+>", "", rendered)).strip() == text


def test_a_line_break_is_a_hard_break_but_not_in_headings_and_cells(standin: str) -> None:
    result = grist.extract(f"<html><body>{PAGES['line breaks']}</body></html>",
                           url="https://example.org/", method=standin)
    for block in result.blocks:
        block.label = "content"
    dom = LexborHTMLParser(PARSER.render(result.to_markdown(links=True)))
    lines = [line.strip() for line in dom.css_first("p").text().split("\n")]
    assert lines == ["12 Flour Street", "- Breadtown", "1. United Kingdom", "+ more", "# hash"]
    assert len(dom.css("p")[0].css("br")) == 4  # the last <br> breaks nothing
    assert len(dom.css("li br")) == 2 and len(dom.css("ul ul li br")) == 1
    assert len(dom.css("blockquote p br")) == 1 and len(dom.css("a br")) == 1
    assert len(dom.css("em br")) == 1 and not dom.css("ol")  # "- phasis" started no list
    assert dom.css_first("h3").text() == "Head line" and not dom.css("h3 br, th br, td br")


_STYLE_TAGS = {"em": "em", "i": "em", "strong": "strong", "b": "strong", "del": "del", "s": "del"}


def _styled_characters(fragment: str) -> list[tuple[str, frozenset[str]]]:
    """Each visible character of an HTML fragment with the styles (em, strong, del) around it."""
    out: list[tuple[str, frozenset[str]]] = []

    def walk(node, styles: frozenset[str]) -> None:
        for child in node.iter(include_text=True):
            if child.tag == "-text":
                out.extend((c, styles) for c in child.text_content if not c.isspace())
            else:
                walk(child, styles | {_STYLE_TAGS[child.tag]} if child.tag in _STYLE_TAGS
                     else styles)

    walk(LexborHTMLParser(f"<div>{fragment}</div>").css_first("div"), frozenset())
    return out


def _styles_back(fragment: str, standin: str) -> tuple[list, list, str]:
    """The styled characters of a paragraph, and of its Markdown read back by a parser."""
    result = grist.extract(f"<html><body><p>{fragment}</p></body></html>", method=standin)
    for block in result.blocks:
        block.label = "content"
    markdown = result.to_markdown()
    paragraph = LexborHTMLParser(PARSER.render(markdown)).css_first("p")
    return _styled_characters(fragment), _styled_characters(paragraph.inner_html), markdown


@pytest.mark.parametrize("fragment", [
    "x <em><strong>both</strong></em> y", "x <strong><em>both</em></strong> y",
    "x <em>emphasis with <strong>strong at the end</strong></em> y",
    "x <em><strong>strong first</strong> then em</em> y",
    "x <strong>bold with <em>italic</em></strong>, y",
    "x <del><em><strong>all three</strong></em></del> y",
    "x <em>one</em><strong>two</strong> y",
])
def test_emphasis_nested_or_side_by_side_keeps_every_style(standin: str, fragment: str) -> None:
    want, got, markdown = _styles_back(fragment, standin)
    assert got == want, markdown


def _random_fragment(rng: random.Random, depth: int = 0, open_styles: frozenset = frozenset()
                     ) -> str:
    words = ("alpha", "beta", "(gamma)", "delta,", "e_f", "zeta.", "*")
    pieces = []
    for _ in range(rng.randint(1, 3)):
        free = sorted({"em", "strong", "del"} - open_styles)
        if depth < 3 and free and rng.random() < 0.5:
            tag = rng.choice(free)
            inner = _random_fragment(rng, depth + 1, open_styles | {tag})
            pieces.append(f"<{tag}>{inner}</{tag}>")
        else:
            pieces.append(html.escape(rng.choice(words)))
    return rng.choice((" ", "")).join(pieces)


def test_emphasis_markdown_never_styles_what_the_page_did_not(standin: str) -> None:
    """Spans next to punctuation, inside words and inside one another: the parser reads back the
    same characters, none with a style it did not have on the page, and most styles survive."""
    rng = random.Random(7)
    kept = total = 0
    for _ in range(300):
        fragment = f"Start {_random_fragment(rng)} end"
        want, got, markdown = _styles_back(fragment, standin)
        assert [c for c, _ in got] == [c for c, _ in want], (fragment, markdown)
        assert all(g <= w for (_, g), (_, w) in zip(got, want, strict=True)), (fragment, markdown)
        kept += sum(len(g) for _, g in got)
        total += sum(len(w) for _, w in want)
    assert kept >= 0.75 * total  # 0.775 when written


def test_nested_emphasis_escapes_its_text_once(standin: str, monkeypatch) -> None:
    """A span tries up to four ways to write itself, and so do the spans inside it: the text
    inside three failing spans is still escaped once, so a long one costs no more to write."""
    import grist.render.markdown as markdown

    escaped: list[str] = []
    real = markdown.escape_inline
    monkeypatch.setattr(markdown, "escape_inline",
                        lambda text: escaped.append(text) or real(text))
    page = ("<html><body><p>x<em><strong><del>(" + "inner words " * 50 + ")</del></strong></em>"
            "y and the rest of the paragraph.</p></body></html>")
    result = grist.extract(page, method=standin)
    for block in result.blocks:
        block.label = "content"
    markdown_text = result.to_markdown()
    assert "*" not in markdown_text and "~" not in markdown_text  # no delimiter fits: plain
    assert sum("inner words" in text for text in escaped) == 1
