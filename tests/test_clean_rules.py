"""Seed 001 §3.2 primary-noise rules on small hand-made pages."""


import pytest

from grist.clean import ALL_RULES, RuleConfig, apply_rules
from grist.clean.domains import registrable_domain
from grist.clean.lists import bundled_list, load_list
from grist.clean.rules import class_tokens
from grist.document import Document
from grist.errors import GristError
from grist.html.parse import parse_document

ARTICLE = "<p>" + "The article explains, in plain words, why the bridge was closed. " * 8 + "</p>"


def _run(body: str, rules: tuple[str, ...], url: str | None = "https://news.example.co.uk/a", **kw):
    doc = Document(html=f"<html><body>{body}{ARTICLE}</body></html>", url=url)
    parse_document(doc)
    log = apply_rules(doc, RuleConfig(rules=rules, **kw))
    return doc, log


def _text(doc: Document) -> str:
    return doc.dom.body.text(separator=" ")


def test_all_rules_registered_and_unknown_rule_rejected():
    assert ALL_RULES == ("background", "foreign_images", "ad_providers", "ad_keywords",
                         "iab_banners", "plugins", "social_links", "legal_links")
    with pytest.raises(GristError, match="unknown noise rule"):
        _run("", ("nope",))


def test_background_small_removed_large_stripped():
    body = ('<div background="x.gif">Promo</div>'
            '<div style="color:red;background-image:url(bg.png)">Deal of the day</div>'
            f'<div id="main" background="paper.gif">{ARTICLE}</div>')
    doc, log = _run(body, ("background",))
    assert [r.reason for r in log] == ["background attribute", "background-image style"]
    assert "Promo" not in _text(doc) and "Deal" not in _text(doc)
    main = doc.dom.css_first("#main")
    assert main is not None and "background" not in main.attributes


def test_foreign_images_use_registrable_domain():
    body = ('<img src="https://img.example.co.uk/own.jpg"><img src="/local.png">'
            '<img src="//cdn.adfarm.com/x.gif">')
    doc, log = _run(body, ("foreign_images",))
    assert [r.reason for r in log] == ["image from cdn.adfarm.com"]
    assert len(doc.dom.css("img")) == 2
    assert registrable_domain("news.bbc.co.uk", {"co.uk"}) == "bbc.co.uk"
    assert registrable_domain("a.b.example.com", {"co.uk"}) == "example.com"
    _, log = _run(body, ("foreign_images",), url=None)
    assert log == []  # without the page URL there is nothing to compare with


def test_ad_providers_and_user_list(tmp_path):
    body = ('<a href="https://ad.doubleclick.net/click?x=1">Win</a>'
            '<script src="https://myads.test/tag.js"></script>'
            '<a href="https://example.org/story">Story</a>')
    doc, log = _run(body, ("ad_providers",))
    assert [r.reason for r in log] == ["ad provider doubleclick.net"]
    extra = tmp_path / "ads.txt"
    extra.write_text("# my own\nmyads.test\n")
    doc, log = _run(body, ("ad_providers",), extra_lists={"ad_providers": (str(extra),)})
    assert [r.reason for r in log] == ["ad provider doubleclick.net", "ad provider myads.test"]
    assert "Story" in _text(doc)
    assert "myads.test" in load_list("ad_providers", [extra])
    with pytest.raises(GristError, match="cannot read"):
        load_list("ad_providers", [tmp_path / "missing.txt"])


def test_ad_keywords_are_tokens_not_substrings():
    assert class_tokens("topAdBox ad_slot-2") == ["top", "ad", "box", "ad", "slot", "2"]
    body = ('<div class="header">Site name</div><div id="download">Get the app</div>'
            '<div class="ad-wrapper">Buy now</div><ins class="adsbygoogle">x</ins>'
            '<div class="bottomgooglead">Sponsored stuff</div><div class="sidebar"><img src="/ads/b.gif"></div>')
    doc, log = _run(body, ("ad_keywords",))
    text = _text(doc)
    assert "Site name" in text and "Get the app" in text
    assert "Buy now" not in text and "Sponsored stuff" not in text
    assert {r.tag for r in log} == {"div", "ins", "img"}


def test_ad_keyword_guard_spares_the_article_wrapper():
    doc = Document(html=f'<body><div class="ads-enabled">{ARTICLE}</div></body>')
    parse_document(doc)
    assert apply_rules(doc, RuleConfig(rules=("ad_keywords",))) == []
    assert "bridge" in _text(doc)


def test_iab_banner_sizes():
    assert "728x90" in bundled_list("iab_sizes") and len(bundled_list("iab_sizes")) >= 25
    body = '<img src="/a.png" width="468" height="60"><img src="/b.png" width="400" height="300">'
    doc, log = _run(body, ("iab_banners",))
    assert [r.reason for r in log] == ["IAB banner size 468x60"]
    assert len(doc.dom.css("img")) == 1


def test_plugins():
    body = ('<embed src="f.swf"><object data="x"></object><video src="v.mp4"></video>'
            '<audio src="a.mp3"></audio><iframe src="https://v.example/e"></iframe><iframe></iframe>')
    doc, log = _run(body, ("plugins",))
    assert sorted(r.tag for r in log) == ["audio", "embed", "iframe", "object", "video"]


def test_social_and_legal_link_blocks():
    body = ('<ul class="share"><li><a href="https://facebook.com/x">Facebook</a></li>'
            '<li><a href="https://twitter.com/x">Tweet</a></li></ul>'
            '<div class="foot"><a href="/privacy">Privacy Policy</a> | <a href="/terms">Terms of Use</a>'
            ' | <a href="/contact">Contact us</a></div>'
            '<p>© 2020 Example Media. All rights reserved.</p>'
            '<p>Follow the council on <a href="https://twitter.com/c">Twitter</a> for updates on the'
            ' reopening of the bridge, which is expected next spring after repairs.</p>'
            '<ul><li><a href="/n1">New terms agreed for the Brexit deal after long talks</a></li></ul>')
    doc, log = _run(body, ("social_links", "legal_links"))
    text = _text(doc)
    assert "Facebook" not in text and "Privacy" not in text and "All rights reserved" not in text
    assert "Follow the council" in text and "Brexit" in text
    assert [(r.rule, r.tag) for r in log] == [
        ("social_links", "ul"), ("legal_links", "div"), ("legal_links", "p")]


def test_user_list_follows_its_file_even_when_rewritten_at_once(tmp_path):
    extra = tmp_path / "legal.txt"
    extra.write_text("first-word\n")
    assert "first-word" in load_list("legal", [extra])
    extra.write_text("other-word\n")  # same size, same second: only the content tells
    entries = load_list("legal", [extra])
    assert "other-word" in entries and "first-word" not in entries
    extra.write_bytes(b"\xff\xfe not text")
    with pytest.raises(GristError, match="not UTF-8"):
        load_list("legal", [extra])
