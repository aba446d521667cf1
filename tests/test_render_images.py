"""Images in the rendered formats: an image in a block without text stays where it stood (the
segmenter records it there, ``grist.segment.blocks.record_alone``; once the blocks are chosen,
``grist.render.layout.written_blocks`` writes it beside a kept neighbour, on a line of its own
or as a block of its own in the list item or table cell it stood in), and a linked image keeps
its link and title."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import grist
from grist.document import BOILERPLATE, CONTENT, Block
from grist.result import Result
from grist.segment import blocks as segment_blocks
from grist.segment import inline as segment_inline

URL = "https://s.org/r"
REPORT = """<html><body>
<p>The company published its yearly report on Monday, with sales up in every region.</p>
<p><img src="/chart.png" alt="Chart of sales by region"></p>
<h2>Results</h2>
<p>Sales rose by twelve percent in Europe and by eight percent in Asia this year.</p>
<ul><li>Europe grew the most of all the regions this year</li>
<li><img src="/eu.png" alt="Map of Europe"></li>
<li>Asia came second with a solid result overall</li></ul>
</body></html>"""
ANIMALS = """<html><body><table><tr><th>Animal</th><th>Picture</th></tr>
<tr><td>Cat</td><td><img src="/cat.png" alt="A cat"></td></tr>
<tr><td>Dog</td><td><img src="/dog.png" alt="A dog"></td></tr>
<tr><td><img src="/owl.png" alt="An owl"></td><td>Owl</td></tr></table></body></html>"""
FIGURE = """<html><body><p>The pier was built in 1890 and rebuilt after the storm of 1987.</p>
<figure><img src="/pier.jpg" alt="The pier"><figcaption>The pier at dawn</figcaption></figure>
<p>It is the longest pier of the coast.</p><img src="/end.png" alt="The end"></body></html>"""


def _extract(page: str, keep: Callable[[Block], bool] = lambda block: True) -> Result:
    """The page's blocks, those ``keep`` says labelled content and the others boilerplate."""
    found = grist.extract(page, url=URL, method="justext")
    for block in found.blocks:
        block.label = CONTENT if keep(block) else BOILERPLATE
    return found


def _html_body(found: Result, **options: bool) -> str:
    return found.render("html", **options).split("<article>\n")[1].split("\n</article>")[0]


def test_an_image_alone_stays_after_its_paragraph_and_in_its_list_item():
    """The image alone in a list's second item is that item, between the first and third."""
    found = _extract(REPORT)
    markdown = found.render("markdown", images=True)
    assert markdown.split("\n\n")[:2] == [
        "The company published its yearly report on Monday, with sales up in every region.\\\n"
        "![Chart of sales by region](https://s.org/chart.png)", "## Results"]
    assert ("- Europe grew the most of all the regions this year\n"
            "- ![Map of Europe](https://s.org/eu.png)\n"
            "- Asia came second with a solid result overall") in markdown
    html = _html_body(found, images=True)
    assert ('every region.<br><img src="https://s.org/chart.png" alt="Chart of sales by region">'
            "</p>\n<h2>Results</h2>") in html
    assert ('<li>Europe grew the most of all the regions this year</li><li><img '
            'src="https://s.org/eu.png" alt="Map of Europe"></li><li>Asia came') in html


def test_an_image_alone_in_a_cell_stays_in_its_cell():
    found = _extract(ANIMALS)
    assert found.render("markdown", images=True).split("\n") == [
        "| Animal | Picture |", "| --- | --- |", "| Cat | ![A cat](https://s.org/cat.png) |",
        "| Dog | ![A dog](https://s.org/dog.png) |", "| ![An owl](https://s.org/owl.png) | Owl |"]
    html = _html_body(found, images=True)
    assert '<td>Dog</td><td><img src="https://s.org/dog.png" alt="A dog"></td>' in html
    assert '<td><img src="https://s.org/owl.png" alt="An owl"></td><td>Owl</td>' in html
    tei = found.render("xml", images=True)
    assert '<row><cell>Cat</cell><cell><graphic url="https://s.org/cat.png" n="A cat" />' in tei
    # the text, and a format without images, are as the blocks are
    assert found.text.split("\n") == ["Animal\tPicture", "Cat\t", "Dog\t", "\tOwl"]
    assert "| Cat |   |" in found.render("markdown")


