"""A definition list (``dl``: terms ``dt`` and definitions ``dd``) is written as one: HTML's
``dl``, Pandoc's / PHP Markdown Extra's ``term`` then ``: definition`` lines (which a CommonMark
parser reads as one paragraph, never a heading, list or rule), TEI's ``list type="gloss"``;
plain text keeps its paragraphs. A table's caption written after its rows is its caption."""

from __future__ import annotations

import json
from collections.abc import Callable

from markdown_it import MarkdownIt
from selectolax.lexbor import LexborHTMLParser
from test_render_writers import _article, _tei_body
from test_tei import _valid, schema  # noqa: F401 - the tei_all fixture

import grist
from grist.document import CONTENT, Block
from grist.result import Result

PARSER = MarkdownIt("commonmark").enable("table").enable("strikethrough")
GLOSSARY = ("<p>Words.</p><dl><dt>Apple</dt><dd>A <b>red</b> fruit.</dd><dt>Banana</dt>"
            "<dt>Plantain</dt><dd>A long fruit.</dd><dd>Also a phone.</dd><dt>Cherry</dt>"
            "<dd><p>A small fruit.</p><p>Often in pies.</p></dd><dt>Lonely term</dt></dl>"
            "<p>After.</p>")


def _kept(body: str, keep: Callable[[Block], bool] = lambda block: True) -> Result:
    """The page's result with the blocks ``keep`` says kept, the others dropped."""
    result = grist.extract(f"<html><body>{body}</body></html>", url="https://x.org/p")
    for block in result.blocks:
        block.label = CONTENT if keep(block) else "boilerplate"
    return result


def test_a_glossary_is_a_definition_list_in_every_structured_format() -> None:
    result = _kept(GLOSSARY)
    assert result.to_markdown() == (
        "Words.\n\nApple\n: A **red** fruit.\n\nBanana\nPlantain\n: A long fruit.\n"
        ": Also a phone.\n\nCherry\n\nA small fruit.\n\nOften in pies.\n\nLonely term\n\nAfter.")
    # (a definition of several paragraphs: on ": " lines they would read as several definitions)
    assert _article(result.to_html()) == (
        "<p>Words.</p>\n<dl><dt>Apple</dt><dd>A <strong>red</strong> fruit.</dd><dt>Banana</dt>"
        "<dt>Plantain</dt><dd>A long fruit.</dd><dd>Also a phone.</dd><dt>Cherry</dt>"
        "<dd><p>A small fruit.</p><p>Often in pies.</p></dd></dl>\n<p>Lonely term</p>\n"
        "<p>After.</p>")
    assert _tei_body(result.to_xml()) == (
        '<body><div><p>Words.</p><list type="gloss"><label>Apple</label><item>A <hi rend="#b">'
        "red</hi> fruit.</item><label>Banana<lb />Plantain</label><item><p>A long fruit.</p>"
        "<p>Also a phone.</p></item><label>Cherry</label><item><p>A small fruit.</p>"
        "<p>Often in pies.</p></item></list><p>Lonely term</p><p>After.</p></div></body>")
    assert result.text == ("Words.\n\nApple\n\nA red fruit.\n\nBanana\n\nPlantain\n\nA long fruit."
                           "\n\nAlso a phone.\n\nCherry\n\nA small fruit.\n\nOften in pies.\n\n"
                           "Lonely term\n\nAfter.")


def test_the_tei_of_definition_lists_is_valid(schema) -> None:  # noqa: F811
    result = _kept(f"{GLOSSARY}<ul><li>An item<dl><dt>T</dt><dd>D</dd></dl></li></ul>"
                   "<blockquote><dl><dd>Quoted</dd></dl></blockquote>")
    document = _valid(schema, result.to_xml())
    assert len(document.findall(".//{http://www.tei-c.org/ns/1.0}list[@type='gloss']")) == 2
    assert document.find(".//{http://www.tei-c.org/ns/1.0}quote/{http://www.tei-c.org/ns/1.0}p"
                         ).text == "Quoted"  # (a definition without a term is a paragraph)


