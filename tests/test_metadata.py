"""Metadata: sources in order of trust, cleaned titles and names, dates, language, page type."""

from __future__ import annotations

import json

import pytest

import grist
from grist.document import Block, Document
from grist.metadata import extract_metadata
from grist.metadata.dates import date_in_text, date_in_url, parse_date
from grist.metadata.jsonld import parse_block
from grist.metadata.language import declared_language, page_language
from grist.metadata.names import byline_authors, clean_authors, clean_title
from grist.metadata.pagetype import page_type

ARTICLE = ("<p>The harbour reopened on Monday after two years of works, and the fishing boats "
           "came back one after another while the whole town watched from the quay.</p>") * 3


def meta(head: str, body: str = ARTICLE, url: str | None = "https://coast.example/a/b.html",
         method: str = "justext") -> grist.Metadata:
    page = f"<html lang=en><head>{head}</head><body>{body}</body></html>"
    return grist.extract(page, url=url, method=method).metadata


def test_json_ld_is_trusted_before_cards_and_meta() -> None:
    ld = {"@context": "https://schema.org", "@graph": [
        {"@type": "WebSite", "name": "Coast Times"},
        {"@type": "NewsArticle", "headline": "Harbour reopens", "datePublished": "2024-03-05",
         "dateModified": "2024-03-07T08:00:00Z", "author": {"@type": "Person", "name": "Ann Lee"},
         "image": {"@type": "ImageObject", "url": "/img/pier.jpg"}, "keywords": ["harbour"],
         "articleSection": "Local", "description": "The harbour is open again."}]}
    found = meta(f'<script type="application/ld+json">{json.dumps(ld)}</script>'
                 '<meta property="og:title" content="Other title | Coast Times">'
                 '<meta name="author" content="Bo Chen"><meta property="article:published_time" '
                 'content="2020-01-01"><link rel="canonical" href="/a/b">')
    assert found.title == "Harbour reopens" and found.authors == ("Ann Lee",)
    assert found.date == "2024-03-05" and found.date_modified == "2024-03-07T08:00:00+00:00"
    assert found.sitename == "Coast Times" and found.image == "https://coast.example/img/pier.jpg"
    assert found.tags == ("harbour",) and found.categories == ("Local",)
    assert found.description == "The harbour is open again."
    assert found.url == "https://coast.example/a/b" and found.page_type == "article"
    assert found.language == "en"


def test_cards_then_microdata_then_meta() -> None:
    found = meta('<meta property="og:title" content="Harbour reopens – Coast Times">'
                 '<meta property="og:site_name" content="Coast Times">'
                 '<meta name="author" content="By Bo Chen and Ann Lee">',
                 body='<span itemprop="datePublished" content="2023-11-02T09:30:00+01:00"></span>'
                      + ARTICLE)
    assert found.title == "Harbour reopens" and found.authors == ("Bo Chen", "Ann Lee")
    assert found.date == "2023-11-02T09:30:00+01:00"


def test_markup_and_bylines_are_the_last_sources() -> None:
    body = ('<div class="post-meta"><span class="author-name">Cleo Park</span>'
            '<time class="entry-date published" datetime="2022-05-04T10:00:00Z">May 4</time></div>'
            + ARTICLE)
    found = meta("<title>Harbour reopens | Coast Times</title>", body=body)
    assert found.authors == ("Cleo Park",) and found.date == "2022-05-04T10:00:00+00:00"
    assert found.title == "Harbour reopens"
    byline = meta("<title>x</title>", body="<p>By Dana Ruiz</p><p>Posted on March 5, 2021</p>"
                  + ARTICLE, url="https://coast.example/news/2021/03/05/x")
    assert byline.authors == ("Dana Ruiz",) and byline.date == "2021-03-05"


def test_a_url_date_a_day_from_a_utc_date_wins() -> None:
    found = meta('<meta property="article:published_time" content="2025-12-19T02:41:41+00:00">',
                 url="https://blog.example/2025/12/18/a-post/")
    assert found.date == "2025-12-18"


