"""The compiled walk (``grist.segment._walk``) makes what the Python walk makes: every field of
every block, its marks and inline spans, its table, and the element table, on pages written to
reach each of its branches, under several segmenter configurations."""

import dataclasses

import pytest

import grist.segment.blocks as blocks_module
from grist.errors import ExtractionTimeout, LimitExceededError
from grist.html.load import load_document
from grist.html.parse import parse_document
from grist.limits import Budget
from grist.segment.blocks import DEFAULT_SKIP_TAGS, PATH_DEPTH, SegmentConfig, segment_elements
from grist.segment.inline import MAX_OPEN_INLINE

PAGES = {
    "article": """<html><head><title>T</title></head><body>
        <nav id="top" class="menu"><ul><li><a href="/a">Home</a></li><li><a href="/b">News</a>
        </li></ul></nav><main role="main"><article itemprop="articleBody" class="post">
        <h1 class="title">A headline</h1><p class="byline">By <a href="/w">Writer</a> on
        <time>Monday</time></p><p>First <em>paragraph</em> with <strong>strong <i>nested</i>
        </strong> words and <code>x = 1</code>, <del>gone</del>, <kbd>K</kbd>.</p>
        <figure><img src="/i.jpg" alt="An  image"><figcaption>Caption</figcaption></figure>
        <p>Lazy <img data-src="/lazy.png" src="data:x"> image and<br>one break, then<br><br>
        two.</p><blockquote><p>Quoted <blockquote>twice</blockquote></p></blockquote>
        <ol><li>one<ul><li>inner</li></ul></li><li>two</li></ol></article></main>
        <div hidden>hidden copy</div><div aria-hidden="true">aria</div>
        <div style="display: none">styled</div><div style="color:red">shown</div>
        <div data-testid="related" data-component="teaser" id="r" class="rail">Related</div>
        <footer class="site-footer">© 2026 <a href="/c">café\u00a0menu — “quoted”\u2003x</a>
        </footer></body></html>""",
    "tables": """<html><body><table role="Presentation" summary="s"><caption>Cap</caption>
        <thead><tr><th>H1</th><th>H2</th></tr></thead><tbody><tr><td>a</td><td>b
        <table><tr><td>inner</td></tr></table></td><td>c</td></tr></tbody>
        <tfoot><tr><td>f</td></tr></tfoot></table><table><colgroup><col></colgroup>
        <tr><td>lone</td></tr></table><tr><td>stray</td></tr></body></html>""",
    "code": """<html><body><pre class="language-Python"><code>def f():
    return 1</code>
<span class="hljs-comment"># c</span> <a href="/x">link in pre</a> <em>em</em><br>line</pre>
        <pre data-lang="js"><code>y</code><code class="lang-ts">let x</code></pre>
        <pre><code class="lang-ts">let z</code></pre>
        <p>after <code class="language-c">int</code> pre</p>
        <pre>

  indented
</pre></body></html>""",
    "whitespace": """<html><body><p>\u200d</p><p>\u00ad\ufeff</p><p>\ue000</p><p> \t\n</p>
        <div>text <b> </b> more<span>\u3000ideo\u3000</span></div>
        <a href="/z">\u4e2d\u6587\u94fe\u63a5 \u548c words</a><p>x<br>y<br><br><br>z</p>
        <div><a href="/1">one</a><a href="/2"> two </a></div><!-- comment --><p>ok</p>
        <svg><text>drawn</text></svg><math><mi>x</mi></math><script>no()</script>
        <template><p>inert</p></template><noscript>enable js</noscript></body></html>""",
    "inline-depth": "<html><body><p>" + "<em>" * (MAX_OPEN_INLINE + 5) + "deep"
    + "</em>" * (MAX_OPEN_INLINE + 5) + "<div>split</div>after</p><p>"
    + "<b><a href='/q'>carried<div>across</div>blocks</a></b></p></body></html>",
    "path-depth": "<html><body>" + "<div class='d'>" * (PATH_DEPTH + 20) + "deep text"
    + "</div>" * (PATH_DEPTH + 20) + "<p>shallow</p></body></html>",
    "made-up tags": """<html><body><x-card class="c"><my-title>Own tag</my-title>
        <foo:bar>ns</foo:bar></x-card><svg><clipPath id="c"></clipPath></svg>
        <h2>Heading <span>two</span></h2><h6>six</h6><center>old</center>
        <details><summary>More</summary><p>hidden detail</p></details></body></html>""",
    "lists": """<html><body><ol start=" 3rd"><li>three</li><li value="7">seven<ul><li>dot
        </li></ul>after dot</li>between items<li>eight</li></ol><ol reversed><li>x</li><li>y</li>
        <li>z</li></ol><ol reversed start="2"><li><p>two</p><p>again</p></li><li>one</li>
        <li>zero</li></ol><ol start="99999999999"><li value="-4">minus</li><li value="x">
        next</li></ol><li>no list</li><ul><li value="5">bullet</li></ul></body></html>""",
    "images alone in items": """<html><body><p>Before the list</p><ol><li><img src="/first.png"></li><li>second</li>
        <li><a href="/l"><img src="/third.png" alt="3"></a></li><li>fourth<ul>
        <li><img src="/nested.png"></li></ul></li><li><p><img src="/p.png"></p><p>in p</p></li>
        </ol><ul><li>only item</li><li><img src="/last.png"></li></ul><p>After</p></body></html>""",
    "spans": """<html><body><table><tr><th rowspan="2">A</th><th colspan=" 2nd">B</th>
        <td rowspan="0">z</td></tr><tr><td>b1</td><td>b2</td><td colspan="0">c</td></tr><tr>
        <td colspan="3" rowspan="99999">wide<table><tr><td rowspan=2>in</td><td>x</td></tr>
        <tr><td>y</td></tr></table></td><td>d</td></tr><tr><td>e</td></tr></table></body></html>""",
    "images alone in cells": """<html><body><p>Before the table</p><table><tr><td><img src="/corner.png"></td><th>Name</th></tr>
        <tr><td colspan="2"><img src="/wide.png"></td></tr><tr><td>Cat</td>
        <td rowspan="2"><a href="/cat"><img src="/cat.png"></a></td></tr><tr><td><img
        src="/row.png"></td></tr></table><p>After</p></body></html>""",
    "definitions": """<html><body><dl><dt>term</dt><dd><p>one</p><p>more</p></dd><dd><p>two
        </p><dl><dt>inner</dt><dd>def</dd></dl>after inner</dd>between<div><dt>in div</dt></div>
        </dl><dl><dt>next list</dt></dl><dd>no list</dd><ul><li>item<dl><dd>in item</dd></dl>
        </li></ul></body></html>""",
    "no body": "plain text only",
    "invisible": """<html><body><p>An extra\u00ad<a href="/o">ordi\u00adnary</a> word,
        zero\u200bwidth <b>\u2060joined\ufeff</b> and ZW\u200cN\u200dJ kept.</p>
        <p>\u00ad <a href="/e">\u200b</a> x</p><pre>soft\u00adhyphen in code</pre><pre>an \x1b[0m escape</pre>
        <p>\u00ad\u200b\u2060\ufeff</p><p>caf\u00e9 with no invisible</p>
        <p>A terminal's \x1b[31mred\x1b[0m, a bell&#x07;, a C1 \x9b and a DEL \x7fgone.</p>
        <p>\u4e2d\u6587\x1b[2J\u4e2d</p></body></html>""",
}
CONFIGS = {
    "default": SegmentConfig(),
    "no classes": SegmentConfig(keep_classes=False),
    "svg walked": SegmentConfig(skip_tags=DEFAULT_SKIP_TAGS - {"svg", "math"}),
    "one br": SegmentConfig(min_br_run=1, block_tags=frozenset(("p", "div"))),
}