def test_a_commonmark_parser_reads_each_entry_as_one_paragraph_of_its_lines() -> None:
    result = _kept("<dl><dt>- not a list</dt><dd>=== not a heading</dd><dt>: colon</dt>"
                   "<dd>1. one<br>: two</dd><dt>Term</dt><dd>--- no rule</dd></dl>")
    markdown = result.to_markdown()
    assert markdown == ("\\- not a list\n: \\=== not a heading\n\n\\: colon\n: 1\\. one\\\n"
                        "\\: two\n\nTerm\n: \\--- no rule")
    dom = LexborHTMLParser(PARSER.render(markdown))
    assert [p.text() for p in dom.css("body > *")] == [
        "- not a list\n: === not a heading", ": colon\n: 1. one\n: two", "Term\n: --- no rule"]
    assert {node.tag for node in dom.css("body > *")} == {"p"}


def test_a_definition_list_in_a_list_item_or_a_quote_stays_there() -> None:
    result = _kept("<ul><li>An item<dl><dt>T</dt><dd>D</dd></dl></li><li>Next</li></ul>"
                   "<blockquote><dl><dt>Q</dt><dd>Said.</dd></dl></blockquote>")
    assert result.to_markdown() == "- An item\n\n  T\n  : D\n- Next\n\n> Q\n> : Said."
    assert _article(result.to_html()) == (
        "<ul><li>An item<dl><dt>T</dt><dd>D</dd></dl></li><li>Next</li></ul>\n<blockquote>\n"
        "<dl><dt>Q</dt><dd>Said.</dd></dl>\n</blockquote>")
    assert _tei_body(result.to_xml()) == (
        '<body><div><list rend="ul"><item>An item<list type="gloss"><label>T</label><item>D'
        '</item></list></item><item>Next</item></list><quote><list type="gloss"><label>Q</label>'
        "<item>Said.</item></list></quote></div></body>")


def test_a_definition_without_its_term_and_a_term_without_one_are_paragraphs() -> None:
    """Every format pairs terms with definitions: an empty ``dt`` or ``dd`` would say the page
    has none, so an entry that lacks one (a term the method dropped, a lone wiki indent) is
    written as paragraphs, as before definition lists were written."""
    result = _kept("<dl><dt>Dropped</dt><dd>Kept alone.</dd><dt>Kept</dt><dd>Dropped too</dd>"
                   "</dl>", keep=lambda block: not block.text.startswith("Dropped"))
    assert result.to_markdown() == "Kept alone.\n\nKept"
    assert _article(result.to_html()) == "<p>Kept alone.</p>\n<p>Kept</p>"
    assert _tei_body(result.to_xml()) == "<body><div><p>Kept alone.</p><p>Kept</p></div></body>"


def test_nested_definition_lists_and_blocks_in_a_definition_keep_all_their_text_once() -> None:
    result = _kept("<dl><dt>class Foo</dt><dd><p>Doc of Foo.</p><dl><dt>bar()</dt><dd><p>Doc of"
                   " bar.</p></dd></dl><p>More on Foo.</p><ul><li>a point</li></ul><pre>code()"
                   "</pre></dd></dl><dl><div><dt>In a div</dt><dd>grouped</dd></div></dl>")
    assert result.to_markdown() == (
        "class Foo\n: Doc of Foo.\n\nbar()\n: Doc of bar.\n\nMore on Foo.\n\n- a point\n\n"
        "```\ncode()\n```\n\nIn a div\n: grouped")
    assert _article(result.to_html()) == (
        "<dl><dt>class Foo</dt><dd>Doc of Foo.</dd></dl>\n<dl><dt>bar()</dt><dd>Doc of bar.</dd>"
        "</dl>\n<p>More on Foo.</p>\n<ul><li>a point</li></ul>\n"
        "<pre><code>code()</code></pre>\n<dl><dt>In a div</dt><dd>grouped</dd></dl>")


