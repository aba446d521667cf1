"""The whole stream pipeline against a feed-and-page server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest
from stream_server import Site, site  # noqa: F401 - the fixture

from grist.cli import main
from grist.io.fetch import AsyncFetcher, FetchConfig
from grist.stream.pipeline import Processor, StreamConfig
from grist.stream.runner import Runner
from grist.stream.sink import open_sink
from grist.stream.store import SqliteStore

FAST = ["--host-delay", "0", "--host-concurrency", "4", "--timeout", "1", "--retries", "0",
        "--quiet"]


def run_once(tmp_path: Path, feeds: list[str], *extra: str) -> tuple[list[dict], list[dict]]:
    (tmp_path / "feeds.txt").write_text("\n".join(feeds) + "\n")
    status = main(["stream", "--feeds", str(tmp_path / "feeds.txt"), "--state",
                   str(tmp_path / "state.db"), "--out", str(tmp_path / "out.jsonl"), "--once",
                   *FAST, *extra])
    assert status in (0, 1)  # 1: a feed or an item of this run got an error record
    records = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    return [r for r in records if "error" not in r], [r for r in records if "error" in r]


def counters(tmp_path: Path) -> dict[str, int]:
    with sqlite3.connect(tmp_path / "state.db") as db:
        return dict(db.execute("SELECT name, value FROM counters"))


def test_same_article_through_two_feeds_a_redirect_and_tracking_is_processed_once(
        site: Site, tmp_path: Path) -> None:
    b = site.base
    site.items["main.xml"] = [(f"Story {n}", f"{b}/articles/{n}.html", f"about {n}")
                              for n in range(1, 4)]
    site.items["topics.atom"] = [  # other metadata for the same pages
        ("Story one, in topics", f"{b}/articles/1.html?utm_source=rss&utm_medium=feed", "x"),
        ("Story 2", f"{b}/go/2", "via an aggregator"), ("Story 4", f"{b}/go/4", "new")]
    pages, errors = run_once(tmp_path, [f"{b}/feeds/main.xml", f"{b}/feeds/topics.atom"])
    assert errors == []
    assert sorted(p["url_key"] for p in pages) == [f"{b}/articles/{n}.html" for n in range(1, 5)]
    four = next(p for p in pages if p["url"].endswith("/4.html"))
    assert four["request_url"] == f"{b}/go/4" and four["url_key"] == f"{b}/articles/4.html"
    # story 1 with tracking parameters: same key; story 2 via the redirect: same response URL
    # and title -> same key; both dropped as duplicates
    assert counters(tmp_path) == {"feeds_polled": 2, "pages_fetched": 6, "duplicates": 2,
                                  "extracted": 4, "errors": 0}
    assert "number 3" in next(p for p in pages if p["url"].endswith("/3.html"))["text"]


def test_a_rerun_polls_conditionally_and_takes_only_new_items(site: Site, tmp_path: Path) -> None:
    b = site.base
    site.items["main.xml"] = [(f"Story {n}", f"{b}/articles/{n}.html", "t") for n in (1, 2)]
    run_once(tmp_path, [f"{b}/feeds/main.xml"])
    run_once(tmp_path, [f"{b}/feeds/main.xml"])
    assert site.not_modified == 1  # the second poll sent If-None-Match and got 304
    site.items["main.xml"].append(("Story 3", f"{b}/articles/3.html", "t"))
    pages, _ = run_once(tmp_path, [f"{b}/feeds/main.xml"])
    assert [p["url"].rsplit("/", 1)[1] for p in pages] == ["1.html", "2.html", "3.html"]
    assert counters(tmp_path)["extracted"] == 3 and counters(tmp_path)["feeds_polled"] == 3
    article_requests = [r for r in site.requests if r[1].startswith("/articles/")]
    assert len(article_requests) == 3  # the item history fetched nothing twice


def test_bad_input_gets_error_records_and_the_stream_goes_on(site: Site, tmp_path: Path) -> None:
    b = site.base
    site.items["found.xml"] = [
        ("Good", f"{b}/articles/7.html", "ok"), ("Hangs", f"{b}/hang.html", ""),
        ("Garbage", f"{b}/garbage.html", ""), ("Broken", f"{b}/error500.html", ""),
        ("Too big", f"{b}/big.html", ""), ("Loop", f"{b}/loop", ""),
        ("Notes", f"{b}/notes.txt", ""), ("Private", f"{b}/private/a.html", "")]
    pages, errors = run_once(tmp_path, [f"{b}/home.html", f"{b}/feeds/notxml.xml"],
                             "--max-bytes", "100000", "--attempts", "1")
    assert [p["url"] for p in pages] == [f"{b}/articles/7.html"]
    by_source = {e["input"]: e for e in errors}
    assert by_source[f"{b}/feeds/notxml.xml"]["reason"] == "feed-error"
    assert "not an RSS or Atom feed" in by_source[f"{b}/feeds/notxml.xml"]["error"]
    expected = {"/hang.html": "timed out", "/garbage.html": "looks like gzip-compressed data",
                "/error500.html": "HTTP 500", "/big.html": "the limit is 100000",
                "/loop": "too many redirects", "/notes.txt": "text/plain, not an HTML page",
                "/private/a.html": "robots.txt disallows"}
    for path, message in expected.items():
        assert message in by_source[b + path]["error"], (path, by_source[b + path])
    assert counters(tmp_path)["errors"] == len(expected) + 1


def test_a_failure_that_may_pass_is_retried_before_its_error_record(
        site: Site, tmp_path: Path) -> None:
    b = site.base
    site.items["main.xml"] = [("Broken", f"{b}/error500.html", "")]
    feeds = [f"{b}/feeds/main.xml"]
    _, errors = run_once(tmp_path, feeds, "--attempts", "3", "--retry-delay", "1h")
    assert errors == []  # first try failed: waiting an hour for the next, no record yet
    with sqlite3.connect(tmp_path / "state.db") as db:
        assert db.execute("SELECT status, attempts FROM items").fetchall() == [("retry", 1)]
    (tmp_path / "state.db").unlink()
    _, errors = run_once(tmp_path, feeds, "--attempts", "3", "--retry-delay", "0")
    assert [e["error"] for e in errors] == ["HTTP 500 Internal Server Error (after 3 tries)"]
    assert sum(r[1] == "/error500.html" for r in site.requests) == 4


def test_the_tree_takes_over_and_relearns_after_a_template_change(
        site: Site, tmp_path: Path) -> None:
    b = site.base
    site.items["main.xml"] = [(f"Story {n}", f"{b}/articles/{n}.html", "t") for n in range(1, 13)]
    site.templates.update({n: "B" for n in range(9, 13)})
    pages, _ = run_once(tmp_path, [f"{b}/feeds/main.xml"], "--tree-alone",
                        "--host-concurrency", "1")  # one fetch at a time: feed order
    nav = {p["url"].rsplit("/", 1)[1]: next(bl for bl in p["blocks"] if bl["index"] == 0)
           for p in pages}
    assert nav["1.html"]["decided_by"] == "page"  # a domain the tree has never seen
    assert nav["2.html"]["decided_by"] == "tree" and "on 2 of 2 pages" in nav["2.html"]["reason"]
    assert nav["8.html"]["label"] == "boilerplate" and nav["8.html"]["decided_by"] == "tree"
    assert nav["9.html"]["text"] == "Front page" and nav["9.html"]["label"] == "content"
    assert "on 1 of 9 pages" in nav["9.html"]["reason"]
    assert nav["10.html"]["label"] == "boilerplate"  # the new template, seen twice
    story = next(p for p in pages if p["url"].endswith("/12.html"))
    assert "number 12" in story["text"] and "Front page" not in story["text"]


def test_auto_with_the_tree_keeps_the_story_and_names_the_verdict_source(
        site: Site, tmp_path: Path) -> None:
    b = site.base
    site.items["main.xml"] = [(f"Story {n}", f"{b}/articles/{n}.html", "t") for n in range(1, 9)]
    pages, _ = run_once(tmp_path, [f"{b}/feeds/main.xml"], "--host-concurrency", "1")
    first, last = pages[0], pages[-1]
    assert all(bl["decided_by"] == "page" for bl in first["blocks"])
    sources = {bl["text"]: bl["decided_by"] for bl in last["blocks"]}
    assert sources["Subscribe to our newsletter for A readers"] == "tree"
    assert last["tree_blocks"] == sum(s == "tree" for s in sources.values()) > 0
    assert "number 8" in last["text"] and "All rights reserved" not in last["text"]


def test_feed_list_and_state_errors_are_clear(site: Site, tmp_path: Path) -> None:
    feeds = tmp_path / "feeds.txt"
    feeds.write_text("http://x.example/feed.xml every=soon\n")
    args = ["stream", "--feeds", str(feeds), "--state", str(tmp_path / "s.db"), "--out",
            str(tmp_path / "o.jsonl"), "--once", "--quiet"]
    assert main(args) == 1
    (tmp_path / "s.db").write_bytes(b"this is not a database" * 100)
    feeds.write_text(f"{site.base}/feeds/main.xml\n")
    assert main(args) == 1
    assert (tmp_path / "s.db").read_bytes() == b"this is not a database" * 100  # untouched


@pytest.mark.parametrize("bad", ["every=soon", "color=red"])
def test_feed_list_lines_name_the_problem(tmp_path: Path, bad: str, capsys) -> None:
    feeds = tmp_path / "feeds.txt"
    feeds.write_text(f"# my feeds\nhttp://x.example/feed.xml {bad}\n")
    assert main(["stream", "--feeds", str(feeds), "--state", str(tmp_path / "s.db"), "--out",
                 str(tmp_path / "o.jsonl"), "--once", "--quiet"]) == 1
    assert "feeds.txt:2:" in capsys.readouterr().err


def test_json_feeds_are_read_and_hostile_feeds_and_links_get_error_records(
        site: Site, tmp_path: Path) -> None:
    b = site.base
    site.items["news.json"] = [("Good", f"{b}/articles/31.html", "ok"),
                               ("Open bracket", "http://[::1/a.html", ""),
                               ("Port", "http://127.0.0.1:99999/a.html", ""),
                               ("Redirected to a bad port", f"{b}/badport", "")]
    pages, errors = run_once(tmp_path, [f"{b}/feeds/news.json", f"{b}/feeds/hostile.xml"],
                             "--attempts", "1")
    assert [p["url"] for p in pages] == [f"{b}/articles/31.html"]
    by_source = {e["input"]: e for e in errors}
    assert by_source[f"{b}/feeds/hostile.xml"]["reason"] == "feed-error"
    assert "not a readable feed" in by_source[f"{b}/feeds/hostile.xml"]["error"]
    for link, why in (("http://[::1/a.html", "Invalid IPv6 URL"),
                      ("http://127.0.0.1:99999/a.html", "Port out of range"),
                      (f"{b}/badport", "Port out of range")):
        error = by_source[link]["error"]
        assert error.startswith("not a valid http(s) URL (") and why in error, error
    assert counters(tmp_path)["errors"] == 4 and counters(tmp_path)["extracted"] == 1


def serve(monkeypatch: pytest.MonkeyPatch, site: Site, feeds: dict[str, str]) -> None:
    """Serve these feed documents as written, by name, in place of the site's generated ones."""
    documents = {name: text.replace("BASE", site.base).encode() for name, text in feeds.items()}
    monkeypatch.setattr(site, "rss", documents.__getitem__)
    monkeypatch.setattr(site, "json_feed", documents.__getitem__)