def walked(html: str, config: SegmentConfig, budget: Budget | None = None):
    """Everything segmentation made of a page, in comparable form (nodes by their tags)."""
    blocks, elements = segment_elements(parse_document(load_document(html)), config, budget)
    made = []
    for block in blocks:
        fields = {f.name: getattr(block, f.name) for f in dataclasses.fields(block)
                  if f.name not in ("marks", "table")}
        marks = None if block.marks is None else (
            list(block.marks[0]), [(at, kind, _element(node), op)
                                   for at, kind, node, op in block.marks[1]])
        table = None if block.table is None else dataclasses.astuple(block.table)
        made.append((fields, marks, table, block.inline))
    return made, elements.rows, elements.end


def _element(node):
    """A mark's element in comparable form: a node by its tag, an image that stood alone (an
    ``Alone``) by its image's and link's tags and the list item, cell and quotes it stood in."""
    if isinstance(node, tuple):
        image, link, *where = node
        return image.tag, _element(link), *where
    return node.tag if node is not None else None


def test_the_compiled_walk_is_built():
    from grist.segment import _walk

    assert blocks_module._walk is _walk


@pytest.mark.parametrize("config", CONFIGS.values(), ids=CONFIGS.keys())
@pytest.mark.parametrize("html", PAGES.values(), ids=PAGES.keys())
def test_both_walks_make_the_same(html, config, monkeypatch):
    compiled = walked(html, config)
    monkeypatch.setattr(blocks_module, "_walk", None)
    assert walked(html, config) == compiled
    assert compiled[0] or html == PAGES["no body"]  # (the comparison is of something)


