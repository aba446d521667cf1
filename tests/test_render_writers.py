"""The writers keep what the page shows: a table inside a list item stays in its item, code spans
side by side or holding pipes in a table read back as the page's code, link URLs are written
encoded alike in every format, a table's caption is the table's (Markdown read back by a
CommonMark parser with GFM tables; the plain text, the model's input, unchanged)."""

from __future__ import annotations

from markdown_it import MarkdownIt
from selectolax.lexbor import LexborHTMLParser

import grist
from grist.document import CONTENT
from grist.result import Result

PARSER = MarkdownIt("commonmark").enable("table").enable("strikethrough")
TABLE = "<table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>"
TABLE_IN_ITEM = f"<ul><li>a{TABLE}</li><li>b</li></ul>"
TABLE_IN_NESTED_ITEM = (f"<ul><li>top<ul><li>a{TABLE}</li><li>b<pre>make all</pre></li></ul></li>"
                        "<li>end</li></ul>")
TABLE_HTML = ("<table><thead><tr><th>A</th><th>B</th></tr></thead><tbody><tr><td>1</td><td>2</td>"
              "</tr></tbody></table>")
TABLE_TEI = ('<table><row role="label"><cell>A</cell><cell>B</cell></row><row><cell>1</cell>'
             "<cell>2</cell></row></table>")


def _kept(body: str) -> Result:
    """The page's result with every block kept."""
    result = grist.extract(f"<html><body>{body}</body></html>", url="https://x.org/p")
    for block in result.blocks:
        block.label = CONTENT
    return result


def _read_back(markdown: str) -> LexborHTMLParser:
    """The Markdown as a CommonMark parser with GFM tables reads it."""
    return LexborHTMLParser(PARSER.render(markdown))


def _article(html: str) -> str:
    return html[html.index("<article>\n") + 10 : html.index("\n</article>")]


def _tei_body(xml: str) -> str:
    return xml[xml.index("<body>") : xml.index("</body>") + 7]


def test_a_table_inside_a_list_item_stays_in_the_item_and_the_list_one_list() -> None:
    result = _kept(TABLE_IN_ITEM)
    markdown = result.to_markdown()
    assert markdown == "- a\n\n  | A | B |\n  | --- | --- |\n  | 1 | 2 |\n- b"
    dom = _read_back(markdown)
    (bullets,) = dom.css("ul")
    first, second = bullets.css("li")
    assert [cell.text() for cell in first.css("table td")] == ["1", "2"]
    assert second.text().strip() == "b" and not dom.css("body > table")
    assert _article(result.to_html()) == f"<ul><li>a{TABLE_HTML}</li><li>b</li></ul>"
    assert _tei_body(result.to_xml()) == (f'<body><div><list rend="ul"><item>a{TABLE_TEI}</item>'
                                          "<item>b</item></list></div></body>")
    assert result.text == "a\n\nA\tB\n1\t2\n\nb"


def test_the_items_after_a_table_in_a_nested_item_keep_their_level() -> None:
    result = _kept(TABLE_IN_NESTED_ITEM)
    dom = _read_back(result.to_markdown())
    (outer,) = dom.css("body > ul")
    assert [li.css_first("p").text() for li in outer.css("ul > li > ul > li")] == ["a", "b"]
    assert outer.css_first("ul > li > ul > li > table") is not None
    assert outer.css_first("ul > li > ul > li > pre").text() == "make all\n"
    assert [li.text(deep=False).strip() for li in outer.css("body > ul > li")] == ["top", "end"]
    assert _article(result.to_html()) == (
        f"<ul><li>top<ul><li>a{TABLE_HTML}</li><li>b<pre><code>make all</code></pre></li></ul>"
        "</li><li>end</li></ul>")
    assert _tei_body(result.to_xml()) == (
        f'<body><div><list rend="ul"><item>top<list rend="ul"><item>a{TABLE_TEI}</item><item>b'
        '<ab type="code"><code>make all</code></ab></item></list></item><item>end</item></list>'
        "</div></body>")
    assert result.text == "top\n\na\n\nA\tB\n1\t2\n\nb\n\nmake all\n\nend"


def test_a_list_inside_a_cell_stays_in_its_cell() -> None:
    result = _kept("<table><tr><th>Tea</th><th>Uses</th></tr><tr><td>Sencha</td><td><ul><li>hot"
                   "</li><li>iced</li></ul></td></tr></table>")
    assert result.to_markdown() == "| Tea | Uses |\n| --- | --- |\n| Sencha | hot iced |"