@pytest.mark.parametrize(("title", "site", "url", "clean"), [
    ("Harbour reopens | Coast Times", "Coast Times", None, "Harbour reopens"),
    ("Coast Times - Harbour reopens", None, "https://www.coasttimes.com/x", "Harbour reopens"),
    ("Harbour reopens — coasttimes.com", None, "https://coasttimes.com/", "Harbour reopens"),
    ("Part one: the harbour", "Coast Times", None, "Part one: the harbour"),
    ("A - B - Coast Times", "Coast Times", None, "A - B"),
    ("Coast Times", "Coast Times", None, "Coast Times"),
])
def test_clean_title(title: str, site: str | None, url: str | None, clean: str) -> None:
    assert clean_title(title, [site] if site else [], url) == clean


@pytest.mark.parametrize(("value", "names"), [
    ("By Ann Lee", ["Ann Lee"]),
    ("Ann Lee, Bo Chen & Cleo Park", ["Ann Lee", "Bo Chen", "Cleo Park"]),
    ("https://www.facebook.com/someone", []),
    ("@handle", ["handle"]),
    ("Written by: Ann Lee; ann@example.com", ["Ann Lee"]),
    # what bylines hold besides names: dates, reading times, labels, phrases
    ("Ann Lee; August 16", ["Ann Lee"]),
    ("Sunday; 1 February", []),
    ("Posted", []),
    ("Name *", []),
    ("8 min read", []),
    ("posted 6 years ago", []),
    ("Last updated: December 3", []),
    ("providing my email, I am consenting to receive emails", []),
    ("April Smith and June Carter", ["April Smith", "June Carter"]),  # months as first names
    ("sam colegrove", ["sam colegrove"]),
])
def test_clean_authors(value: str, names: list[str]) -> None:
    assert clean_authors(value) == names


@pytest.mark.parametrize(("value", "iso"), [
    ("2025-09-04T12:50:36+00:00", "2025-09-04T12:50:36+00:00"),
    ("2020-04-12T18:00:00-0700", "2020-04-12T18:00:00-07:00"),
    ("2025-09-04", "2025-09-04"),
    ("2025-09-04T00:00:00", "2025-09-04"),
    ("Thu, 04 Sep 2025 12:00:00 GMT", "2025-09-04T12:00:00+00:00"),
    ("1850-01-01", None),
    ("2999-01-01", None),
    ("yesterday", None),
])
def test_parse_date(value: str, iso: str | None) -> None:
    assert parse_date(value) == iso


def test_dates_in_urls_and_text() -> None:
    assert date_in_url("https://x.org/2024/05/12/story") == "2024-05-12"
    assert date_in_url("https://x.org/news/20240512-story") == "2024-05-12"
    assert date_in_url("https://x.org/2024/13/12/story") is None
    assert date_in_text("Published March 5th, 2024 by Ann") == "2024-03-05"
    assert date_in_text("Updated: 17.05.2021") == "2021-05-17"
    assert date_in_text("5 items in stock") is None


def test_json_ld_with_common_faults_is_read() -> None:
    assert parse_block('<!-- {"a": "line\nbreak", "b": [1, 2,],} -->') == {"a": "line break",
                                                                           "b": [1, 2]}
    assert parse_block("{not json") is None


def test_json_ld_nested_past_the_stack_is_no_error() -> None:
    deep = 5000
    assert parse_block("[" * deep + "]" * deep) is None  # deeper than json can read
    nested_name = '{"name":' * 900 + '"Ann Lee"' + "}" * 900  # json reads it; grist does not dig
    found = meta('<script type="application/ld+json">{"@type": "NewsArticle", "headline": '
                 + "[" * 950 + '"Deep"' + "]" * 950 + f', "author": {nested_name}}}</script>'
                 '<script type="application/ld+json">' + "[" * deep + "]" * deep + "</script>"
                 "<title>Harbour reopens</title>")
    assert found.title == "Harbour reopens" and found.authors == ()
    shallow = meta('<script type="application/ld+json">{"@type": "NewsArticle", "author": '
                   '[[{"name": {"name": "Ann Lee"}}]]}</script>')
    assert shallow.authors == ("Ann Lee",)


