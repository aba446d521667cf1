"""Renderers: Markdown, JSON and HTML of the kept blocks of small hand-made pages."""

from __future__ import annotations

import json

import numpy as np
import pytest

import grist
from grist.document import BOILERPLATE, CONTENT, Block, Document
from grist.features.matrix import FeatureMatrix
from grist.render.layout import layout
from grist.render.markdown import escape
from grist.result import Result

PAGE = """<html><head><title>Tea &amp; cakes</title></head><body>
<div class="nav"><a href="/">Home</a></div>
<h1>Green *tea* guide</h1>
<p>Steep the_leaves for [two] minutes at 80 # degrees.</p>
<h3>1. Steps to follow</h3>
<ul><li>Boil the water</li><li>Cool it<ul><li>to 80 degrees</li></ul></li></ul>
<ol><li>Pour</li><li>Wait</li></ol>
<table><tr><th>Tea</th><th>Minutes</th></tr><tr><td>Sencha</td><td>2</td></tr>
<tr><td>Gyokuro | shaded</td><td>3</td></tr></table>
<pre>def steep(t):
    if t > 3:
\treturn "bitter *" </pre>
<p>- a dash</p><p>1. a number</p><p>2021. A year, <b>kept</b> as is.</p>
</body></html>"""

EXPECTED_MARKDOWN = """# Green \\*tea\\* guide

Steep the_leaves for \\[two\\] minutes at 80 \\# degrees.

### 1. Steps to follow

- Boil the water
- Cool it
    - to 80 degrees
1. Pour
2. Wait

| Tea | Minutes |
| --- | --- |
| Sencha | 2 |
| Gyokuro \\| shaded | 3 |

```
def steep(t):
    if t > 3:
\treturn "bitter *"
```

\\- a dash

1\\. a number

2021\\. A year, **kept** as is."""


@pytest.fixture
def result(standin: str) -> Result:
    return grist.extract(PAGE, url="http://example.com/tea", method=standin)


def test_markdown_exact(result: Result) -> None:
    assert result.to_markdown() == EXPECTED_MARKDOWN


def test_markdown_drops_boilerplate(result: Result) -> None:
    assert "Home" not in result.to_markdown()


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("a*b_c", "a\\*b_c"),
        ("snake_case_name, MAX__SIZE, __init__, _x_, a_ _b, 2_000 \u00e9t\u00e9_\u00e0",
         "snake_case_name, MAX__SIZE, \\_\\_init\\_\\_, \\_x\\_, a\\_ \\_b, 2_000 "
         "\u00e9t\u00e9_\u00e0"),
        ("back\\slash `code` <tag> x|y", "back\\\\slash \\`code\\` \\<tag\\> x\\|y"),
        ("+ plus", "\\+ plus"),
        ("---", "\\---"),
        ("3.14 is pi", "3.14 is pi"),
        ("12) twelve", "12\\) twelve"),
        ("> quote", "\\> quote"),
    ],
)
def test_escape(text: str, escaped: str) -> None:
    assert escape(text) == escaped


def test_code_fence_longer_than_backticks_inside(standin: str) -> None:
    page = "<html><body><pre>a ```` b\n  c</pre></body></html>"
    assert grist.extract(page, method=standin).to_markdown() == "`````\na ```` b\n  c\n`````"


def _cell(text: str, row: int, col: int, table: int = 1, rows: int = 1, cols: int = 1) -> Block:
    return Block(text=text, tag="td", cell=(table, row, col, rows, cols), label=CONTENT)


def test_layout_table_becomes_paragraphs() -> None:
    # One column of long cells: a page laid out with a table, not a data table.
    blocks = [_cell("word " * 80, 0, 0), _cell("more text", 1, 0)]
    assert [p.kind for p in layout(blocks)] == ["paragraph", "paragraph"]


def test_layout_table_keeps_lists_inside() -> None:
    item = Block(text="an item", tag="li", list_kind="ul", list_depth=1, cell=(1, 0, 0))
    blocks = [_cell("x" * 400, 0, 0), item, item]
    assert [p.kind for p in layout(blocks)] == ["paragraph", "list"]