def test_pipes_in_code_in_a_table_cell_are_escaped() -> None:
    result = _kept("<table><tr><th>Op</th><th>Meaning</th></tr><tr><td><code>a || b</code></td>"
                   "<td>or</td></tr><tr><td><code>a\\|b</code></td><td>escaped</td></tr></table>")
    markdown = result.to_markdown()
    assert markdown.splitlines()[2:] == ["| `a \\|\\| b` | or |", "| `a\\\\|b` | escaped |"]
    rows = _read_back(markdown).css("tbody tr")
    assert [[cell.text() for cell in row.css("td")] for row in rows] == [
        ["a || b", "or"], ["a\\|b", "escaped"]]
    assert [code.text() for code in _read_back(markdown).css("td code")] == ["a || b", "a\\|b"]


def test_code_spans_side_by_side_are_written_as_one() -> None:
    result = _kept("<p>Run <code>ls</code><code>-l</code> now, then <kbd>Ctrl</kbd><kbd>C</kbd>"
                   " or <code>x</code><code>`y</code>.</p>")
    markdown = result.to_markdown()
    assert markdown == "Run `ls-l` now, then `CtrlC` or ``x`y``."
    (paragraph,) = _read_back(markdown).css("p")
    assert [code.text() for code in paragraph.css("code")] == ["ls-l", "CtrlC", "x`y"]
    assert paragraph.text() == result.text


def test_a_style_around_code_of_the_same_words_is_kept() -> None:
    # <b><code>b</code></b>: the two spans cover the same text; the bold was read as inside
    # the code and dropped
    result = _kept("<p>Use <code>a</code> or <b><code>b</code></b> and <i><b>both</b></i>, "
                   "<code><i>c</i></code>.</p>")
    assert result.to_markdown() == "Use `a` or **`b`** and *__both__*, *`c`*."
    assert "<strong><code>b</code></strong>" in _article(result.to_html())
    assert "<em><code>c</code></em>" in _article(result.to_html())  # (nothing is inside code)


def test_link_urls_are_encoded_alike_in_markdown_html_and_tei() -> None:
    result = _kept('<p>Share on <a href="https://twitter.com/intent/tweet?text=Guide 2025: Rates">'
                   'Twitter</a> or <a href="/a b">here</a> <img src="/c d.png" alt="c">.</p>')
    twitter = "https://twitter.com/intent/tweet?text=Guide%202025:%20Rates"
    assert result.to_markdown(links=True, images=True) == (
        f"Share on [Twitter]({twitter}) or [here](https://x.org/a%20b) "
        "![c](https://x.org/c%20d.png).")
    assert _article(result.to_html(links=True, images=True)) == (
        f'<p>Share on <a href="{twitter}">Twitter</a> or <a href="https://x.org/a%20b">here</a> '
        '<img src="https://x.org/c%20d.png" alt="c">.</p>')
    assert _tei_body(result.to_xml(links=True, images=True)) == (
        f'<body><div><p>Share on <ref target="{twitter}">Twitter</ref> or <ref '
        'target="https://x.org/a%20b">here</ref> <graphic url="https://x.org/c%20d.png" n="c" />.'
        "</p></div></body>")


def test_a_tables_caption_is_written_in_the_table() -> None:
    result = _kept(f"<table><caption>Rates <b>2025</b></caption>{TABLE[7:]}<p>After it.</p>")
    assert _article(result.to_html()) == (
        f"<table><caption>Rates <strong>2025</strong></caption>{TABLE_HTML[7:]}\n<p>After it.</p>")
    assert _tei_body(result.to_xml()) == (
        f'<body><div><table><head>Rates <hi rend="#b">2025</hi></head>{TABLE_TEI[7:]}'
        "<p>After it.</p></div></body>")
    assert result.to_markdown() == ("Rates **2025**\n\n| A | B |\n| --- | --- |\n| 1 | 2 |\n\n"
                                    "After it.")
    assert result.text == "Rates 2025\n\nA\tB\n1\t2\n\nAfter it."


def test_a_caption_without_its_table_stays_a_paragraph() -> None:
    result = _kept("<table><caption>Empty table</caption></table><p>A paragraph.</p>")
    assert _article(result.to_html()) == "<p>Empty table</p>\n<p>A paragraph.</p>"
