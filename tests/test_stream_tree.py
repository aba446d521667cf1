"""The URL Tree (seed 003 §4, §5.4, §6) on small hand-made streams."""

from __future__ import annotations

import numpy as np
import pytest

import grist
from grist.document import RawPage
from grist.errors import ConfigError
from grist.stream import UrlTree
from grist.stream.hashing import block_hashes
from grist.stream.heuristics import heuristic
from grist.stream.tree import DAY, DocRecord, Forest, Retention
from grist.testing import check_model

NAV = ["Home", "World", "Sport"]


def doc(key: str, texts: list[str], date: float | None = None) -> DocRecord:
    return DocRecord(key, key, np.unique(block_hashes(texts)), date)


def judge(forest: Forest, key: str, texts: list[str], name: str = "strict"):
    return forest.select(key, block_hashes(texts), heuristic(name), virtual=key not in forest)


def test_strict_selects_the_first_node_from_the_leaf_with_five_documents() -> None:
    forest = Forest()
    for i in range(5):
        forest.insert(doc(f"http://ex.com/news/{i}.html", [*NAV, f"story {chr(97 + i)}"]))
    for i in range(2):
        forest.insert(doc(f"http://ex.com/blog/{i}.html", [*NAV, "Blog roll", f"post {chr(97 + i)}"]))
    news = judge(forest, "http://ex.com/news/new.html", [*NAV, "story z"])
    assert news.path == ("ex.com", "news") and news.support == 6  # the page itself counted
    assert news.boilerplate.tolist() == [True, True, True, False]
    # /blog/ has 3 documents with this one: the walk goes up to the domain (9 with this one)
    blog = judge(forest, "http://ex.com/blog/new.html", [*NAV, "Blog roll", "post z"])
    assert blog.path == ("ex.com",) and blog.support == 8
    assert blog.counts.tolist() == [8, 8, 8, 3, 1]
    assert blog.boilerplate.tolist() == [True, True, True, True, False]


def test_a_block_seen_once_before_is_already_boilerplate_with_c_max_1() -> None:
    forest = Forest()
    for i in range(5):
        forest.insert(doc(f"http://ex.com/a/{i}", [f"unique {chr(97 + i)}"] + (["quote"] if i == 0 else [])))
    selection = judge(forest, "http://ex.com/a/9", ["quote", "fresh text"])
    assert selection.counts.tolist() == [2, 1] and selection.boilerplate.tolist() == [True, False]


def test_strict_support_n_only_takes_nodes_above_n() -> None:
    forest = Forest()
    for i in range(8):
        forest.insert(doc(f"http://ex.com/a/b/{i}", [*NAV, f"text {chr(97 + i)}"]))
    assert judge(forest, "http://ex.com/a/b/x", NAV, "strict").path == ("ex.com", "a", "b")
    assert judge(forest, "http://ex.com/a/b/x", NAV, "strict-support-100").path == ("ex.com",)
    assert judge(forest, "http://ex.com/a/b/x", NAV, "strict-support-8").path == ("ex.com", "a", "b")


def test_strict_at_domain_always_uses_the_domain_node() -> None:
    forest = Forest()
    for i in range(6):
        forest.insert(doc(f"http://www.ex.com/a/{i}", ["A only", f"t {chr(97 + i)}"]))
        forest.insert(doc(f"http://blog.ex.com/b/{i}", ["B only", f"u {chr(97 + i)}"]))
    strict = judge(forest, "http://www.ex.com/a/new", ["A only"])
    at_domain = judge(forest, "http://www.ex.com/a/new", ["A only"], "strict-at-domain")
    assert strict.path == ("ex.com", "www.ex.com", "a") and strict.support == 7
    assert at_domain.path == ("ex.com",) and at_domain.support == 13