def test_data_table_missing_cell_is_empty() -> None:
    blocks = [_cell("a", 0, 0), _cell("b", 0, 1), _cell("c", 1, 1)]
    (part,) = layout(blocks)
    assert [[" ".join(b.text for b in cell) for cell in row] for row in part.rows] == [
        ["a", "b"], ["", "c"]]


def test_table_spans_cover_the_rows_and_columns_written_and_never_another_cell() -> None:
    # a header cell over two rows, the row below it kept; a cell spanning a dropped column;
    # one spanning rows the table does not have; one overlapping another cell (bad markup)
    blocks = [_cell("Tea", 0, 0, rows=2), _cell("Price", 0, 1, cols=2), _cell("50 g", 1, 1),
              _cell("100 g", 1, 2), _cell("Bancha", 2, 0, cols=3), _cell("x", 3, 0, rows=9),
              _cell("y", 3, 1, cols=2), _cell("z", 3, 2), _cell("w", 4, 2)]
    (part,) = layout(blocks)
    spans = part.table_spans
    assert spans.head_rows == 2
    assert spans.spans == {(0, 0): (2, 1), (0, 1): (1, 2), (2, 0): (1, 3), (3, 0): (2, 1)}
    assert spans.covered == {(1, 0), (0, 2), (2, 1), (2, 2), (4, 0)}  # y would cover z: not
    assert [[" ".join(b.text for b in cell) for cell, _, _ in spans.written(i, row)]
            for i, row in enumerate(part.rows)] == [
        ["Tea", "Price"], ["50 g", "100 g"], ["Bancha"], ["x", "y", "z"], ["", "w"]]


def test_the_slots_spans_cover_are_bounded(monkeypatch) -> None:
    import grist.render.layout as layout_module

    monkeypatch.setattr(layout_module, "MAX_SPANNED_SLOTS", 5)
    blocks = [_cell("h", 0, 0), _cell("i", 0, 1), _cell("j", 0, 2),
              _cell("a", 1, 0, cols=2), _cell("b", 2, 0, cols=3), _cell("c", 3, 0, cols=2)]
    (part,) = layout(blocks)
    assert part.table_spans.spans == {(1, 0): (1, 2), (2, 0): (1, 3)}  # 2 + 3 slots, no more


def test_a_header_spanning_every_row_is_cut_to_its_row() -> None:
    blocks = [_cell("side", 0, 0, rows=3), _cell("a", 0, 1), _cell("b", 1, 1), _cell("c", 2, 1)]
    (part,) = layout(blocks)
    assert part.table_spans.head_rows == 1 and part.table_spans.spans == {}


def _result(blocks: list[Block], features: FeatureMatrix | None = None) -> Result:
    doc = Document(html="<p>x</p>", url="http://e.com/", title="Tïtle")
    return Result(document=doc, blocks=blocks, method="m", features=features)


def test_json_has_every_block_and_features() -> None:
    blocks = [
        Block(text="Kept ünïcode", index=0, label=CONTENT, reason="good", info={"cf": "good"}),
        Block(text="Dropped", index=1, label=BOILERPLATE, reason="link density", score=0.25),
    ]
    matrix = FeatureMatrix(("words", "density"), np.array([[2.0, np.nan], [1.0, 0.5]]))
    out = _result(blocks, matrix).to_json(explain=True)
    assert "ünïcode" in out  # ensure_ascii=False
    data = json.loads(out)
    assert data["metadata"]["title"] == "Tïtle" and data["url"] == "http://e.com/"
    assert data["method"] == "m"
    assert data["text"] == "Kept ünïcode" and data["empty_reason"] is None
    assert [b["label"] for b in data["blocks"]] == [CONTENT, BOILERPLATE]
    assert data["blocks"][1]["reason"] == "link density" and data["blocks"][1]["score"] == 0.25
    assert data["blocks"][0]["info"] == {"cf": "good"}
    assert data["blocks"][0]["features"] == {"words": 2.0, "density": None}  # NaN -> null
    assert data["blocks"][1]["features"] == {"words": 1.0, "density": 0.5}


