"""URL keys (seed 003 §3): the paper's worked example, every Table 1 rule, normalisation."""

from __future__ import annotations

import hashlib

import pytest

from grist.errors import ConfigError
from grist.stream.hashing import block_hashes, normalise_block, title_hash
from grist.stream.urlkey import UrlRules, branch, bundled_rules, normalise_url, url_key

RESPONSE = "http://abcnews.go.com/kabc/story?section=news/local/los_angeles&id=8691010"
PAPER_CID = "090c0a49e55c9734bc2311e08ff006d4"


def test_step_2_adds_cid_and_sorts_the_query_as_the_paper_shows() -> None:
    origin, path, pairs = normalise_url(RESPONSE, [("_cid_", PAPER_CID)])
    query = "&".join(f"{n}={v}" for n, v in pairs)
    assert origin + path + "?" + query == (
        f"http://abcnews.go.com/kabc/story?_cid_={PAPER_CID}&id=8691010"
        "&section=news/local/los_angeles")


def test_step_3_keeps_what_the_abcnews_rule_names() -> None:
    assert url_key(RESPONSE, "Some title") == "http://abcnews.go.com/kabc/story?id=8691010"


@pytest.mark.parametrize(("url", "expected"), [
    ("http://www.fitchratings.com/creditdesk/press_releases/detail.cfm?print=1&pr_id=739",
     "http://www.fitchratings.com/creditdesk/press_releases/detail.cfm?pr_id=739"),
    ("http://bbs.chinadaily.com.cn/viewthread.php?tid=77&extra=page%3D1",
     "http://bbs.chinadaily.com.cn/viewthread.php?tid=77"),
    ("http://www.hurriyetdailynews.com/n.php?n=turkey-votes-2011&ref=rss",
     "http://www.hurriyetdailynews.com/n.php?n=turkey-votes-2011"),
    ("http://globeandmail.golfcanada.ca/news?src=rss&articleId=55",
     "http://globeandmail.golfcanada.ca/news?articleId=55"),
    ("http://podcast.ft.com/index.php?pid=12&utm_source=feed",
     "http://podcast.ft.com/index.php?pid=12"),
    # no rule applies: the whole query goes (the paper's own example URL)
    ("http://www.ft.com/world/2013/02/news.html?feed=3", "http://www.ft.com/world/2013/02/news.html"),
])
def test_table_1_rules_keep_their_parameter(url: str, expected: str) -> None:
    assert url_key(url, "A title") == expected


@pytest.mark.parametrize("url", [
    "http://www.aljazeera.com/?ref=rss",
    "http://www.dailymail.co.uk/home/index.html?ITO=1490",
    "http://www.foxnews.com/on-air/hannity/index.html?intcmp=x",
])
def test_pages_that_never_change_url_keep_the_title_hash(url: str) -> None:
    first, second = url_key(url, "Morning news"), url_key(url, "Evening news")
    assert first != second
    assert first.endswith("?_cid_=" + title_hash("Morning news"))
    assert "ref=" not in first and "ITO" not in first and "intcmp" not in first


def test_cid_is_a_128_bit_hash_of_the_title_md5_as_in_the_paper() -> None:
    assert len(title_hash("Title")) == 32
    assert title_hash("A  title\n", "md5") == hashlib.md5(b"A title").hexdigest()
    assert title_hash("A title", "xxh3") != title_hash("A title", "md5")


def test_tracking_parameters_and_encoding_variants_give_one_key() -> None:
    variants = [
        "https://News.Example.com:443/a/./b/../story%7e1.html?utm_source=rss&utm_medium=x#top",
        "https://news.example.com/a/story~1.html",
        "https://news.example.com/a/story%7E1.html?fbclid=abc",
    ]
    assert len({url_key(v, "T") for v in variants}) == 1


def test_reserved_escapes_are_kept_upper_cased() -> None:
    origin, path, _ = normalise_url("http://h.example/a%2fb%e2%82%ac")
    assert path == "/a%2Fb%E2%82%AC"


def test_a_user_rule_file_adds_rules_and_reports_bad_lines(tmp_path) -> None:
    rules = tmp_path / "rules.txt"
    rules.write_text("# mine\nshop\\.example/item  sku color\n")
    loaded = UrlRules.load(rules)
    assert url_key("http://shop.example/item?color=red&sku=9&session=1", None, loaded) == (
        "http://shop.example/item?color=red&sku=9")
    rules.write_text("ok\\.example  id\n(unclosed  id\n")
    with pytest.raises(ConfigError, match=r"rules.txt:2: bad regular expression"):
        UrlRules.load(rules)
    rules.write_text("lonely-regex\n")
    with pytest.raises(ConfigError, match=r":1: a rule is a regex followed by"):
        UrlRules.load(rules)


def test_the_bundled_file_holds_the_nine_table_1_rules() -> None:
    assert len(bundled_rules().rules) == 9


def test_non_http_urls_have_no_key() -> None:
    with pytest.raises(ValueError, match="not an http"):
        url_key("ftp://files.example/a", None)


@pytest.mark.parametrize(("url", "why"), [("http://[::1/a", "Invalid IPv6 URL"),
                                          ("https://news.example:99999/a", "Port out of range"),
                                          ("https://news.example:8o/a", "Port could not be cast")])
def test_a_malformed_url_says_what_is_wrong_with_it(url: str, why: str) -> None:
    with pytest.raises(ValueError, match=f"not a valid URL: .*{why}"):
        url_key(url, None)


def test_branch_is_domain_host_path_query() -> None:
    assert branch("http://news.bbc.co.uk/1/hi/world.stm?x=1") == (
        "bbc.co.uk", "news.bbc.co.uk", "1", "hi", "world.stm", "?x=1")
    assert branch("https://example.com/a/b") == ("example.com", "a", "b")


def test_block_normalisation_keeps_letters_only_lower_cased() -> None:
    assert normalise_block("Copyright © 2013, The BBC!") == "copyrightthebbc"
    assert normalise_block("Ünïcode Straße 12") == "ünïcodestraße"
    a, b, c = block_hashes(["Posted 3 hours ago", "posted 5 HOURS ago", "Another text"])
    assert a == b != c
    md5 = block_hashes(["Posted 3 hours ago"], "md5")[0]
    assert md5 == int.from_bytes(hashlib.md5(b"postedhoursago").digest()[:8], "big")