def test_a_column_of_images_alone_is_written():
    """The images' column holds no text, so no block: it is written with them, and only then."""
    page = ("<html><body><table><tr><th>Name</th><th>Born</th></tr><tr><td>Ada</td><td>1815</td>"
            "<td><img src='/ada.png' alt='Ada'></td></tr><tr><td>Alan</td><td>1912</td>"
            "<td><img src='/alan.png' alt='Alan'></td></tr></table></body></html>")
    found = _extract(page)
    assert found.render("markdown", images=True).split("\n")[2:] == [
        "| Ada | 1815 | ![Ada](https://s.org/ada.png) |",
        "| Alan | 1912 | ![Alan](https://s.org/alan.png) |"]
    assert found.render("markdown").split("\n")[2:] == ["| Ada | 1815 |", "| Alan | 1912 |"]


def test_an_image_alone_in_a_list_s_first_item_stays_in_the_list():
    """The block before the list is not the item before: the image is the list's first item,
    which keeps its number."""
    page = ("<html><body><p>The survey was sent to every member in the spring of this year.</p>"
            "<ol start='4'><li><img src='/a.png' alt='Answers chart'></li>"
            "<li>Most members answered within a week of receiving it</li></ol></body></html>")
    found = _extract(page)
    assert found.render("markdown", images=True).split("\n\n") == [
        "The survey was sent to every member in the spring of this year.",
        "4. ![Answers chart](https://s.org/a.png)\n"
        "5. Most members answered within a week of receiving it"]
    assert ('<ol start="4"><li><img src="https://s.org/a.png" alt="Answers chart"></li>'
            "<li>Most members answered") in _html_body(found, images=True)
    # without images= the list is the blocks' (the image is no item; the item keeps its number)
    assert found.render("markdown").split("\n\n")[1] == (
        "5. Most members answered within a week of receiving it")


def test_an_image_no_format_writes_makes_no_empty_item():
    # a data: or javascript: image is dropped when written: it made an empty "-" item
    page = ("<html><body><p>The survey was sent to every member in the spring of this year.</p>"
            "<ul><li><img src='data:image/gif;base64,R0lGOD' alt='dot'></li>"
            "<li>Most members answered within a week of receiving it</li></ul></body></html>")
    assert _extract(page).render("markdown", images=True).split("\n\n")[1] == (
        "- Most members answered within a week of receiving it")


def test_an_image_alone_is_recorded_before_the_block_after_it():
    """The segmenter only records where an image stood: at the start of the next block, or at
    the end of the page's last (the blocks, the model's input, are the same); the renderers
    place it. An image alone in a table's first row is written with the text before the table
    (the next row is often the image's caption), one alone in a list's first item in the list."""
    page = ("<html><body><p>Text before the list and the table.</p><ul><li><img src='/a.png'>"
            "</li><li>Second item</li></ul><p>Between the list and the table.</p><table>"
            "<tr><td><img src='/b.png'></td></tr><tr><td>The picture's caption</td></tr></table>"
            "<p><img src='/c.png'></p></body></html>")
    found = _extract(page)
    assert [(b.text, [s.url for s in b.inline if s.alone]) for b in found.blocks] == [
        ("Text before the list and the table.", []), ("Second item", ["/a.png"]),
        ("Between the list and the table.", []), ("The picture's caption", ["/b.png", "/c.png"])]
    assert found.render("markdown", images=True).split("\n\n") == [
        "Text before the list and the table.",
        "- ![](https://s.org/a.png)\n- Second item",
        "Between the list and the table.\\\n![](https://s.org/b.png)",
        "The picture's caption\\\n![](https://s.org/c.png)"]


def test_a_figure_image_stays_without_its_caption_and_a_last_image_is_kept():
    found = _extract(FIGURE, keep=lambda block: block.tag != "figcaption")
    assert [b.text for b in found.content_blocks] == [
        "The pier was built in 1890 and rebuilt after the storm of 1987.",
        "It is the longest pier of the coast."]
    assert found.render("markdown", images=True).split("\n\n") == [
        "The pier was built in 1890 and rebuilt after the storm of 1987.\\\n"
        "![The pier](https://s.org/pier.jpg)",
        "It is the longest pier of the coast.\\\n![The end](https://s.org/end.png)"]
    assert '<p>It is the longest pier of the coast.<br><img src="https://s.org/end.png"' in (
        _html_body(found, images=True))