def test_json_without_features_and_numpy_values() -> None:
    blocks = [Block(text="a", label=CONTENT, reason="r", score=np.float32(0.5), cell=(1, 2, 3))]
    blocks[0].info["votes"] = np.int64(3)
    data = json.loads(_result(blocks).to_json(explain=True))
    block = data["blocks"][0]
    assert "features" not in block
    assert block["score"] == 0.5 and block["info"] == {"votes": 3} and block["cell"] == [1, 2, 3]


def test_html_structure_and_escaping(result: Result) -> None:
    out = result.to_html()
    assert "<title>Tea &amp; cakes</title>" in out
    assert "<h1>Green *tea* guide</h1>" in out
    assert "<ul><li>Boil the water</li><li>Cool it<ul><li>to 80 degrees</li></ul></li></ul>" in out
    assert "<ol><li>Pour</li><li>Wait</li></ol>" in out
    assert "<thead><tr><th>Tea</th><th>Minutes</th></tr></thead>" in out
    assert "<td>Gyokuro | shaded</td>" in out
    assert '<pre><code>def steep(t):\n    if t &gt; 3:\n\treturn "bitter *"</code></pre>' in out
    assert "Home" not in out and "nav" not in out


@pytest.mark.parametrize(("attributes", "html_tag"), [
    ('<html lang="he" dir="rtl"><body>', '<html lang="he" dir="rtl">'),
    ('<html lang="he"><body dir=" RTL ">', '<html lang="he" dir="rtl">'),
    ('<html lang="he" dir="sideways"><body>', '<html lang="he">'),
    ('<html lang="he"><body>', '<html lang="he">'),
])
def test_html_keeps_the_pages_direction(attributes: str, html_tag: str, standin: str) -> None:
    page = (f"{attributes}<p>\u05e9\u05dc\u05d5\u05dd \u05e2\u05d5\u05dc\u05dd, a line "
            "long enough to be kept.</p></body></html>")
    assert f"<!DOCTYPE html>\n{html_tag}\n" in grist.extract(page, method=standin).to_html()


def test_html_escapes_markup_in_text(standin: str) -> None:
    page = "<p>Use &lt;script&gt;alert(1)&lt;/script&gt; carefully &amp; well.</p>"
    out = grist.extract(page, method=standin).to_html()
    assert "<p>Use &lt;script&gt;alert(1)&lt;/script&gt; carefully &amp; well.</p>" in out
    assert "<script>" not in out


def test_html_list_depth_jump_is_well_formed() -> None:
    items = [
        Block(text="a", list_kind="ul", list_depth=1, label=CONTENT),
        Block(text="b", list_kind="ol", list_depth=3, label=CONTENT),
        Block(text="c", list_kind="ul", list_depth=1, label=CONTENT),
    ]
    out = _result(items).to_html()
    assert "<ul><li>a<ol><li>b</li></ol></li><li>c</li></ul>" in out


def test_lists_keep_their_numbers_items_and_boundaries_in_html(standin: str) -> None:
    page = ("<html><body><ol><li><p>open the box</p><p>keep the knife away</p></li><li>take the "
            "parts out</li></ol><ol start='3'><li>join them</li><li value='7'>tighten</li>"
            "<li>check</li></ol><ol reversed><li>bronze</li><li>silver</li></ol></body></html>")
    result = grist.extract(page, method=standin)
    for block in result.blocks:
        block.label = CONTENT
    assert ("<ol><li>open the box<p>keep the knife away</p></li><li>take the parts out</li></ol>"
            '<ol start="3"><li>join them</li><li value="7">tighten</li><li>check</li></ol>'
            '<ol start="2"><li>bronze</li><li value="1">silver</li></ol>') in result.to_html()
    blocks = {block["text"]: block for block in json.loads(result.to_json(explain=True))["blocks"]}
    assert blocks["tighten"]["list_item"] == [2, 4, 7]
    assert blocks["keep the knife away"]["list_item"] == blocks["open the box"]["list_item"]


