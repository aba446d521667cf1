"""Tables as units, inline markup recorded by segmentation, safe HTML, and the noscript fix."""

from __future__ import annotations

import random

import pytest

import grist
from grist.classify.table_units import tables_as_units
from grist.document import BOILERPLATE, CONTENT
from grist.html.load import load_document
from grist.html.parse import close_noscript_raw_text, parse_document
from grist.segment.blocks import segment
from grist.segment.inline import collapse
from grist.segment.tables import is_data_table, table_cells

SIZES = ("<table><caption>Mattress sizes</caption><tr><th>Size</th><th>Inches</th></tr>"
         "<tr><td>Twin XL</td><td>38 x 80</td></tr><tr><td>Full</td><td>54 x 75</td></tr>"
         "<tr><td>Queen</td><td>60 x 80</td></tr><tr><td>King</td><td>76 x 80</td></tr></table>")
LAYOUT = ("<table><tr><td><a href=/>Home</a> <a href=/a>About</a></td><td><p>" + "An article "
          "paragraph that goes on. " * 20 + "</p><p>Another paragraph of the article.</p></td>"
          "</tr></table>")


def blocks_of(body: str):
    return segment(parse_document(load_document(f"<html><body>{body}</body></html>")))


def tables(body: str) -> list[bool]:
    return [is_data_table(cells) for cells in table_cells(blocks_of(body)).values()]


def test_data_and_layout_tables_are_told_apart() -> None:
    assert tables(SIZES) == [True]
    assert tables(LAYOUT) == [False]
    assert tables(SIZES.replace("<table>", "<table role=presentation>")) == [False]
    nested = f"<table><tr><td>{SIZES}</td><td>side</td></tr><tr><td>a</td><td>b</td></tr></table>"
    assert tables(nested) == [True, False]  # inner first (its cells come first); outer: layout
    plain = "".join(f"<tr><td>r{i}</td><td>{i}</td></tr>" for i in range(3))
    assert tables(f"<table>{plain}</table>") == [False]  # 3x2 without header markup: too small
    many = "".join(f"<tr><td>r{i}</td><td>{i}</td></tr>" for i in range(12))
    assert tables(f"<table>{many}</table>") == [True]


def _label(blocks, kept: set[str]) -> None:
    for block in blocks:
        block.label = CONTENT if block.text in kept or block.cell is None else BOILERPLATE
        block.reason = "test"


def test_a_data_table_is_kept_whole_with_its_header_and_row_labels() -> None:
    blocks = blocks_of(f"<p>Our sizes.</p>{SIZES}")
    _label(blocks, {"38 x 80", "54 x 75", "60 x 80", "76 x 80", "Inches"})  # values kept only
    assert tables_as_units(blocks) == 5
    assert all(b.is_content for b in blocks)
    changed = [b for b in blocks if b.decided_by == "table"]
    assert [b.text for b in changed] == ["Size", "Twin XL", "Full", "Queen", "King"]
    assert changed[0].reason == ("data table kept whole: 13 of its 19 words were content "
                                 "(page: test)")


def test_a_mostly_dropped_data_table_is_dropped_whole() -> None:
    blocks = blocks_of(SIZES)
    _label(blocks, {"Twin XL"})
    tables_as_units(blocks)
    assert [b.text for b in blocks if b.is_content] == ["Mattress sizes"]  # the caption block


def test_a_layout_table_is_left_cell_by_cell() -> None:
    blocks = blocks_of(LAYOUT)
    _label(blocks, {b.text for b in blocks if len(b.text) > 100})
    before = [b.label for b in blocks]
    assert tables_as_units(blocks) == 0 and [b.label for b in blocks] == before


def test_text_output_writes_a_table_row_per_line(standin: str) -> None:
    result = grist.extract(f"<p>The sizes we sell, in inches.</p>{SIZES}", method=standin)
    assert result.text == ("The sizes we sell, in inches.\n\nSize\tInches\n"
                           "Twin XL\t38 x 80\nFull\t54 x 75\nQueen\t60 x 80\nKing\t76 x 80")
    markdown = result.to_markdown()
    assert "| Size | Inches |\n| --- | --- |\n| Twin XL | 38 x 80 |" in markdown