HERO = """<html><body><div>Share this story by email with a friend</div>
<p><img src="/hero.jpg" alt="Hero"></p><h2>Inside the lab</h2>
<p>The lab sits in a quiet street of the old town and works through the night.</p>
<h2>Outside</h2><figure><img src="/street.jpg" alt="Street"></figure></body></html>"""


def test_an_image_given_to_a_dropped_block_goes_to_its_kept_neighbour_apart_from_a_heading():
    """The segmenter gave the hero image to the share line before it (its text outranks a
    heading); the method drops that line: the image was lost with it. And an image a heading
    took is written beside it, not in it (a heading is one line)."""
    found = _extract(HERO, keep=lambda block: not block.text.startswith("Share"))
    assert found.render("markdown", images=True).split("\n\n") == [
        "![Hero](https://s.org/hero.jpg)", "## Inside the lab",
        "The lab sits in a quiet street of the old town and works through the night.",
        "## Outside", "![Street](https://s.org/street.jpg)"]
    assert _html_body(found, images=True).startswith(
        '<p><img src="https://s.org/hero.jpg" alt="Hero"></p>\n<h2>Inside the lab</h2>')
    assert "Hero" not in found.render("markdown")  # (without images= nothing changes)


def test_an_image_alone_goes_to_no_list_it_was_not_in_and_not_into_a_heading():
    # a section's image after a checklist went into the list's last item; in an item holding a
    # heading and a paragraph it went into the heading
    page = ("<html><body><ul><li>Camp towel to dry off</li><li>Water and snacks</li></ul>"
            "<p><img src='/tips.jpg' alt='Tips'></p><h2>Backpacking tips</h2>"
            "<p>Start by weeding out the things you do not need on the trail.</p>"
            "<ol><li><h3>Kia PV5</h3><p><img src='/kia.jpg' alt='Kia'></p>"
            "<p>Another impressive entry from a brand that can do little wrong.</p></li>"
            "</ol></body></html>")
    assert _extract(page).render("markdown", images=True).split("\n\n") == [
        "- Camp towel to dry off\n- Water and snacks", "![Tips](https://s.org/tips.jpg)",
        "## Backpacking tips", "Start by weeding out the things you do not need on the trail.",
        "1. ### Kia PV5", "   ![Kia](https://s.org/kia.jpg)\\\n"
        "   Another impressive entry from a brand that can do little wrong."]


def test_an_image_after_a_list_that_went_to_its_last_item_is_written_after_the_list():
    page = ("<html><body><p>The watches we tested this year, from the cheapest to the best.</p>"
            "<ul><li>Coros Pace 3, light and cheap</li><li>Polar Grit X2, for long races</li>"
            "</ul><div><img src='/suunto.jpg' alt='Suunto 9'></div></body></html>")
    found = _extract(page)
    assert found.render("markdown", images=True).split("\n\n")[1:] == [
        "- Coros Pace 3, light and cheap\n- Polar Grit X2, for long races",
        "![Suunto 9](https://s.org/suunto.jpg)"]
    assert _html_body(found, images=True).endswith(
        '</li></ul>\n<p><img src="https://s.org/suunto.jpg" alt="Suunto 9"></p>')


def test_an_image_alone_before_a_heading_is_not_written_in_it():
    page = ("<html><body><h2>Section</h2><p><img src='/a.png' alt='A'></p>"
            "<p>The text of the section goes on here.</p><p><img src='/b.png' alt='B'></p>"
            "<h2>Next</h2><p>More.</p></body></html>")
    assert _extract(page).render("markdown", images=True).split("\n\n") == [
        "## Section", "![A](https://s.org/a.png)\\\nThe text of the section goes on here.\\\n"
        "![B](https://s.org/b.png)", "## Next", "More."]