HEADED_ITEMS = ("<html><body><ol reversed><li><h2>Kia PV5</h2><p>A big family car, refined "
                "and roomy.</p></li><li><h2>Volvo EX90</h2><p>Smooth and silent on the road.</p>"
                "</li></ol><ul><li><p>an item's paragraph</p><h3>then a heading</h3></li></ul>"
                "</body></html>")


def test_a_heading_in_a_list_item_stays_in_its_item(standin: str) -> None:
    result = grist.extract(HEADED_ITEMS, method=standin)
    for block in result.blocks:
        block.label = CONTENT
    assert result.to_markdown() == (
        "2. ## Kia PV5\n\n   A big family car, refined and roomy.\n"
        "1. ## Volvo EX90\n\n   Smooth and silent on the road.\n"
        "- an item's paragraph\n\n  ### then a heading")
    assert ('<ol start="2"><li><h2>Kia PV5</h2><p>A big family car, refined and roomy.</p></li>'
            '<li value="1"><h2>Volvo EX90</h2><p>Smooth and silent on the road.</p></li></ol>'
            "<ul><li>an item's paragraph<h3>then a heading</h3></li></ul>") in result.to_html()


def test_cells_spanning_rows_and_columns_leave_the_others_under_their_headers(
        standin: str) -> None:
    page = ("<html><body><table><thead><tr><th rowspan='2'>Tea</th><th colspan='2'>Price</th>"
            "</tr><tr><th>50 g</th><th>100 g</th></tr></thead><tbody><tr><td colspan='2'>Bancha"
            "</td><td>6.00</td></tr><tr><td>Gyokuro</td><td colspan='2'>sold out</td></tr>"
            "</tbody></table></body></html>")
    result = grist.extract(page, method=standin)
    for block in result.blocks:
        block.label = CONTENT
    assert result.to_markdown() == ("| Tea | Price |   |\n| --- | --- | --- |\n|   | 50 g | 100 g |\n"
                                    "| Bancha |   | 6.00 |\n| Gyokuro | sold out |   |")
    assert result.text.split("\n") == ["Tea\tPrice\t", "\t50 g\t100 g", "Bancha\t\t6.00",
                                       "Gyokuro\tsold out\t"]
    # HTML says the spans (the header's two rows in thead), writing no slot a cell covers
    assert ('<table><thead><tr><th rowspan="2">Tea</th><th colspan="2">Price</th></tr><tr><th>'
            '50 g</th><th>100 g</th></tr></thead><tbody><tr><td colspan="2">Bancha</td><td>6.00'
            '</td></tr><tr><td>Gyokuro</td><td colspan="2">sold out</td></tr></tbody></table>'
            ) in result.to_html()


def test_a_data_tables_cell_of_several_short_blocks_stays_in_the_table(standin: str) -> None:
    page = ("<html><body><table><thead><tr><th>INR</th><th>Vitamin K</th></tr></thead><tbody><tr>"
            "<td>Normal</td><td>Not indicated</td></tr><tr><td>6.0 <em>to</em> 9.9</td><td><p>Oral"
            ": 0.5 mg</p><p>SC: 1.0 mg</p></td></tr></tbody></table><table><tr><td>Long</td><td>"
            f"<p>{'words ' * 40}</p><p>{'more ' * 30}</p></td></tr><tr><td>a</td><td>b</td></tr>"
            "</table></body></html>")
    result = grist.extract(page, method=standin)
    for block in result.blocks:
        block.label = CONTENT
    assert result.to_markdown().startswith(
        "| INR | Vitamin K |\n| --- | --- |\n| Normal | Not indicated |\n"
        "| 6.0 *to* 9.9 | Oral: 0.5 mg SC: 1.0 mg |\n\nLong\n\n")  # more than 300 characters
    assert ("<tr><td>6.0 <em>to</em> 9.9</td><td>Oral: 0.5 mg<br>SC: 1.0 mg</td></tr>"
            in result.to_html())
    assert result.text.startswith("INR\tVitamin K\nNormal\tNot indicated\n"
                                  "6.0 to 9.9\tOral: 0.5 mg SC: 1.0 mg\n\nLong\n\n")
    xml = result.to_xml()
    assert "<cell>Oral: 0.5 mg<lb />SC: 1.0 mg</cell>" in xml