def test_relaxed_at_domain_raises_c_max_to_2_above_n_documents() -> None:
    forest = Forest()
    for i in range(6):
        extra = ["twice"] if i < 1 else ["thrice"] if i < 2 else []
        forest.insert(doc(f"http://ex.com/{i}", [f"x {chr(97 + i)}", *extra]))
    texts = ["twice", "thrice"]
    relaxed = judge(forest, "http://ex.com/new", texts, "relaxed-at-domain-5")
    assert relaxed.c_max == 2 and relaxed.boilerplate.tolist() == [False, False]
    forest.insert(doc("http://ex.com/7", ["thrice", "y"]))
    relaxed = judge(forest, "http://ex.com/new", texts, "relaxed-at-domain-5")
    assert relaxed.counts.tolist() == [2, 3] and relaxed.boilerplate.tolist() == [False, True]
    assert judge(forest, "http://ex.com/new", texts, "relaxed-at-domain-100").c_max == 1


def test_unknown_heuristic_names_the_valid_ones() -> None:
    with pytest.raises(ConfigError, match="strict-support-N"):
        heuristic("loose")


def test_retention_caps_documents_per_domain_and_takes_their_counts_back() -> None:
    forest = Forest(Retention(max_docs=10, max_age_days=14, keep_recent=3))
    gone = []
    for i in range(12):
        gone += forest.insert(doc(f"http://ex.com/s/{i}", ["shared", f"own {chr(97 + i)}"]))
    assert gone == ["http://ex.com/s/0", "http://ex.com/s/1"] and len(forest) == 10
    root = forest.domains["ex.com"].root
    assert root.docs == 10
    assert root.counts.get(block_hashes(["shared", "own a", "own c"])).tolist() == [10, 0, 1]


def test_retention_drops_old_documents_but_keeps_the_most_recent() -> None:
    forest = Forest(Retention(max_docs=100, max_age_days=14, keep_recent=3))
    for day in (0, 1, 2, 3, 4):  # five old documents
        forest.insert(doc(f"http://ex.com/old/{day}", ["x", f"d {chr(97 + day)}"], day * DAY))
    assert len(forest) == 5
    gone = forest.insert(doc("http://ex.com/new/1", ["x", "fresh"], 30 * DAY))
    assert gone == [f"http://ex.com/old/{d}" for d in range(3)]  # 3 most recent stay
    assert "old" in forest.domains["ex.com"].root.children
    forest.insert(doc("http://ex.com/new/2", ["x", "fresher"], 31 * DAY))
    forest.insert(doc("http://ex.com/new/3", ["x", "freshest"], 31 * DAY))
    assert [r.key for r in forest.records()] == [f"http://ex.com/new/{i}" for i in (1, 2, 3)]
    assert "old" not in forest.domains["ex.com"].root.children  # empty nodes are removed


def test_removing_every_document_leaves_no_trace() -> None:
    forest = Forest()
    for i in range(4):
        forest.insert(doc(f"http://ex.com/a/{i}", ["t", str(i)]))
    for i in range(4):
        forest.remove(f"http://ex.com/a/{i}")
    assert forest.domains == {} and forest.by_url == {}


def page(i: int, host: str = "www.daily.example", template: str = "Daily") -> RawPage:
    nav = f"<ul><li><a href=/>{template} home</a></li><li><a href=/w>World news</a></li></ul>"
    body = (f"<p>Story {chr(65 + i)} tells of the ferry {chr(75 + i)} and its late arrival in "
            "the harbour town, where people waited in the rain for hours.</p>")
    return RawPage(f"<html><head><title>T{i}</title></head><body>{nav}<h1>Headline "
                   f"{chr(65 + i)}{chr(80 + i)}</h1>{body}<div>{template} copyright, all rights "
                   "reserved</div></body></html>", url=f"https://{host}/news/s{i}.html",
                   input=f"p{i}", date=f"2020-01-{1 + i:02d}")


def test_auto_decides_until_the_tree_has_seen_n_min_pages() -> None:
    tree = UrlTree().fit([page(i) for i in range(3)])
    early = grist.extract(page(3), stream=tree)  # 4 pages with this one: page model only
    assert all(b.decided_by == "page" for b in early.blocks)
    tree.update(page(3))
    later = grist.extract(page(4), stream=tree)
    by_text = {b.text: b for b in later.blocks}
    assert by_text["Daily copyright, all rights reserved"].decided_by == "tree"
    assert not by_text["Daily copyright, all rights reserved"].is_content
    assert by_text["Daily copyright, all rights reserved"].reason.startswith(
        "tree: on 5 of 5 pages under www.daily.example/news/ (> 1) (page: ")
    assert by_text[later.blocks[-2].text].decided_by == "page"  # the story