def test_a_linked_image_keeps_its_link_and_title():
    page = ('<p>Logo <a href="https://x.org/"><img src="https://x.org/l.png" alt="Logo" '
            'title="Home &quot;page&quot;"></a> here.</p><p>After</p>'
            '<p><a href="/go"><img src="/g.png" alt="Go"></a></p>')
    found = _extract(page)
    assert found.render("markdown", links=True, images=True).split("\n\n") == [
        'Logo [![Logo](https://x.org/l.png "Home \\"page\\"")](https://x.org/) here.',
        "After\\\n[![Go](https://s.org/g.png)](https://s.org/go)"]
    assert ('<p>Logo <a href="https://x.org/"><img src="https://x.org/l.png" alt="Logo" '
            'title="Home &quot;page&quot;"></a> here.</p>') in _html_body(found, links=True,
                                                                          images=True)
    # without links= the image is written without its link
    assert found.render("markdown", images=True).startswith(
        'Logo ![Logo](https://x.org/l.png "Home \\"page\\"") here.')


QUOTED = """<html><body><p>What the readers of the shop's review said about the camera.</p>
<blockquote><p>Nothing else comes close for the price, and the pictures are sharp.</p>
</blockquote><div><a href="/hub"><img src="/hub.jpg" alt="Home hub"></a></div>
<h2>The hub</h2><p>It is sold apart and links up to eight cameras in a house.</p></body></html>"""


def test_an_image_after_a_quote_is_not_written_in_it():
    # a product card after a blockquote was written as part of the quotation
    assert _extract(QUOTED).render("markdown", images=True, links=True).split("\n\n")[1:] == [
        "> Nothing else comes close for the price, and the pictures are sharp.",
        "[![Home hub](https://s.org/hub.jpg)](https://s.org/hub)", "## The hub",
        "It is sold apart and links up to eight cameras in a house."]


CODE = """<html><body><p>Build the project with the one command below, from its folder.</p>
<figure><img src="/make.png" alt="Make"></figure><pre>make all</pre>
<p><img src="/done.png" alt="Done"></p></body></html>"""


def test_an_image_beside_code_is_written_beside_it_and_one_after_the_last_block_is_kept():
    # the image after the page's last block, a code block, was lost
    assert _extract(CODE).render("markdown", images=True).split("\n\n") == [
        "Build the project with the one command below, from its folder.\\\n"
        "![Make](https://s.org/make.png)", "```\nmake all\n```", "![Done](https://s.org/done.png)"]


def test_a_code_block_holds_no_inline_span_of_an_image_beside_it():
    # the image after the last block, code, is the renderers' to place: Block.inline gave it
    # at an offset inside the code (counted in its text with the spaces collapsed)
    page = ("<html><body><p>Run the small program below and read what it prints.</p>"
            "<pre>def f(x):\n        return    x\n\n\nprint(f(1))</pre>"
            "<p><img src='/end.png' alt='End'></p></body></html>")
    code = next(block for block in _extract(page).blocks if block.preformatted)
    assert code.text.endswith("print(f(1))") and code.inline == ()
    assert _extract(page).render("markdown", images=True).endswith("![End](https://s.org/end.png)")


TWO_APART = """<html><body><h1>The harbour</h1><p>The long paragraph of the article about the
harbour and the ferry timetable for the coming summer season.</p><blockquote><p>Quoted: the
ferry runs every hour from May to September, the harbour master said.</p></blockquote>
<p><img src="/first.png" alt="first"></p>
<blockquote><p><img src="/second.png" alt="second"></p></blockquote>
<div><a href="/x">Share</a> <a href="/y">Tweet</a></div></body></html>"""


def test_a_logo_beside_the_text_is_not_written_and_a_lazy_placeholder_gives_way():
    # a sidebar's logo after the last code block was written as content; a blurred placeholder
    # before its noscript fallback was written beside the real image
    page = ("<html><body><p>Filter spam with the task below, which the worker runs.</p>"
            "<pre>return is_spam</pre><p class='logo'><a href='../index.html'><img "
            "class='logo' src='/celery.png' alt='Logo of Celery'></a></p><div><a href='/a'>"
            "Docs</a></div><p>More of the article after the code, which goes on here.</p>"
            "<figure><img src='/max/60/shot.png?q=20' alt='shot'><img class='lazy' width='849'>"
            "<noscript><img src='/max/700/shot.png' alt='shot'></noscript></figure>"
            "<p>And the rest of the article after the figure with its shot.</p></body></html>")
    found = _extract(page, keep=lambda block: block.text != "Docs")
    markdown = found.render("markdown", images=True)
    assert "celery.png" not in markdown
    assert "](https://s.org/max/700/shot.png)" in markdown and "/max/60/" not in markdown