def test_text_renderer_unchanged(result: Result) -> None:
    assert result.text.startswith("Green *tea* guide\n\nSteep the_leaves")


@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "html", "xml", "csv"])
def test_thousands_of_nested_spans_and_lists_render(fmt: str, standin: str) -> None:
    """Past Python's recursion limit: spans past MAX_OPEN_INLINE are written as their parent's
    text, lists past MAX_LIST_NESTING at that depth; every word is still there."""
    from grist.render.layout import MAX_LIST_NESTING
    from grist.segment.inline import MAX_OPEN_INLINE

    spans = "<b><i>" * 1500 + "deepest words" + "</i></b>" * 1500
    lists = "<ul><li>level words " * 1500 + "</li></ul>" * 1500
    page = (f"<html><body><article><p>Intro {spans} outro of the paragraph.</p>"
            f"{lists}</article></body></html>")
    result = grist.extract(page, method=standin, links=True, images=True)
    out = result.render(fmt, with_metadata=True)
    copies = 2 if fmt == "json" else 1  # JSON has the text and each block's
    assert "deepest words" in out and out.count("level words") == 1500 * copies
    if fmt == "markdown":
        assert out.count("**") <= 2 * MAX_OPEN_INLINE
        indents = [len(line) - len(line.lstrip(" ")) for line in out.splitlines()]
        assert max(indents) == 4 * (MAX_LIST_NESTING - 1)
    if fmt == "xml":
        assert out.count("<list") == MAX_LIST_NESTING


def test_unclosed_inline_elements_carry_a_bounded_number_of_spans(standin: str) -> None:
    """A thousand unclosed ``<i>`` stay open over every later block; past MAX_OPEN_INLINE they
    make no spans (each block carried all of them: work and spans quadratic in the page)."""
    from grist.segment.inline import MAX_OPEN_INLINE

    page = ("<html><body>" + "<i>" * 1000 + "".join(f"<p>Paragraph {n} has enough words.</p>"
                                                     for n in range(40)) + "</body></html>")
    result = grist.extract(page, method=standin)
    kept = [b for b in result.blocks if b.text.startswith("Paragraph")]
    assert len(kept) == 40
    assert all(len(b.inline) == MAX_OPEN_INLINE for b in kept)
    out = result.render("markdown")
    assert all(f"Paragraph {n} has enough words." in out for n in range(40))


def test_a_result_and_its_document_show_as_one_short_line():
    page = PAGE.replace("<p>Steep", "<p>" + "Long words here. " * 40 + "Steep")
    result = grist.extract(page, url="https://tea.example/guide", method="justext")
    kept = result.content_blocks
    shown = repr(result)
    assert shown.startswith("Result(method='justext', url='https://tea.example/guide', "
                            "title='Tea & cakes', kept ")
    assert f"kept {len(kept)} of {len(result.blocks)} blocks, " in shown
    assert kept[0].text == "Green *tea* guide" and shown.endswith("starting 'Green *tea* guide')")
    longer = repr(grist.extract(page.replace("<h1>Green *tea* guide</h1>", "")))
    assert longer.endswith(f"starting {('Long words here. ' * 4)[:60] + '...'!r})")
    assert "<html>" not in shown and len(shown) < 300
    assert repr(result.document) == (
        f"Document(url='https://tea.example/guide', encoding=None, title='Tea & cakes', "
        f"html=<{len(page):,} characters>, parsed=True)")
    empty = grist.extract("<html><body><nav><a href=/>Home</a></nav></body></html>",
                          method="justext")
    assert repr(empty).endswith(f"kept 0 of 1 blocks, 0 words, starting '', "
                                f"empty_reason={empty.empty_reason!r})")