def test_verdicts_are_the_same_before_and_after_insertion() -> None:
    tree = UrlTree(combine=False).fit([page(i) for i in range(5)])
    before = [(b.label, b.reason) for b in grist.extract(page(5), stream=tree).blocks]
    tree.update(page(5))
    after = [(b.label, b.reason) for b in grist.extract(page(5), stream=tree).blocks]
    assert before == after


def test_tree_alone_judges_every_block_from_the_first_page() -> None:
    tree = UrlTree(combine=False).fit([page(0)])
    result = grist.extract(page(1), stream=tree)
    assert all(b.decided_by == "tree" for b in result.blocks)
    assert [b.is_content for b in result.blocks] == [False, False, True, True, False]


def test_a_template_change_is_learned_again() -> None:
    tree = UrlTree(combine=False).fit([page(i) for i in range(6)])
    changed = grist.extract(page(6, template="Herald"), stream=tree)
    footer = next(b for b in changed.blocks if "copyright" in b.text)
    assert footer.is_content  # a new template block: seen on this page only
    tree.fit([page(i) for i in range(6)] + [page(i, template="Herald") for i in range(6, 8)])
    footer = next(b for b in grist.extract(page(8, template="Herald"), stream=tree).blocks
                  if "copyright" in b.text)
    assert not footer.is_content and "on 3 of 9 pages" in footer.reason


def test_save_and_load_keep_documents_and_verdicts(tmp_path) -> None:
    tree = UrlTree("relaxed-at-domain-2", hash="md5", retention=Retention(50, 7, 5))
    tree.fit([page(i) for i in range(6)])
    tree.save(tmp_path / "tree.json.gz")
    loaded = UrlTree.load(tmp_path / "tree.json.gz")
    assert loaded.heuristic == "relaxed-at-domain-2" and loaded.hash == "md5"
    assert loaded.retention == Retention(50, 7, 5) and len(loaded.forest_) == 6
    assert grist.extract(page(7), stream=loaded).to_json() == grist.extract(
        page(7), stream=tree).to_json()


def test_url_tree_keeps_the_cross_page_contract() -> None:
    pages = [page(i) for i in range(7)]
    check_model(UrlTree, pages, role="stream")
    check_model(lambda: UrlTree("strict-at-domain", combine=False), pages, role="stream",
                method="justext")


def test_a_story_headline_listed_on_every_other_page_stays_with_the_page_model() -> None:
    heads = [f"The {w} bridge reopens after the long winter repairs" for w in
             ("old", "new", "red", "stone", "iron", "west", "east")]

    def story(i: int) -> RawPage:
        recent = "".join(f"<li><a href=/s{j}>{h}</a></li>" for j, h in enumerate(heads) if j != i)
        return RawPage(f"<html><head><title>{heads[i]} - Daily</title></head><body><h1>{heads[i]}"
                       f"</h1><p>Story {chr(65 + i)}: the town council met on the {i}th and the "
                       "crowd outside the hall waited for the vote until late.</p><ul>"
                       f"{recent}</ul></body></html>", url=f"https://d.example/s{i}")

    tree = UrlTree().fit([story(i) for i in range(6)])
    blocks = grist.extract(story(6), stream=tree).blocks
    own = next(b for b in blocks if b.tag == "h1")
    assert own.text == heads[6] and own.decided_by == "page"
    listed = next(b for b in blocks if b.text == heads[0])
    assert listed.decided_by == "tree" and not listed.is_content


def test_the_first_page_of_a_domain_is_left_to_the_page_model_before_and_after_insertion() -> None:
    tree = UrlTree(combine=False).fit([])
    before = grist.extract(page(0), stream=tree)
    tree.update(page(0))
    after = grist.extract(page(0), stream=tree)
    assert all(b.decided_by == "page" for b in before.blocks + after.blocks)
    assert before.to_json() == after.to_json()