def test_what_a_browser_does_not_draw_is_dropped_from_the_text_and_its_spans(either_walk):
    made, _, _ = walked(PAGES["invisible"], CONFIGS["default"])
    texts = [fields["text"] for fields, *_ in made]
    assert texts == ["An extraordinary word, zerowidth joined and ZW\u200cN\u200dJ kept.", "x",
                     "soft\u00adhyphen in code", "an [0m escape", "caf\u00e9 with no invisible",
                     "A terminal's [31mred[0m, a bell, a C1 \u203a and a DEL gone.",  # (\x9b: cp1252's ›)
                     "\u4e2d\u6587[2J\u4e2d"]
    spans = made[0][3]
    link = next(s for s in spans if s.kind == "link")
    assert texts[0][link.start:link.end] == "ordinary" and link.url == "/o"
    bold = next(s for s in spans if s.kind == "strong")
    assert texts[0][bold.start:bold.end] == "joined"


def test_ruby_annotations_are_not_in_the_line_they_annotate(either_walk):
    page = ("<html><body><p>\u6771\u4eac\u306e<ruby>\u6f22<rp>(</rp><rt>\u304b\u3093</rt>"
            "<rp>)</rp>\u5b57<rt>\u3058</ruby>\u3092\u5b66\u3076</p><p>"
            "<ruby>\u6c49<rt>h\u00e0n</rt>\u5b57<rt>z\u00ec</rt></ruby> text</p></body></html>")
    made, _, _ = walked(page, CONFIGS["default"])
    assert [fields["text"] for fields, *_ in made] == [
        "\u6771\u4eac\u306e\u6f22\u5b57\u3092\u5b66\u3076", "\u6c49\u5b57 text"]


def test_list_items_know_their_list_item_and_number(either_walk):
    """``start`` (read as HTML reads integers), ``value``, ``reversed`` counting down from the
    number of items, text in a list outside its items, an ``li`` outside lists."""
    made, _, _ = walked(PAGES["lists"], CONFIGS["default"])
    assert [(fields["text"], fields["list_item"]) for fields, *_ in made] == [
        ("three", (1, 1, 3)), ("seven", (1, 2, 7)), ("dot", (2, 3, 1)), ("after dot", (1, 2, 7)),
        ("between items", (1, 0, 0)), ("eight", (1, 4, 8)), ("x", (3, 5, 3)), ("y", (3, 6, 2)),
        ("z", (3, 7, 1)), ("two", (4, 8, 2)), ("again", (4, 8, 2)), ("one", (4, 9, 1)),
        ("zero", (4, 10, 0)), ("minus", (5, 11, -4)), ("next", (5, 12, -3)),
        ("no list", None), ("bullet", (6, 13, 1))]


def test_definition_blocks_know_their_list_and_term_or_definition(either_walk):
    """Each ``dl`` of the page and each ``dt``/``dd`` of it counted from 1: the blocks of one
    ``dd`` share it, a nested ``dl`` counts its own and the outer one goes on after it, text in
    a ``dl`` outside its terms and definitions is in entry 0, a ``dd`` outside lists in none."""
    made, _, _ = walked(PAGES["definitions"], CONFIGS["default"])
    assert [(fields["text"], fields["definition"]) for fields, *_ in made] == [
        ("term", (1, 1)), ("one", (1, 2)), ("more", (1, 2)), ("two", (1, 3)),
        ("inner", (2, 1)), ("def", (2, 2)), ("after inner", (1, 3)), ("between", (1, 0)),
        ("in div", (1, 4)), ("next list", (3, 1)), ("no list", None), ("item", None),
        ("in item", (4, 1))]