PERMALINKS = (
    "<html><body><article><h2>Setup<a class=headerlink href='#setup' title='Link to this "
    "heading'>\u00b6</a></h2><p>" + "Install the package and read the guide before you start. " * 3
    + "</p><h2>C#<a href='#c'>\u00b6</a></h2><p>" + "More words about the language and its many "
    "features for people. " * 3 + "</p><h3>Section <a href='/page#s'>#</a></h3><p>Words here and "
    "there for the test of it all, in a sentence that is long.</p><h3>Elsewhere "
    "<a href='/other'>\u00b6</a></h3><h5 id=examples><a class=doc-anchor href='#examples'>"
    "\u00a7</a>Examples</h5><p>Words before the next heading, long enough to keep it here.</p>"
    "<h4><a href='#usage'>#</a> <em>Usage</em> notes</h4><p>The last words of the test page, "
    "in a sentence.</p></article></body></html>")


def test_a_headings_permalink_is_left_out_of_every_rendering_but_not_out_of_the_block():
    from dataclasses import replace

    from grist.render.inline import permalink_bounds

    found = grist.extract(PERMALINKS, method="justext")
    by_text = {b.text: b for b in found.blocks}
    assert {"Setup\u00b6", "C#\u00b6", "Section #", "Elsewhere \u00b6", "\u00a7Examples",
            "# Usage notes"} <= set(by_text)
    assert permalink_bounds(by_text["Elsewhere \u00b6"]) == (0, 11)  # not to an anchor
    assert permalink_bounds(by_text["\u00a7Examples"]) == (1, 9)
    shown = replace(found, blocks=[replace(b, label=CONTENT) for b in found.blocks
                                   if b.text != "Elsewhere \u00b6"])
    text = shown.render("text")
    assert text.startswith("Setup\n\nInstall the package") and "\n\nC#\n\n" in text
    assert "\n\nSection\n\n" in text and "\u00b6" not in text and "\u00a7" not in text
    assert "\n\nExamples\n\n" in text and "\n\nUsage notes\n\n" in text
    markdown = shown.render("markdown", links=True)
    assert "## Setup\n" in markdown and "## C\\#\n" in markdown and "### Section\n" in markdown
    assert "##### Examples\n" in markdown and "#### *Usage* notes\n" in markdown
    assert "#setup" not in markdown and "#usage" not in markdown and "\u00b6" not in markdown
    assert "<h2>C#</h2>" in shown.render("html", links=True)
    assert "<h4><em>Usage</em> notes</h4>" in shown.render("html", links=True)
    assert "\u00b6" not in shown.render("xml", links=True)
    assert json.loads(shown.render("json"))["text"] == text


def test_a_permalink_ending_any_block_is_left_out_but_one_starting_a_paragraph_stays():
    from dataclasses import replace

    page = ("<html><body><main><dl><dt id='textwrap.wrap'>textwrap.wrap(text, width=70)"
            "<a class=headerlink href='#textwrap.wrap'>\u00b6</a></dt><dd><p>Wraps the single "
            "paragraph in text so every line is at most width characters long.</p></dd></dl>"
            "<p>A comment of a reader, with its own link at the end "
            "<a href='#comment-7'>\uf0c1</a></p><p><a href='#v1'>\u00a7</a>1.0.0 is the Rust "
            "version of the variant.</p><p>C# is a language <a href='/c'>\u00b6</a></p>"
            "</main></body></html>")
    found = grist.extract(page, method="justext")
    shown = replace(found, blocks=[replace(b, label=CONTENT) for b in found.blocks])
    text = shown.render("text")
    assert text.split("\n\n") == [
        "textwrap.wrap(text, width=70)",
        "Wraps the single paragraph in text so every line is at most width characters long.",
        "A comment of a reader, with its own link at the end",
        "\u00a71.0.0 is the Rust version of the variant.",
        "C# is a language \u00b6"]  # (a link to another page is not a permalink)
    markdown = shown.render("markdown", links=True)
    assert "#textwrap.wrap" not in markdown and "#comment-7" not in markdown
    assert "[\u00a7](#v1)1.0.0" in markdown
    assert "<dt>textwrap.wrap(text, width=70)</dt>" in shown.render("html", links=True)
    # the blocks keep their text: features and methods read it as before
    assert found.blocks[0].text == "textwrap.wrap(text, width=70)\u00b6"