def test_a_listings_logos_are_written_a_sites_logo_linked_home_is_not():
    # a directory's entries show each company's logo (class mover-profile__logo, linked to the
    # entry): they were left out with the site's own logo
    page = ("<html><body><h2>Movers in New York</h2><ul><li><a href='/movers/zip-to-zip'><img "
            "class='mover-profile__logo' src='/zip.jpg' alt='Zip'></a></li><li>Zip to Zip Moving"
            " is rated well by most of the people who hired it last year.</li></ul><p><a "
            "href='https://s.org/'><img id='siteLogo' src='/brand.svg' alt='Brand'></a></p>"
            "</body></html>")
    markdown = _extract(page).render("markdown", images=True, links=True)
    assert "](https://s.org/zip.jpg)" in markdown and "brand.svg" not in markdown
    # another site's home page is not this site's: a client wall's logos stay
    clients = ("<html><body><p>Our clients include many firms of the city.</p><ul><li><a "
               "href='https://acme.com/'><img class='client-logo' src='/acme.png' alt='Acme'></a>"
               "</li><li><a href='#top'><img class='logo' src='/us.png' alt='Us'>"
               "</a></li></ul><p>After.</p></body></html>")
    markdown = _extract(clients).render("markdown", images=True)
    assert "![Acme](https://s.org/acme.png)" in markdown
    assert "![Us](https://s.org/us.png)" in markdown


def test_a_logo_with_a_malformed_link_is_written_without_failing():
    # urlsplit raises on "http://[x": rendering a page with such a logo link failed
    page = ("<html><body><p>The article text goes on here for a good while, long enough.</p>"
            "<p><a href='http://[x'><img class='logo' src='/l.png' alt='L'></a></p>"
            "<p>More article text after the image, also long enough to be kept.</p></body></html>")
    assert "![L](https://s.org/l.png)" in _extract(page).render("markdown", images=True)


def test_images_of_one_gap_are_written_in_page_order():
    # the first, outside the quote, was written after the second, put in the quote before it
    found = _extract(TWO_APART, keep=lambda block: not block.text.startswith("Share"))
    markdown = found.render("markdown", images=True)
    assert markdown.index("![first]") < markdown.index("![second]")
    assert markdown.split("\n\n")[-2:] == ["![first](https://s.org/first.png)",
                                             "> ![second](https://s.org/second.png)"]


def test_an_image_whose_only_kept_neighbour_is_a_quote_is_written_outside_it():
    page = ("<html><body><p>Share this review with your friends on the networks.</p>"
            "<p><img src='/card.jpg' alt='Card'></p><blockquote><p>The best camera of the "
            "year, and by far the cheapest of them.</p></blockquote></body></html>")
    found = _extract(page, keep=lambda block: not block.text.startswith("Share"))
    assert found.render("markdown", images=True).split("\n\n") == [
        "![Card](https://s.org/card.jpg)",
        "> The best camera of the year, and by far the cheapest of them."]


def test_an_image_alone_in_an_item_with_a_heading_is_in_the_item_not_in_the_heading():
    page = ("<html><body><p>The three cars we liked the most this year.</p><ul>"
            "<li><a href='/a'><img src='/a.jpg' alt='A'></a><h3>First car</h3></li>"
            "<li><img src='/b.jpg' alt='B'><h3>Second car</h3></li></ul></body></html>")
    found = _extract(page)
    assert found.render("markdown", images=True, links=True).split("\n\n")[1:] == [
        "- [![A](https://s.org/a.jpg)](https://s.org/a)",
        "  ### First car\n- ![B](https://s.org/b.jpg)", "  ### Second car"]
    assert _html_body(found, images=True).endswith(
        '<li><img src="https://s.org/b.jpg" alt="B"><h3>Second car</h3></li></ul>')