def _values_only(doc, config, ctx):
    blocks = segment(doc)
    for block in blocks:  # keeps prose and the cells holding numbers, as a learned method might
        keep = block.cell is None or any(c.isdigit() for c in block.text)
        block.label, block.reason = (CONTENT, "digits") if keep else (BOILERPLATE, "no digits")
    return grist.methods.Labelled(blocks)


def test_the_extractor_applies_table_units() -> None:
    grist.register_method("values", grist.methods.Method("values", "test", dict, _values_only),
                          replace=True)
    try:
        page = f"<p>The sizes we sell, in inches.</p>{SIZES}"
        whole = grist.extract(page, method="values")
        cells = grist.Extractor(method="values", table_units=False)(page)
    finally:
        grist.methods.unregister_method("values")
    assert "Twin XL\t38 x 80" in whole.text and "Size\tInches" in whole.text
    assert "Twin XL" not in cells.text and "38 x 80" in cells.text


def test_inline_spans_are_recorded_over_the_collapsed_text() -> None:
    (block,) = blocks_of('<p>Read <a href="/x"> the <b>full</b>  story</a>, and <img src="a.png" '
                         'alt=" A  cat "> <em>more</em>.</p>')
    assert block.text == "Read the full story, and more."
    spans = [(s.kind, block.text[s.start:s.end], s.url, s.alt) for s in block.inline]
    assert spans == [("link", "the full story", "/x", ""), ("strong", "full", "", ""),
                     ("image", "", "a.png", "A cat"), ("em", "more", "", "")]


def test_a_link_around_two_blocks_marks_both() -> None:
    first, second = blocks_of('<a href="/card"><div>Card title</div><div>Card text</div></a>')
    assert [(s.kind, s.url) for s in first.inline] == [("link", "/card")]
    assert [(s.start, s.end) for s in second.inline] == [(0, len("Card text"))]


def test_code_language_and_blockquote_depth() -> None:
    code, quoted = blocks_of('<pre><code class="hljs language-rust">fn main() {}</code></pre>'
                             "<blockquote><blockquote><p>deep</p></blockquote></blockquote>")
    assert (code.code_language, code.text) == ("rust", "fn main() {}")
    assert quoted.quote_depth == 2 and not code.inline


@pytest.mark.parametrize("seed", range(20))
def test_collapse_gives_the_plain_text(seed: int) -> None:
    rng = random.Random(seed)
    words = ["a", "bc", " ", "  ", "\n", "\t", "d e", " f ", "", "g\u00a0h"]
    pieces = [rng.choice(words) for _ in range(rng.randint(0, 12))]
    marks = sorted(((rng.randint(0, len(pieces)), "em", None, rng.choice((1, 2)))
                    for _ in range(rng.randint(0, 6))), key=lambda m: m[0])
    text, spans = collapse(pieces, marks)
    assert text == " ".join("".join(pieces).split())
    for span in spans:
        assert 0 <= span.start < span.end <= len(text)
        assert not text[span.start].isspace() and not text[span.end - 1].isspace()


def test_html_output_is_safe(standin: str) -> None:
    page = ('<p onclick="evil()">Click <a href="javascript:alert(1)" onmouseover="x()">here</a> or '
            '<a href=" JaVa\tScRiPt:alert(2)">there</a> or <a href="/ok">fine</a> now.</p>'
            '<p>Some <img src="data:text/html,evil" alt="x" onerror="y()"> text '
            '&lt;script&gt;alert(3)&lt;/script&gt; <script>alert(4)</script>here.</p>')
    out = grist.extract(page, url="https://e.org/", method=standin).to_html(links=True,
                                                                            images=True)
    lowered = out.lower()
    assert "javascript" not in lowered and "onclick" not in lowered and "onerror" not in lowered
    assert "onmouseover" not in lowered and "<script" not in lowered and "data:" not in lowered
    assert '<a href="https://e.org/ok">fine</a>' in out
    assert "&lt;script&gt;alert(3)&lt;/script&gt;" in out


