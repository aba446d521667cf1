"""What a list item or a quote holds stays in it: code, paragraphs and quotes inside an ``li``,
lists inside a quote inside an ``li``, quotes inside quotes, in Markdown (read back by a
CommonMark parser), HTML and TEI; the numbers are the page's, neither repeated nor made up."""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt
from selectolax.lexbor import LexborHTMLParser

import grist
from grist.document import CONTENT, Block
from grist.render.layout import layout
from grist.result import Result

PARSER = MarkdownIt("commonmark").enable("table").enable("strikethrough")

CODE_IN_ITEM = ("<ol><li><p>Unpack the archive:</p><pre><code>tar xf pkg.tar.gz</code></pre>"
                "<p>Check that the folder holds setup.</p></li><li><p>Run the installer as an "
                "administrator.</p></li></ol>")
QUOTE_IN_ITEM = ("<ol><li>First step</li><li>Second step</li><li><p>Third step</p><blockquote>"
                 "<p>Note: back up first.</p></blockquote></li></ol>")
LIST_IN_QUOTE_IN_ITEM = ("<ol><li>a<blockquote><ul><li>b</li><li>c</li></ul></blockquote></li>"
                         "<li>d</li></ol>")
ITEM_OPENING_WITH_A_QUOTE = ("<ul><li><blockquote><p>q</p><blockquote><p>qq</p></blockquote>"
                             "</blockquote><p>after</p></li></ul>")
LIST_IN_QUOTE = "<blockquote><ol start='4'><li>x</li><li>y</li></ol></blockquote>"
NESTED_QUOTES = ("<blockquote><p>Outer quote.</p><blockquote><p>Inner quote.</p></blockquote>"
                 "<p>Outer again.</p></blockquote>")


def _kept(body: str, standin: str) -> Result:
    """The page's result with every block kept."""
    result = grist.extract(f"<html><body>{body}</body></html>", method=standin)
    for block in result.blocks:
        block.label = CONTENT
    return result


def _markdown_dom(body: str, standin: str) -> LexborHTMLParser:
    """The page's Markdown as a CommonMark parser reads it."""
    return LexborHTMLParser(PARSER.render(_kept(body, standin).to_markdown()))


def _article(result: Result) -> str:
    """What the HTML page holds inside its ``article``."""
    html = result.to_html()
    return html[html.index("<article>\n") + 10 : html.index("\n</article>")]


def _tei_body(result: Result) -> str:
    """The TEI document's ``body``."""
    xml = result.to_xml()
    return xml[xml.index("<body>") : xml.index("</body>") + 7]


def _own_text(node) -> str:
    """An element's text without that of the lists, quotes and blocks inside it."""
    return " ".join("".join(child.text_content for child in node.iter(include_text=True)
                            if child.tag == "-text").split())


def test_code_and_paragraphs_inside_an_item_stay_in_it(standin: str) -> None:
    result = _kept(CODE_IN_ITEM, standin)
    markdown = result.to_markdown()
    assert markdown == ("1. Unpack the archive:\n\n   ```\n   tar xf pkg.tar.gz\n   ```\n\n"
                        "   Check that the folder holds setup.\n"
                        "2. Run the installer as an administrator.")
    dom = LexborHTMLParser(PARSER.render(markdown))
    (ordered,) = dom.css("ol")
    first, second = ordered.css("li")
    assert [p.text() for p in first.css("p")] == ["Unpack the archive:",
                                                  "Check that the folder holds setup."]
    assert first.css_first("pre code").text() == "tar xf pkg.tar.gz\n"
    assert second.text().strip() == "Run the installer as an administrator."
    assert _article(result) == (
        "<ol><li>Unpack the archive:<pre><code>tar xf pkg.tar.gz</code></pre><p>Check that the "
        "folder holds setup.</p></li><li>Run the installer as an administrator.</li></ol>")
    assert _tei_body(result) == (
        '<body><div><list rend="ol"><item n="1">Unpack the archive:<ab type="code"><code>tar xf '
        "pkg.tar.gz</code></ab><p>Check that the folder holds setup.</p></item><item n=\"2\">Run "
        "the installer as an administrator.</item></list></div></body>")


def test_a_quote_inside_an_item_stays_in_it_and_takes_no_number(standin: str) -> None:
    result = _kept(QUOTE_IN_ITEM, standin)
    markdown = result.to_markdown()
    assert markdown.count("3.") == 1 and "   > Note: back up first." in markdown
    dom = LexborHTMLParser(PARSER.render(markdown))
    (ordered,) = dom.css("ol")
    items = ordered.css("li")
    assert len(items) == 3 and not dom.css("body > blockquote")
    assert items[2].css_first("blockquote p").text() == "Note: back up first."
    assert _article(result).endswith(
        "<li>Third step<blockquote><p>Note: back up first.</p></blockquote></li></ol>")
    assert _tei_body(result).endswith(
        '<item n="3">Third step<quote><p>Note: back up first.</p></quote></item></list></div>'
        "</body>")


