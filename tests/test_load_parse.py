"""Loading enforces the caps; parsing is browser-like and survives deep nesting."""

import pytest

from grist.errors import (
    EmptyInputError,
    ExtractionTimeout,
    LimitExceededError,
    NotHTMLError,
)
from grist.html.load import load_document, title_from_source
from grist.html.parse import check_structure, estimate_depth, parse_document
from grist.limits import Budget, Limits


def test_title_is_read_without_a_dom():
    assert title_from_source("<html><head><TITLE> A &amp; B\n page </title>") == "A & B page"
    assert title_from_source("<p>no title</p>") == ""


def test_load_bytes_and_str_give_the_same_text():
    page = "<html><head><title>T</title></head><body><p>Zürich</p></body></html>"
    from_bytes = load_document(page.encode("utf-8"), url="http://x.test/")
    from_str = load_document(page)
    assert from_bytes.html == from_str.html
    assert from_bytes.encoding == "utf-8" and from_str.encoding is None
    assert from_bytes.title == "T" and from_bytes.url == "http://x.test/"


def test_size_cap_is_reported():
    with pytest.raises(LimitExceededError, match="max_bytes"):
        load_document(b"<p>" + b"x" * 2000, limits=Limits(max_bytes=1000))


def test_empty_and_nul_strings_are_refused():
    with pytest.raises(EmptyInputError):
        load_document("   ")
    with pytest.raises(NotHTMLError):
        load_document("\x00\x01\x00" * 100)


def test_broken_html_parses_like_a_browser():
    page = "<!DOCTYPE html><p>one<p>two<table><td>cell</table><b><i>x</b>y</i>"
    doc = parse_document(load_document(page))
    paragraphs = [node.text() for node in doc.dom.css("p")]
    assert paragraphs == ["one", "two"]  # an open <p> closes at the next <p> and at <table>
    assert doc.dom.css_first("td").text() == "cell"  # the missing <tr> and <tbody> are implied
    assert doc.dom.css_first("i").text() == "x"  # misnested </b> closes <i> (adoption agency)


def test_deep_nesting_beyond_libxml2_limit_keeps_all_text():
    depth = 3000
    page = "<body>" + "<div>" * depth + "deep text" + "</div>" * depth + "<p>after</p></body>"
    doc = parse_document(load_document(page))
    body_text = doc.dom.body.text()
    assert "deep text" in body_text and "after" in body_text


def test_depth_cap_is_reported_not_hidden():
    page = "<body>" + "<div>" * 500 + "x" + "</div>" * 500
    with pytest.raises(LimitExceededError, match="max_depth"):
        parse_document(load_document(page), Limits(max_depth=100))


def test_tag_cap_is_reported():
    with pytest.raises(LimitExceededError, match="max_tags"):
        parse_document(load_document("<p>x</p>" * 100), Limits(max_tags=50))


def test_depth_estimate_ignores_implicitly_closed_tags():
    assert estimate_depth("<ul>" + "<li>item" * 1000 + "</ul>", 10_000) == 1
    assert estimate_depth("<div><div><span>x</span></div></div>", 10) == 3
    assert estimate_depth("<p>a<p>b<br><img src=x>", 10) == 0


def test_budget_raises_after_deadline():
    budget = Budget(0.0)
    with pytest.raises(ExtractionTimeout, match="time budget"):
        budget.check("parsing")


def test_depth_estimate_closes_self_closing_tags_only_inside_svg_and_math():
    icons = "<svg>" + '<path d="M0 0"/>' * 5000 + "<g><circle r=1 /></g></svg>"
    assert estimate_depth("<div>" + icons + "</div>", 10_000) == 3
    assert estimate_depth("<div/>" * 50, 10_000) == 50  # HTML ignores "/>" on a div
    assert estimate_depth("<svg>" + "<path/>" * 9 + "</svg>" + "<b/>" * 5, 100) == 5


def test_depth_estimate_reads_whole_tag_names_in_any_case():
    # "col"/"p"/"th" never nest, but "colgroup"... do not either while "colx"/"param2"/"thx" do
    assert estimate_depth("<COLGROUP><Col><P><TH><THEAD><Br/>", 10) == 0
    assert estimate_depth("<colx><param2><thx><pre>", 10) == 4
    assert estimate_depth("<SVG><path/><Path/></svg><Math><mi/></MATH>", 10) == 1
    assert estimate_depth("<svgx><path/></svgx>", 10) == 2  # not svg: "/>" is ignored
    assert estimate_depth("<ba\u017fe><ſpan>", 10) == 1  # only ASCII letters make a name


def test_depth_estimate_ignores_stray_closing_tags_and_stops_one_past_the_limit():
    page = "</div></div><div><b>x</b></div></span><i><u><em>"
    assert estimate_depth(page, 100) == 3
    assert estimate_depth("<svg></svg>" + page, 100) == 3  # the tag-by-tag walk agrees
    assert estimate_depth("<div>" * 50, 9) == 10
    assert estimate_depth("<svg></svg>" + "<div>" * 50, 9) == 10
    assert estimate_depth("no tags", 5) == estimate_depth("</p></div>", 5) == 0


def test_tag_count_is_the_number_of_tag_starts():
    assert check_structure("a < b, <<div>x</div><!-- c --><?pi?> <", Limits()) == 3