def rss(*items: str) -> str:
    return f'<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>{"".join(items)}' \
        "</channel></rss>"


def feed_statuses(tmp_path: Path) -> dict[str, str]:
    with sqlite3.connect(tmp_path / "state.db") as db:
        return {url.rsplit("/", 1)[1]: status
                for url, status in db.execute("SELECT url, status FROM feeds")}


def test_items_that_differ_only_by_their_link_or_id_are_distinct_items(
        site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Items were told apart by title, description and date alone: three bare links, two
    undated items of one title and two JSON items with only an id and a url were one item each,
    the others lost without a count or a record."""
    serve(monkeypatch, site, {
        "links.xml": rss(*(f"<item><link>BASE/articles/{n}.html</link></item>" for n in (1, 2, 3)),
                         "<item><link>BASE/articles/1.html</link></item>"),  # listed twice
        "daily.xml": rss(*(f"<item><title>Daily briefing</title><link>BASE/articles/{n}.html"
                           "</link></item>" for n in (4, 5))),
        "items.json": json.dumps({"version": "https://jsonfeed.org/version/1.1", "items": [
            {"id": str(n), "url": f"BASE/articles/{n}.html", "content_html": "<p>x</p>"}
            for n in (6, 7)]})})
    feeds = [f"{site.base}/feeds/{name}" for name in ("links.xml", "daily.xml", "items.json")]
    pages, errors = run_once(tmp_path, feeds)
    assert errors == [] and sorted(p["url"].rsplit("/", 1)[1] for p in pages) == [
        f"{n}.html" for n in range(1, 8)]
    # eight items listed: seven extracted, the repeated one counted as a duplicate
    assert counters(tmp_path) == {"feeds_polled": 3, "pages_fetched": 7, "duplicates": 1,
                                  "extracted": 7, "errors": 0}
    run_once(tmp_path, feeds)  # the next poll sees the same items: nothing new, nothing counted
    assert counters(tmp_path) == {"feeds_polled": 6, "pages_fetched": 7, "duplicates": 1,
                                  "extracted": 7, "errors": 0}
    assert sum(r[1].startswith("/articles/") for r in site.requests) == 7


def test_an_item_that_gives_no_page_gets_one_error_record(
        site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An item without a link, or a JSON Feed item that is not an object, was dropped silently."""
    serve(monkeypatch, site, {
        "main.xml": rss("<item><title>Kept</title><link>BASE/articles/1.html</link></item>",
                        "<item><title>Lost item</title><description>no link</description></item>"),
        "news.json": json.dumps({"items": [{"id": "a", "title": "No url"}, "junk",
                                           {"url": "BASE/articles/2.html"}]})})
    feeds = [f"{site.base}/feeds/main.xml", f"{site.base}/feeds/news.json"]
    pages, errors = run_once(tmp_path, feeds)
    # (the two feeds are fetched at once: either may come first)
    assert sorted(p["url"].rsplit("/", 1)[1] for p in pages) == ["1.html", "2.html"]
    assert sorted((e["input"].rsplit("/", 1)[1], e["item"], e["stage"], e["reason"], e["error"])
                  for e in errors) == [
        ("main.xml", 2, "feed", "feed-error",
         'item 2 ("Lost item") has no link: there is no page to fetch'),
        ("news.json", 1, "feed", "feed-error",
         'item 1 ("No url") has no link: there is no page to fetch'),
        ("news.json", 2, "feed", "feed-error",
         "item 2 (no title) is not a JSON object: there is no page to fetch")]
    assert counters(tmp_path)["errors"] == 3 and counters(tmp_path)["extracted"] == 2
    (tmp_path / "out.jsonl").unlink()  # (rotated away)
    _, errors = run_once(tmp_path, feeds)  # the JSON feed (no ETag) is read again: items known
    assert errors == [] and counters(tmp_path)["errors"] == 3


def test_a_malformed_feed_keeps_the_items_it_gives_and_is_an_error_when_it_gives_none(
        site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A feed that is not well-formed XML, from which no item could be read, was "ok: 0 items"."""
    serve(monkeypatch, site, {
        "broken.xml": "<rss><channel><title>x</title><item><title>A<link>BASE/articles/4.html"
                      "</link></item",
        "cut.xml": rss()[:-len("</channel></rss>")]
                   + "<item><title>Kept</title><link>BASE/articles/5.html</link></item><item>",
        "empty.xml": rss()})
    pages, errors = run_once(tmp_path, [f"{site.base}/feeds/{name}"
                                        for name in ("broken.xml", "cut.xml", "empty.xml")])
    assert [p["url"].rsplit("/", 1)[1] for p in pages] == ["5.html"]
    by_feed = {e["input"].rsplit("/", 1)[1]: e for e in errors}
    error, lost = by_feed.pop("broken.xml"), by_feed.pop("cut.xml")
    assert by_feed == {} and error["reason"] == "feed-error" and lost["item"] == 2
    assert error["error"].startswith("a malformed feed from which no item with a link could be "
                                     "read: unclosed token at line ")
    assert lost["error"].startswith("item 2 (no title) has no link (the feed is malformed: ")
    statuses = feed_statuses(tmp_path)
    assert statuses["broken.xml"] == f"error: {error['error']}"
    assert statuses["cut.xml"].startswith("ok: 2 items, read from a malformed feed (")
    assert statuses["empty.xml"] == "ok: the feed is empty (0 items)"
    assert counters(tmp_path) == {"feeds_polled": 3, "pages_fetched": 1, "duplicates": 0,
                                  "extracted": 1, "errors": 2}  # the feed, cut.xml's last item


def one_round(tmp_path: Path, feeds: list[str]) -> int:
    """``grist stream --once`` through the runner itself: the exit status it gives."""
    (tmp_path / "feeds.txt").write_text("\n".join(feeds) + "\n")
    store = SqliteStore(tmp_path / "state.db", hash_name="xxh3")
    sink = open_sink(tmp_path / "out.jsonl", store.sink_offset)
    processor = Processor(store, sink, StreamConfig(
        fetch=FetchConfig(timeout=1, host_delay=0, retries=0), max_attempts=1))

    async def run() -> None:
        async with AsyncFetcher(processor.config.fetch) as fetcher:
            runner = Runner(store, processor, tmp_path / "feeds.txt", fetcher, lambda: None)
            await runner.run(True, asyncio.Event())

    try:
        asyncio.run(run())
    finally:
        sink.close()
        store.close()
    return processor.exit_status()


def test_the_exit_status_says_whether_a_feed_or_item_of_this_run_failed(
        site: Site, tmp_path: Path) -> None:
    """``--once`` exited 0 when every feed and item had failed: cron never heard of it."""
    b = site.base
    site.items["main.xml"] = [("Story 1", f"{b}/articles/1.html", "t")]
    feeds = [f"{b}/feeds/main.xml"]
    assert one_round(tmp_path, feeds) == 0
    site.items["main.xml"].append(("Broken", f"{b}/error500.html", ""))
    assert one_round(tmp_path, feeds) == 1  # the item's error record
    assert one_round(tmp_path, feeds) == 0  # nothing failed in this run (its 304)
    assert one_round(tmp_path, [*feeds, f"{b}/feeds/notxml.xml"]) == 1  # the feed's record