def test_language_detected_from_text_or_declared() -> None:
    french = "Le port a rouvert lundi après deux ans de travaux, et les bateaux sont revenus."
    assert page_language(french * 2, ["en"]) == "fr"  # the text wins over a template's lang
    assert page_language("OK", ["pt-BR"]) == "pt"  # too short to judge: the declared one
    assert declared_language(["", "en_GB"]) == "en" and declared_language(["??"]) is None


@pytest.mark.parametrize(("types", "og", "url", "kind"), [
    (["DiscussionForumPosting"], None, None, "forum"),
    (["Product"], None, None, "product"),
    ([], "product", None, "product"),
    ([], None, "https://docs.example.com/guide/install", "docs"),
    ([], None, "https://forum.example.com/t/some-topic/123", "forum"),
    ([], None, "https://shop.example.com/products/blue-mug", "product"),
    ([], None, "https://example.com/category/news/", "listing"),
    (["NewsArticle"], None, "https://example.com/docs/x", "article"),
])
def test_page_type(types: list[str], og: str | None, url: str | None, kind: str) -> None:
    assert page_type(types, og, url, []) == kind


def test_page_type_from_the_kept_blocks() -> None:
    teasers = [Block(text="Read this story now", anchor_words=4, label="content")] * 5
    prose = [Block(text="word " * 50, label="content")] * 3
    assert page_type([], None, None, teasers) == "listing"
    assert page_type([], None, None, prose) == "article"
    assert page_type([], None, None, []) == "other"


def test_metadata_needs_no_dom_from_the_method() -> None:
    page = ("<html><head><title>Harbour reopens | Coast Times</title><meta property="
            "og:site_name content='Coast Times'></head><body>" + ARTICLE + "</body></html>")
    result = grist.extract(page, method="lineblock")
    assert result.document.dom is None and result.metadata.title == "Harbour reopens"
    assert result.document.dom is None  # parsed for the metadata only, not kept on the page


def test_front_matter_in_text_and_markdown(standin: str) -> None:
    page = ('<html><head><title>Tea: a guide | Site</title><meta property="og:site_name" '
            'content="Site"></head><body><p>Steep the leaves for two minutes.</p></body></html>')
    result = grist.extract(page, url="https://site.example/tea", method=standin,
                           with_metadata=True)
    head, body = result.to_markdown().split("\n---\n\n")
    assert head.splitlines()[:2] == ["---", 'title: "Tea: a guide"']
    assert body == "Steep the leaves for two minutes."
    assert result.to_text(with_metadata=False) == "Steep the leaves for two minutes."


@pytest.mark.parametrize(("title", "heading", "clean"), [
    ("Night trains return | The Valley Courier", "Night trains return after a decade",
     "Night trains return"),
    ("The Valley Courier - Night trains return", "Night trains return", "Night trains return"),
    ("Night trains return | The Valley Courier", "Weather today",
     "Night trains return | The Valley Courier"),
    ("Night trains return | The Valley Courier", None, "Night trains return | The Valley Courier"),
    ("Review: the night train", "Review: the night train", "Review: the night train"),
])
def test_clean_title_from_the_heading_when_no_site_name_is_known(title: str, heading: str | None,
                                                                  clean: str) -> None:
    assert clean_title(title, [], None, heading) == clean


@pytest.mark.parametrize("url", ["http://[::1", "http://[zz]/a", "javascript:alert(1)"])
def test_a_malformed_page_url_is_no_url(url: str) -> None:
    # the fuzz suite's odd URLs reached urlsplit in the page type and site-name rules
    page = ("<html><head><title>T | Site</title></head><body><p>" + "word " * 40
            + "</p></body></html>")
    result = grist.extract(page, url=url, method="justext")
    assert result.metadata.url is None and result.metadata.page_type in ("article", "other")
    assert '"metadata"' in result.to_json()


def test_metadata_fields_hold_no_characters_a_browser_does_not_draw():
    page = ("<html><head><title>Die Verkehrs\u00adwende | Zei\u200btung</title>"
            "<meta property='og:title' content='Die Verkehrs&shy;wende'>"
            "<meta name='author' content='Anna Schmidt\u00ad'>"
            "<meta name='keywords' content='Stadt\u2060verkehr, Rad&shy;wege'></head><body><p>Ein "
            "langer Absatz \u00fcber die Verkehrswende in der Stadt, mit vielen W\u00f6rtern."
            "</p></body></html>")
    result = grist.extract(page, method="justext")
    found = result.metadata
    assert result.document.title == "Die Verkehrswende | Zeitung"  # (the title features read it)
    assert found.title == "Die Verkehrswende" and found.authors == ("Anna Schmidt",)
    assert found.tags == ("Stadtverkehr", "Radwege")