def test_cells_are_placed_as_a_browser_lays_the_table_out(either_walk):
    """``colspan`` moves the next cell along, ``rowspan`` takes its column in the rows below
    (read as HTML reads them: ``" 2nd"`` is 2, 0 or past the limits is clamped), and each cell
    says the rows and columns it spans; a nested table lays out its own cells."""
    made, _, _ = walked(PAGES["spans"], CONFIGS["default"])
    assert [(fields["text"], fields["cell"]) for fields, *_ in made] == [
        ("A", (1, 0, 0, 2, 1)), ("B", (1, 0, 1, 1, 2)), ("z", (1, 0, 3, 1, 1)),
        ("b1", (1, 1, 1, 1, 1)), ("b2", (1, 1, 2, 1, 1)), ("c", (1, 1, 3, 1, 1)),
        ("wide", (1, 2, 0, 65534, 3)), ("in", (2, 0, 0, 2, 1)), ("x", (2, 0, 1, 1, 1)),
        ("y", (2, 1, 1, 1, 1)), ("d", (1, 2, 3, 1, 1)), ("e", (1, 3, 3, 1, 1))]


def test_placing_cells_under_cells_spanning_rows_has_a_bounded_cost(either_walk, monkeypatch):
    """``MAX_SPAN_SLOTS`` bounds the columns cells spanning rows take plus the slots cells skip
    for them; past it cells are placed as if nothing spanned rows (a hostile page stays cheap)."""
    monkeypatch.setattr(blocks_module, "MAX_SPAN_SLOTS", 4)
    page = ("<html><body><table><tr><td rowspan=3 colspan=2>a</td><td rowspan=2>b</td></tr>"
            "<tr><td>c</td></tr><tr><td>d</td></tr></table></body></html>")
    made, _, _ = walked(page, CONFIGS["default"])
    # a takes 2 columns, b 1, c skips one slot: the fourth; then nothing more is skipped
    assert [(fields["text"], fields["cell"][1:]) for fields, *_ in made] == [
        ("a", (0, 0, 3, 2)), ("b", (0, 2, 2, 1)), ("c", (1, 1, 1, 1)), ("d", (2, 0, 1, 1))]
    page = page.replace("<td>d</td>", "<td rowspan=2>d</td>")  # past the budget: one row
    made, _, _ = walked(page, CONFIGS["default"])
    assert made[-1][0]["cell"][1:] == (2, 0, 1, 1)
    monkeypatch.setattr(blocks_module, "MAX_SPAN_SLOTS", 100)
    made, _, _ = walked(page, CONFIGS["default"])
    assert [fields["cell"][1:] for fields, *_ in made] == [
        (0, 0, 3, 2), (0, 2, 2, 1), (1, 3, 1, 1), (2, 2, 2, 1)]


def test_the_pages_reach_the_walks_branches():
    made, rows, _ = walked(PAGES["article"] + PAGES["tables"], CONFIGS["default"])
    kinds = {mark[1] for _, marks, _, _ in made if marks for mark in marks[1]}
    assert {"link", "image", "em", "strong", "code", "del", "br"} <= kinds
    assert any(row[4] for row in rows)  # hidden elements
    made, _, _ = walked(PAGES["tables"], CONFIGS["default"])
    tables = {table for _, _, table, _ in made if table}
    assert any(t[4] and t[5] and t[7] == "presentation" and t[8] for t in tables)  # head, caption
    assert any(t[6] for t in tables)  # nested
    made, _, _ = walked(PAGES["code"], CONFIGS["default"])
    assert {"python", "js", "ts"} <= {fields["code_language"] for fields, *_ in made}
    for page, place in (("images alone in items", 2), ("images alone in cells", 3)):
        made, _, _ = walked(PAGES[page], CONFIGS["default"])
        alone = [mark[2] for _, marks, _, _ in made if marks for mark in marks[1] if mark[3] == 4]
        assert len(alone) >= 4 and all(image[place] for image in alone)
        assert any(image[1] == "a" for image in alone)  # (one in a link)


@pytest.fixture(params=["compiled", "python"])
def either_walk(request, monkeypatch):
    """Segment with each walk in turn."""
    if request.param == "python":
        monkeypatch.setattr(blocks_module, "_walk", None)


def test_the_block_cap_stops_either_walk_with_the_same_error(either_walk):
    html = "<html><body>" + "<p>block</p>" * 50 + "</body></html>"
    with pytest.raises(LimitExceededError, match="more than 10 text blocks"):
        walked(html, CONFIGS["default"], Budget(60, max_blocks=10))
    assert len(walked(html, CONFIGS["default"], Budget(60, max_blocks=50))[0]) == 50


def test_the_time_budget_is_checked_during_either_walk(either_walk):
    html = "<html><body>" + "<span>x</span>" * 5000 + "</body></html>"
    with pytest.raises(ExtractionTimeout, match="during segmentation"):
        walked(html, CONFIGS["default"], Budget(-1))