def test_an_image_between_two_lists_is_written_between_them():
    # it stood in neither: it was written in the second list's first item
    page = ("<html><body><ul><li>Pack a camp towel to dry off</li></ul><div><img src='/t.jpg' "
            "alt='Towel'></div><ul><li>Bring water and snacks for the day</li></ul></body></html>")
    assert _extract(page).render("markdown", images=True).split("\n\n") == [
        "- Pack a camp towel to dry off", "![Towel](https://s.org/t.jpg)",
        "- Bring water and snacks for the day"]


def test_an_image_outside_a_data_table_is_not_written_in_its_cells():
    page = ("<html><body><p><img src='/logo.png' alt='Logo'></p><table><tr><th>Animal</th>"
            "<th>Legs</th></tr><tr><td>Cat</td><td>4</td></tr></table></body></html>")
    assert _extract(page).render("markdown", images=True).split("\n\n") == [
        "![Logo](https://s.org/logo.png)", "| Animal | Legs |\n| --- | --- |\n| Cat | 4 |"]


def test_an_image_alone_in_a_layout_table_s_cell_is_written_with_its_row_s_text():
    # a layout table's cells are laid out as the page's paragraphs: the image joins its row
    page = ("<html><body><table><tr><td><img src='/icon.gif' alt='Post'></td><td>Posted on "
            "Monday by the moderator of the forum, who wrote a long message.</td></tr>"
            "</table></body></html>")
    assert _extract(page).render("markdown", images=True) == (
        "![Post](https://s.org/icon.gif)\\\n"
        "Posted on Monday by the moderator of the forum, who wrote a long message.")


def test_an_image_with_no_kept_neighbour_is_not_written_and_a_noscript_copy_is_not_repeated():
    page = ("<html><body><div>Menu</div><p><img src='/ad.gif' alt='Ad'></p><div>Footer</div>"
            "<h2>Inside the lab</h2><figure><img data-src='/lab.jpg' src='/lazy.gif' alt='Lab'>"
            "<noscript><img src='/lab.jpg' alt='Lab'></noscript></figure>"
            "<h2>The street</h2><p>It is quiet at night.</p></body></html>")
    found = _extract(page, keep=lambda block: block.text not in ("Menu", "Footer"))
    assert found.render("markdown", images=True).split("\n\n") == [
        "## Inside the lab", "![Lab](https://s.org/lab.jpg)", "## The street",
        "It is quiet at night."]


@pytest.mark.parametrize("page", [REPORT, ANIMALS, FIGURE, QUOTED, CODE])
def test_the_python_walk_records_images_as_the_compiled_one(page, monkeypatch):
    def recorded(found: Result) -> list:  # (a code block's marks show in no span: compared too)
        return [(b.text, b.inline, b.marks and [(m[0], m[1], m[3]) for m in b.marks[1]])
                for b in found.blocks]

    compiled = recorded(_extract(page))
    monkeypatch.setattr(segment_blocks, "_walk", None)
    assert recorded(_extract(page)) == compiled
    alone = sum(op == segment_inline.ALONE for *_, marks in compiled for _, _, op in marks or [])
    assert alone >= (1 if page is QUOTED else 2)
    # a code block, which keeps no marks, holds those before it and, last, those after it
    if page is CODE:
        assert [b.marks and [m[0] for m in b.marks[1]] for b in _extract(page).blocks] == [
            None, [0, 1]]


@pytest.mark.parametrize("attrs, source", [
    ({"src": "/img/spacer.gif"}, ""), ({"src": "//:0"}, ""), ({"src": "https://:0"}, ""),
    ({"src": "/wiki/Special:CentralAutoLogin/start?type=1x1"}, ""),
    ({"src": "/photo.jpg", "width": "1", "height": "1"}, ""),
    ({"src": "/a.png", "height": "0px"}, ""),
    ({"src": "/lazy_placeholder.gif", "data-src": "/real.jpg"}, "/real.jpg"),
    ({"src": "/lazy_placeholder.gif"}, "/lazy_placeholder.gif"),  # (nothing better: kept)
    ({"src": "/clearance-sale.jpg", "width": "640"}, "/clearance-sale.jpg"),
])
def test_an_image_that_shows_nothing_has_no_source(attrs, source):
    # spacers, tracking pixels and host-less placeholders were written as images
    assert segment_inline.image_source(attrs) == source