@pytest.mark.parametrize("byline", [
    "By Sam Reed · 12 January 2024",
    'By <a href="/people/sam-reed">Sam Reed</a> · 12 January 2024',
    "By Sam Reed • 3 min read",
    "Posted by Sam Reed on January 12, 2024",
    "By Sam Reed ‧ Jan 12th, 2024",
    "Sam Reed ∙ 12/01/2024",
    "By Sam Reed / Coast Times",
    "// posted by Sam Reed @ 12:30 AM",
    "12 January 2024 · By Sam Reed",
    "Written by Sam Reed Last updated on: January 12, 2024",
])
def test_a_byline_names_no_separator_date_or_filler(byline: str) -> None:
    found = meta("<title>Harbour reopens</title>", body=f'<p class="byline">{byline}</p>' + ARTICLE)
    assert found.authors == ("Sam Reed",)


@pytest.mark.parametrize(("value", "names"), [
    ("Tom Jicha | TV and Radio Writer", ["Tom Jicha"]),  # the first part that names anyone
    ("Ann Lee and Bo Chen · 5 min read", ["Ann Lee", "Bo Chen"]),
    ("Published on December 2nd, 2025 by Chen Zhao and Daryl Fairweather",
     ["Chen Zhao", "Daryl Fairweather"]),
    ("Sergio Martínez-Beltrán", ["Sergio Martínez-Beltrán"]),  # a hyphen joins a name
    ("Marcel·lí Pou", ["Marcel·lí Pou"]),  # and a middle dot spells Catalan
    ("Ludwig van Beethoven", ["Ludwig van Beethoven"]),
    ("https://www.example.com/people/sam", []),  # "/" in a URL is no separator
    ("N Offline Sam Reed wrote on last edited by #10", []),
    ("Registered: 2025-11-01", []),
    ("Download (Duration: 13:55 — 9.6MB)", []),
    ("Posted by timothy on Tuesday July 24, @12:06PM from the dept", ["timothy"]),
    ("1998; first posted by Dennis G. Jerz", ["Dennis G. Jerz"]),
    ("On 6/13/2018 by @lazharichir", ["lazharichir"]),
    ("07:50 PM | Permalink | Comments (3)", []),
    ("(148 links - verified 10/28/02)", []),
    ("Originally Posted 1/16/2008 6:55:25 PM", []),
    ("via scvalex 1 year ago | caches | 12 comments", []),  # a sentence, whatever follows
])
def test_byline_parts_and_tails(value: str, names: list[str]) -> None:
    assert clean_authors(value) == names


@pytest.mark.parametrize(("title", "sites", "url", "clean"), [
    # any name the page declares for itself, not only the first
    ("Storm hits coast | Coast Times", ["CT Reader", "Coast Times"], None, "Storm hits coast"),
    # words of the host only
    ("What do people love about Rust? | Rust Blog", [], "https://blog.rust-lang.org/2025/x",
     "What do people love about Rust?"),
    # a title's subject may be named like the site, and nothing that names the site stays
    ("Python 3.12 | What's new", [], "https://docs.python.org/3/whatsnew/3.12.html",
     "Python 3.12 | What's new"),
    ("Python 3.12 | What's new", ["Python"], None, "Python 3.12 | What's new"),
    ("Q&A - Part 2", [], "https://qa.example.com/q/2", "Q&A - Part 2"),
    ("Q&A - Part 2", [], None, "Q&A - Part 2"),
    ("Tech conferences 2026 / 2027", ["Tech conferences 2026 / 2027 | Confs"], None,
     "Tech conferences 2026 / 2027"),
    ("Keyboard K2 - AliExpress 7", [], "https://www.aliexpress.com/item/1.html", "Keyboard K2"),
])
def test_clean_title_with_every_site_signal(title: str, sites: list[str], url: str | None,
                                            clean: str) -> None:
    assert clean_title(title, sites, url) == clean