def test_an_image_alone_in_a_definition_is_still_written() -> None:
    result = _kept("<p>Specs.</p><dl><dt>Logo</dt><dd><img src='/a.png' alt='logo'></dd>"
                   "<dt>Weight</dt><dd>2 kg</dd></dl>")
    markdown = result.to_markdown(images=True)
    # (where it stood, between its term and the next; a definition holding only an image makes
    # no block, so the image is written with the next term, and its own term is a paragraph)
    assert markdown.index("Logo") < markdown.index("![logo](https://x.org/a.png)") < \
        markdown.index("Weight")


def test_a_caption_after_the_rows_is_the_tables_caption() -> None:
    result = _kept("<table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr>"
                   "<caption>Rates</caption></table><p>After.</p>")
    assert result.to_markdown() == "Rates\n\n| A | B |\n| --- | --- |\n| 1 | 2 |\n\nAfter."
    assert _article(result.to_html()) == (
        "<table><caption>Rates</caption><thead><tr><th>A</th><th>B</th></tr></thead><tbody><tr>"
        "<td>1</td><td>2</td></tr></tbody></table>\n<p>After.</p>")
    assert _tei_body(result.to_xml()) == (
        '<body><div><table><head>Rates</head><row role="label"><cell>A</cell><cell>B</cell>'
        "</row><row><cell>1</cell><cell>2</cell></row></table><p>After.</p></div></body>")
    assert result.text == "Rates\n\nA\tB\n1\t2\n\nAfter."


def test_a_late_caption_of_several_blocks_is_written_after_the_table_not_in_a_cell() -> None:
    result = _kept("<ul><li>In an item<table><tr><th>A</th><th>B</th></tr><tr><td>1</td>"
                   "<td>2</td></tr><caption><p>One</p><p>Two</p></caption></table></li></ul>")
    assert result.to_markdown() == (
        "- In an item\n\n  | A | B |\n  | --- | --- |\n  | 1 | 2 |\n\n  One\n\n  Two")
    assert _article(result.to_html()) == (
        "<ul><li>In an item<table><thead><tr><th>A</th><th>B</th></tr></thead><tbody><tr>"
        "<td>1</td><td>2</td></tr></tbody></table><p>One</p><p>Two</p></li></ul>")


def test_two_definition_lists_side_by_side_stay_two() -> None:
    """Sphinx writes each signature as a ``dl`` of its own: the blocks of both have the same
    path, and ``Block.definition`` says which list each is in (also nested in a definition)."""
    result = _kept("<dl><dt>UpdateCache</dt><dd>Saves.</dd></dl><dl><dt>FetchFromCache</dt>"
                   "<dd>Reads.</dd></dl>")
    assert _article(result.to_html()) == (
        "<dl><dt>UpdateCache</dt><dd>Saves.</dd></dl>\n"
        "<dl><dt>FetchFromCache</dt><dd>Reads.</dd></dl>")
    assert _tei_body(result.to_xml()) == (
        '<body><div><list type="gloss"><label>UpdateCache</label><item>Saves.</item></list>'
        '<list type="gloss"><label>FetchFromCache</label><item>Reads.</item></list></div></body>')
    assert result.to_markdown() == "UpdateCache\n: Saves.\n\nFetchFromCache\n: Reads."
    nested = _kept("<dl><dt>class Foo</dt><dd><dl><dt>bar()</dt><dd><p>Bars.</p></dd></dl>"
                   "<dl><dt>baz()</dt><dd><p>Bazzes.</p></dd></dl></dd></dl>")
    assert _article(nested.to_html()) == (
        "<p>class Foo</p>\n<dl><dt>bar()</dt><dd>Bars.</dd></dl>\n"
        "<dl><dt>baz()</dt><dd>Bazzes.</dd></dl>")