def test_an_image_between_words_stands_apart_from_them(standin: str) -> None:
    page = ('<p><img src="/lead.png" alt="lead">Caption under it.</p>'
            '<p>Text then <img src="/b.png" alt="b"> more, and<img src="/c.png" alt="c">glued, '
            'then at the end <img src="/d.png" alt="d"></p>')
    result = grist.extract(page, url="https://e.org/", method=standin)
    markdown = result.to_markdown(images=True)
    assert "![lead](https://e.org/lead.png) Caption under it." in markdown
    assert "Text then ![b](https://e.org/b.png) more" in markdown
    assert "and![c](https://e.org/c.png)glued" in markdown  # glued in the page: glued here
    assert "at the end ![d](https://e.org/d.png)" in markdown
    assert 'then <img src="https://e.org/b.png" alt="b"> more' in result.to_html(images=True)
    assert result.text.endswith("Text then more, andglued, then at the end")  # text unchanged


def test_an_image_keeps_the_side_of_its_space_between_words(standin: str) -> None:
    """The text holds one space where the page had whitespace before or after an image; the
    image was put before it, so ``an image <img>, then`` gave ``an image ![pic] , then``."""
    page = ('<p>An image <img src="/p.png" alt="pic">, then one<img src="/q.png" alt="q"> , '
            'then two <img src="/a.png" alt="a"> <img src="/b.png" alt="b"> and more.</p>')
    result = grist.extract(page, url="https://e.org/", method=standin)
    markdown = result.to_markdown(images=True)
    assert "An image ![pic](https://e.org/p.png), then one![q](https://e.org/q.png) , then" \
        in markdown
    assert "then two ![a](https://e.org/a.png) ![b](https://e.org/b.png) and more." in markdown
    assert 'An image <img src="https://e.org/p.png" alt="pic">, then' in result.to_html(images=True)
    assert result.text == "An image , then one , then two and more."  # the text as before


def test_a_self_closed_iframe_in_noscript_keeps_the_page() -> None:
    page = ("<html><head><noscript><iframe src=https://t.example/ns.html /></noscript></head>"
            "<body><noscript><iframe src=x/></noscript><p>The whole article is still here.</p>"
            "<noscript><div class=post><p>A post served without scripts.</p></div></noscript>"
            "</body></html>")
    assert [b.text for b in blocks_of(page)] == ["The whole article is still here.",
                                                 "A post served without scripts."]
    # (parsing skips the fix on pages whose census counts no noscript: case must not hide one)
    assert [b.text for b in blocks_of("<NoScript><iframe src=x/></NoScript><p>Kept.</p>")] == [
        "Kept."]
    assert close_noscript_raw_text("<NOSCRIPT><STYLE>a{}</NOSCRIPT><p>x") == \
        "<NOSCRIPT><STYLE></style>a{}</NOSCRIPT><p>x"
    closed = "<noscript><iframe src=x></iframe></noscript><p>x"
    assert close_noscript_raw_text(closed) == closed


def test_the_noscript_fix_reads_each_part_of_the_page_once() -> None:
    # a closed element's content is text: the "<style>" inside it opens nothing
    page = "<noscript><style>a<style>b</style><iframe></noscript>"
    assert close_noscript_raw_text(page) == (
        "<noscript><style>a<style>b</style><iframe></iframe></noscript>")
    # 20,000 scripts never closed: each is closed at its start tag (every search for its end used
    # to read to the end of the page: 108 s before parsing); a later script of a name found never
    # closed is not searched again
    storm = "<p>x<noscript>" + "<script>" * 20_000
    assert close_noscript_raw_text(storm) == "<p>x<noscript>" + "<script></script>" * 20_000
    # a "<noscript" or raw-text start tag the input cuts ends the search
    assert close_noscript_raw_text("<noscript a " * 20_000) == "<noscript a " * 20_000
    cut = "<noscript><iframe a " + "<iframe b " * 20_000
    assert close_noscript_raw_text(cut) == cut


def test_explained_completes_the_method_reason_inside_a_table_vote() -> None:
    from grist.document import Block, Document
    from grist.result import Result

    voted = Block(text="Queen", label=CONTENT, decided_by="table",
                  reason="data table kept whole: 3 of its 4 words were content (page: p=0.2)")
    own = Block(text="60 x 80", label=CONTENT, reason="p=0.9")
    result = Result(Document("<p>x</p>"), [voted, own], "m",
                    reasons=lambda: ["p=0.2; short (+1.0)", "p=0.9; digits (+2.0)"])
    assert [b.reason for b in result.explained().blocks] == [
        "data table kept whole: 3 of its 4 words were content (page: p=0.2; short (+1.0))",
        "p=0.9; digits (+2.0)"]