def test_a_title_is_cleaned_by_a_site_name_the_page_gives_after_another() -> None:
    # no og:site_name, a host that names no site, no heading: the publisher names the suffix
    found = meta('<title>Storm hits coast | Coast Times</title><meta name="application-name" '
                 'content="CT Reader"><meta name="dc.publisher" content="Coast Times">',
                 url="https://news.example.org/2024/storm")
    assert found.title == "Storm hits coast" and found.sitename == "CT Reader"


def test_a_handle_names_the_site_only_at_the_end_of_a_title() -> None:
    # a site's account often names its product, which a title may start with
    sites = ["Nimbus", "@skyview"]
    assert clean_title("Skyview — Make it your own", sites) == "Skyview — Make it your own"
    assert clean_title("Release notes | Skyview", sites) == "Release notes"
    found = meta('<meta property="og:title" content="Skyview — Make it your own">'
                 '<meta property="og:site_name" content="Nimbus">'
                 '<meta name="twitter:site" content="@skyview">', url="https://nimbus.example/")
    assert found.title == "Skyview — Make it your own" and found.sitename == "Nimbus"


def test_a_title_loses_a_trailing_credit_of_its_author() -> None:
    assert clean_title("Forbidden advice | by Ann Lee | Medium", ["Medium"]) == "Forbidden advice"
    assert clean_title("Forbidden advice - By Ann Lee") == "Forbidden advice"
    assert clean_title("Stand by me | Songs", ["Songs"]) == "Stand by me"
    # a subtitle that starts with "By" names no person: it stays
    for title in ("Holiday homes - By the Sea", "A guide | By the Numbers", "Paris | By Night"):
        assert clean_title(title) == title


@pytest.mark.parametrize("text", ["Partners in Prevention Not Destruction since 1993",
                                  "News - May 2, 2024", "Dublin 16 October 2003"])
def test_a_byline_block_that_does_not_say_by_names_no_lone_word(text: str) -> None:
    assert byline_authors(text) == []
    # what still names someone: a line that says "by", two words, a handle
    assert byline_authors("By Staff") == ["Staff"]
    assert byline_authors("Ann Lee in News") == ["Ann Lee"]
    assert byline_authors("@annlee • Jan 26, 2026") == ["annlee"]


def test_a_lone_word_in_a_byline_block_is_no_author() -> None:
    # a byline role given by the method to a heading-like line
    blocks = [Block("Partners in Prevention Not Destruction since 1993", role="byline"),
              Block(ARTICLE, role="body", label="content")]
    page = Document(html="<html><head><title>Paws</title></head><body></body></html>")
    assert extract_metadata(page, blocks).authors == ()


def test_an_aside_that_is_a_phrase_leaves_the_names_before_it() -> None:
    # its names were split out of it into fragments, and the page's byline (the site) won
    body = ('<p class="byline">Coast Times | 04.05.2015 | Par <span itemprop="author">Ann Lee '
            '(avec Bo Chen et Cleo Park)</span></p>' + ARTICLE)
    found = meta('<meta property="og:site_name" content="Coast Times">', body=body)
    assert found.authors == ("Ann Lee",)
    assert clean_authors("Paramita (Guha) Ghosh") == ["Paramita (Guha) Ghosh"]
    assert clean_authors("Jean-Luc Aufranc (CNXSoft)") == ["Jean-Luc Aufranc (CNXSoft)"]


def test_a_role_in_lower_case_after_a_name_is_not_a_second_author() -> None:
    # "By Mira Keller, transport correspondent." gave "Mira Keller; transport correspondent"
    assert clean_authors("By Mira Keller, transport correspondent. Published 3 March 2025") \
        == ["Mira Keller"]
    assert clean_authors("Ann Lee, staff writer, and Bo Chen") == ["Ann Lee", "Bo Chen"]
    assert clean_authors("By Mira Keller, correspondent") == ["Mira Keller"]
    assert clean_authors("bell hooks") == ["bell hooks"]  # a name alone in lower case stays
    assert clean_authors("Ann Lee and @bob") == ["Ann Lee", "bob"]  # and so does a handle
