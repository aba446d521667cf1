"""Segmentation into atomic text blocks exactly as seed 000 §4.1.1 describes."""

from grist.html.load import load_document
from grist.html.parse import parse_document
from grist.segment.blocks import PAPER_BLOCK_TAGS, SegmentConfig, segment


def blocks_of(body: str, config: SegmentConfig | None = None):
    doc = parse_document(load_document(f"<html><head><title>t</title></head><body>{body}</body></html>"))
    return segment(doc, config)


def texts(body: str, config: SegmentConfig | None = None) -> list[str]:
    return [b.text for b in blocks_of(body, config)]


def test_non_content_elements_are_dropped():
    body = "<style>p{}</style><script>var x;</script><select><option>opt</option></select><!-- c --><p>kept</p>"
    assert texts(body) == ["kept"]


def test_every_paper_block_tag_splits():
    # Table parts outside a table are dropped (and text directly in a table is moved before it)
    # by the tree builder, as in browsers; tables are tested below.
    table_parts = {"caption", "col", "colgroup", "table", "td", "th", "tr", "thead", "tfoot"}
    for tag in sorted(PAPER_BLOCK_TAGS - table_parts - {"optgroup", "option"}):
        body = f"before<{tag}>inside</{tag}>after"
        got = texts(body)
        assert "inside" in got and "before" in got and "after" in got, (tag, got)


def test_links_and_inline_tags_do_not_split():
    (block,) = blocks_of('<p>Read <a href="/x">the full story</a> and <b>more</b> <em>here</em>.</p>')
    assert block.text == "Read the full story and more here."
    assert block.anchor_words == 3
    assert block.anchor_chars == len("the full story")
    assert block.tag_counts == {"a": 1, "b": 1, "em": 1}


def test_two_brs_split_but_one_does_not():
    assert texts("one<br>two<br><br>three<br> <br>four") == ["one two", "three", "four"]


def test_br_run_threshold_is_configurable():
    assert texts("a<br><br>b", SegmentConfig(min_br_run=3)) == ["a b"]


def test_paper_list_keeps_html5_sections_together():
    body = "<section>alpha<article>beta</article></section>"
    assert texts(body) == ["alpha", "beta"]
    assert texts(body, SegmentConfig(block_tags=PAPER_BLOCK_TAGS)) == ["alphabeta"]


def test_block_context_fields():
    body = (
        '<div id="main" class="story"><h2>Title</h2><ol><li>first</li></ol>'
        "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>"
        "<pre>  x = 1\n    y = 2</pre></div>"
    )
    heading, item, a, b, c, code = blocks_of(body)
    assert heading.heading == 2 and heading.tag == "h2"
    assert heading.path == "html>body>div>h2" and heading.depth == 4
    assert "main" in heading.info["classes"] and "story" in heading.info["classes"]
    assert (item.list_kind, item.list_depth, item.tag) == ("ol", 1, "li")
    assert (a.cell, b.cell, c.cell) == ((1, 0, 0, 1, 1), (1, 0, 1, 1, 1), (1, 1, 0, 1, 1))
    assert code.preformatted and code.text == "  x = 1\n    y = 2"
    assert [blk.index for blk in (heading, item, a, b, c, code)] == [0, 1, 2, 3, 4, 5]
    assert heading.region == item.region and a.region != b.region


def test_whitespace_is_collapsed_outside_pre():
    assert texts("<p>  many\n\n   spaces\there </p>") == ["many spaces here"]


def test_c1_controls_read_as_windows_1252_and_c0_controls_dropped():
    got = blocks_of("<p>we\x92re in New York\x97Union Square\x1b[0m, \x81done</p>"
                    "<pre>code\x92s \x07bell</pre>")
    assert [b.text for b in got] == ["we\u2019re in New York\u2014Union Square[0m, done",
                                     "code\u2019s bell"]


def test_text_that_shows_no_character_makes_no_block():
    # a spacer paragraph of a zero-width joiner, a byte-order mark and a zero-width space, an
    # icon-font glyph (private use), a control character, pres of a no-break space and of a
    # space then a zero-width space
    body = ("<p>\u200d</p><p>Real text.</p><p>\ufeff \u200b</p><p><i class=icon>\ue80a</i></p>"
            "<div>\x07</div><pre>\n\u00a0\n</pre><pre> \u200b</pre>"
            "<p>soft\u00adhyphen \u200dand joiner</p><pre>  code\u00a0 x</pre>")
    got = blocks_of(body)
    assert [b.text for b in got] == [
        "Real text.", "softhyphen \u200dand joiner", "  code\u00a0 x"]
    assert [b.index for b in got] == [0, 1, 2]  # the dropped ones take no index


def test_deeply_nested_page_is_segmented_iteratively():
    depth = 2500
    body = "<div>" * depth + "bottom" + "</div>" * depth + "<p>end</p>"
    blocks = blocks_of(body)
    assert [b.text for b in blocks] == ["bottom", "end"]
    assert blocks[0].depth == depth + 2


def test_noscript_content_is_kept_as_blocks():
    # Forums such as Discourse serve their posts only inside <noscript>; lexbor parses it as markup.
    page = "<div id=app></div><noscript><div class=post><p>The first post of the thread.</p></div></noscript>"
    assert texts(page) == ["The first post of the thread."]


def test_svg_tag_spellings_stay_apart_when_svg_is_walked():
    # lexbor gives SVG's ``textPath`` and an HTML ``<textpath>`` one tag id: with svg walked,
    # the element table must still name each as parsed (the walk looks tags up by name then).
    from grist.segment.blocks import DEFAULT_SKIP_TAGS, segment_elements

    doc = parse_document(load_document(
        "<html><body><svg><textPath>in svg</textPath></svg><textpath>outside</textpath>"
        "</body></html>"))
    config = SegmentConfig(skip_tags=DEFAULT_SKIP_TAGS - {"svg"})
    _, elements = segment_elements(doc, config)
    assert [row[2] for row in elements.rows][-2:] == ["textPath", "textpath"]
    _, default = segment_elements(doc)
    assert "textPath" not in [row[2] for row in default.rows]
    assert [row[2] for row in default.rows][-1] == "textpath"