LINE_BREAKS = ("<html><body><p>The Bakery School<br>12 Flour Street<br>Breadtown<br></p>"
               "<table><tr><th>Name</th><th>Place</th></tr><tr><td>Ann<br>Lee</td><td>Leeds</td>"
               "</tr></table><pre>code<br>lines</pre>"
               "<h2>Section<br>two <a href='#s'>\u00b6</a></h2>"
               "<p>one<br>two <a href='/x'>link<br>text</a><br></p></body></html>")


def test_a_line_break_breaks_the_rendered_line_but_not_the_blocks_text():
    from dataclasses import replace

    found = grist.extract(LINE_BREAKS, url="https://example.org/", method="justext")
    assert [b.text for b in found.blocks] == [
        "The Bakery School 12 Flour Street Breadtown", "Name", "Place", "Ann Lee", "Leeds",
        "code\nlines", "Section two \u00b6", "one two link text"]
    shown = replace(found, blocks=[replace(b, label=CONTENT) for b in found.blocks])
    text = shown.render("text")
    assert text.split("\n\n") == ["The Bakery School\n12 Flour Street\nBreadtown",
                                  "Name\tPlace\nAnn Lee\tLeeds", "code\nlines", "Section two",
                                  "one\ntwo link\ntext"]
    assert json.loads(shown.render("json"))["text"] == text
    html = shown.render("html", links=True)
    assert "<p>The Bakery School<br>12 Flour Street<br>Breadtown</p>" in html
    assert "<td>Ann<br>Lee</td>" in html
    assert '<a href="https://example.org/x">link<br>text</a>' in html
    markdown = shown.render("markdown")
    assert "The Bakery School\\\n12 Flour Street\\\nBreadtown\n" in markdown
    assert "| Ann Lee | Leeds |" in markdown and "one\\\ntwo link\\\ntext" in markdown
    assert "## Section two\n" in markdown and "<h2>Section two</h2>" in html


@pytest.mark.parametrize("page", [
    LINE_BREAKS,
    "<p>  lead <br><br> \u200b <b>bold</b><br>after<img src='/i.png'><br> <br>end <br></p>",
    "<p><br>first\u00ad word<a href='/a'> <br>in link </a>\ufeff<br><i>x</i>y<br></p>",
], ids=["page", "spaces", "invisible"])
def test_the_line_breaks_of_plain_text_are_where_the_inline_spans_put_them(page):
    """Plain text finds its breaks without reading the links' and images' attributes."""
    from grist.segment.inline import break_offsets, collapse

    blocks = [b for b in grist.extract(page, method="justext").blocks if b.marks]
    assert blocks
    for block in blocks:
        spans = collapse(*block.marks)[1]
        assert break_offsets(*block.marks) == [s.start for s in spans if s.kind == "br"]


def test_a_lazy_image_and_its_noscript_copy_are_one_image():
    page = ("<html><body><figure><img src='data:image/svg+xml,x' data-lazy-src='/a.jpg' "
            "alt='A view'><noscript><img src='/a.jpg' alt='A view'></noscript><figcaption>"
            "The pier at dawn</figcaption></figure><p>One <img src='/b.png' alt='b'> and "
            "another <img src='/b.png' alt='b'> of the same.</p></body></html>")
    found = grist.extract(page, url="https://example.org/", method="justext")
    for block in found.blocks:
        block.label = CONTENT
    markdown = found.render("markdown", images=True)
    assert markdown.count("](https://example.org/a.jpg)") == 1
    assert markdown.count("](https://example.org/b.png)") == 2  # two places: two images
    assert found.render("html", images=True).count('src="https://example.org/a.jpg"') == 1