def test_code_inside_an_item_keeps_its_blank_lines_and_indents(standin: str) -> None:
    code = "a\n\ttab\n\n    four"
    dom = _markdown_dom(f"<ol><li>x<pre>{code}</pre><blockquote><pre>{code}</pre></blockquote>"
                        "</li></ol>", standin)
    assert [pre.text() for pre in dom.css("ol > li > pre, ol > li > blockquote > pre")] == [
        code + "\n", code + "\n"]


def test_a_list_inside_a_quote_inside_an_item(standin: str) -> None:
    result = _kept(LIST_IN_QUOTE_IN_ITEM, standin)
    dom = LexborHTMLParser(PARSER.render(result.to_markdown()))
    (ordered,) = dom.css("body > ol")
    assert [_own_text(li) for li in ordered.css("ol > li")] == ["a", "d"]
    assert [li.text() for li in ordered.css("li > blockquote > ul > li")] == ["b", "c"]
    assert _article(result) == ("<ol><li>a<blockquote><ul><li>b</li><li>c</li></ul></blockquote>"
                                "</li><li>d</li></ol>")
    assert _tei_body(result) == (
        '<body><div><list rend="ol"><item n="1">a<quote><list rend="ul"><item>b</item><item>c'
        '</item></list></quote></item><item n="2">d</item></list></div></body>')


def test_an_item_opening_with_a_quote_and_a_quote_inside_it(standin: str) -> None:
    result = _kept(ITEM_OPENING_WITH_A_QUOTE, standin)
    dom = LexborHTMLParser(PARSER.render(result.to_markdown()))
    (item,) = dom.css("ul > li")
    assert item.css_first("li > blockquote > p").text() == "q"
    assert item.css_first("li > blockquote > blockquote > p").text() == "qq"
    assert item.css_first("li > p").text() == "after"
    assert _article(result) == ("<ul><li><blockquote><p>q</p><blockquote><p>qq</p></blockquote>"
                                "</blockquote><p>after</p></li></ul>")


def test_a_quote_around_a_list_stays_around_it(standin: str) -> None:
    result = _kept(LIST_IN_QUOTE, standin)
    assert result.to_markdown() == "> 4. x\n> 5. y"
    assert _article(result) == ('<blockquote>\n<ol start="4"><li>x</li><li>y</li></ol>\n'
                                "</blockquote>")


def test_a_nested_quote_stays_inside_the_quote_around_it_in_markdown(standin: str) -> None:
    result = _kept(NESTED_QUOTES, standin)
    markdown = result.to_markdown()
    assert markdown == "> Outer quote.\n>\n> > Inner quote.\n>\n> Outer again."
    dom = LexborHTMLParser(PARSER.render(markdown))
    (outer,) = dom.css("body > blockquote")
    assert [p.text() for p in outer.css("blockquote > p")] == [
        "Outer quote.", "Inner quote.", "Outer again."]
    assert outer.css_first("blockquote > blockquote > p").text() == "Inner quote."


def _item(text: str, path: str, quote_depth: int, item: int) -> Block:
    """A kept block of a bulleted list's ``item``th ``li``, made by hand."""
    return Block(text=text, path=path, list_kind="ul", list_depth=1, list_item=(1, item, item),
                 quote_depth=quote_depth, label=CONTENT)


def test_a_quote_the_path_does_not_name_encloses_the_list() -> None:
    """A block made by hand (no path) or one past the path's window: its quotes are taken to
    be around its list, as before quotes inside items were written."""
    blocks = [_item("a", "", 1, 1), _item("b", "", 1, 2)]
    (part,) = layout(blocks)
    assert part.quote == 1 and [item.opens for item in part.items] == [("list", "item"),
                                                                        ("item",)]
    named = [_item("a", "html>body>ul>li", 0, 1), _item("q", "html>body>ul>li>blockquote>p", 1, 1)]
    (part,) = layout(named)
    assert part.quote == 0 and part.items[1].opens == ("quote",)


@pytest.mark.parametrize("fmt", ["markdown", "html", "xml"])
def test_quotes_nested_thousands_deep_inside_an_item_render(fmt: str, standin: str) -> None:
    """Past Python's recursion limit (TEI's serializer recurses): the quotes inside an item
    are those its path names, ``PATH_DEPTH`` at most; every word is still there."""
    body = ("<ul><li>top words" + "<blockquote><p>quoted words</p>" * 1500
            + "</blockquote>" * 1500 + "</li></ul>")
    result = _kept(body, standin)
    out = result.render(fmt)
    assert out.count("quoted words") == 1500


def test_the_text_of_a_code_block_in_an_item_is_unchanged(standin: str) -> None:
    result = _kept(CODE_IN_ITEM, standin)
    assert result.text == ("Unpack the archive:\n\ntar xf pkg.tar.gz\n\nCheck that the folder "
                           "holds setup.\n\nRun the installer as an administrator.")