def test_each_dt_and_dd_is_one_term_or_definition_whatever_it_holds() -> None:
    """Two ``dd`` each holding a ``p`` are two definitions, and two ``dt`` each holding one are
    two terms (their blocks' paths are the same); the blocks of one ``dd`` stay one
    definition, its text around a ``p`` too."""
    result = _kept("<dl><dt><p>Car</p></dt><dt><p>Automobile</p></dt><dd><p>Drives.</p></dd>"
                   "<dd><p>Rolls.</p></dd></dl>")
    assert _article(result.to_html()) == (
        "<dl><dt>Car</dt><dt>Automobile</dt><dd>Drives.</dd><dd>Rolls.</dd></dl>")
    assert result.to_markdown() == "Car\nAutomobile\n: Drives.\n: Rolls."
    result = _kept("<dl><dt>Size</dt><dd>Big<p>Really.</p>too</dd></dl>")
    assert _article(result.to_html()) == (
        "<dl><dt>Size</dt><dd><p>Big</p><p>Really.</p><p>too</p></dd></dl>")


def test_explain_says_where_each_block_is_in_its_definition_list() -> None:
    result = _kept("<dl><dt>A</dt><dd>a</dd>between<dd>b</dd></dl><dl><dt>B</dt></dl><p>Out</p>")
    blocks = json.loads(result.to_json(explain=True))["blocks"]
    assert [(block["text"], block["definition"]) for block in blocks] == [
        ("A", [1, 1]), ("a", [1, 2]), ("between", [1, 0]), ("b", [1, 3]), ("B", [2, 1]),
        ("Out", None)]


def test_the_terms_around_an_empty_definition_are_not_one_entry() -> None:
    """An empty ``dd`` (or a term the method dropped) leaves nothing between two terms: they
    read as two terms of one definition."""
    result = _kept("<dl><dt>Term with empty dd</dt><dd></dd><dt>Other term</dt>"
                   "<dd>Other definition.</dd></dl>")
    assert result.to_markdown() == "Term with empty dd\n\nOther term\n: Other definition."
    assert _article(result.to_html()) == (
        "<p>Term with empty dd</p>\n<dl><dt>Other term</dt><dd>Other definition.</dd></dl>")


def test_a_terms_line_break_is_a_space_in_markdown() -> None:
    """Each line before a ``: `` line is a term of its own to Pandoc and PHP Markdown Extra."""
    result = _kept("<dl><div><img src='/kw.png' alt='kiloWatt'><div><dt>kW</dt>"
                   "<dd>Kilowatt, a unit of power.</dd></div></div></dl>")  # (an icon per term)
    assert result.to_markdown(images=True) == (
        "![kiloWatt](https://x.org/kw.png) kW\n: Kilowatt, a unit of power.")
    assert "kW</dt><dd>Kilowatt, a unit of power.</dd>" in result.to_html(images=True)


def test_a_term_or_definition_that_is_a_permalink_alone_is_not_written_empty() -> None:
    """A block showing only a permalink shows nothing (``shown_text``): it was an empty
    ``dt``/``dd`` in HTML, an empty ``: `` line in Markdown, and an empty paragraph elsewhere."""
    result = _kept("<dl><dt>Term</dt><dt><a href='#t'>\u00b6</a></dt><dd>Def</dd><dt>T2</dt>"
                   "<dd><a href='#d'>\u00b6</a></dd><dd>D2</dd></dl><p>Text.</p><p><a href='#p'>"
                   "\u00b6</a></p><p>After.</p>")
    html = _article(result.to_html())
    assert "<dt></dt>" not in html and "<dd></dd>" not in html and "<p></p>" not in html
    markdown = result.to_markdown()
    assert ": \n" not in markdown and not markdown.endswith(": ") and "\n\n\n" not in markdown
    assert "T2\n: D2" in markdown and markdown.endswith("Text.\n\nAfter.")
