"""``SiteModel``: the cross-page contract, what it learns, how extraction reads it, bad input."""

from __future__ import annotations

import copy
import gzip
import json
import random
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from site_pages import article, listing, site_pages, story

import grist
from grist.crosspage import Verdict
from grist.document import BOILERPLATE, CONTENT, RawPage
from grist.errors import ConfigError, GristError, ModelError
from grist.methods.auto import AutoConfig
from grist.modelfile import write_model
from grist.sites.model import VERSION, SiteConfig, SiteModel
from grist.testing import check_model

PAGES = site_pages()


@pytest.mark.parametrize("options", [{}, {"method": "mdl"}, {"method": "hash"},
                                     {"paths": "nodes"}, {"decide": "none"}])
def test_the_site_model_keeps_the_cross_page_contract(options: dict) -> None:
    check_model(lambda: SiteModel(**options), PAGES[:6] + PAGES[10:])


def test_the_model_serves_methods_without_scores() -> None:
    check_model(SiteModel, PAGES, method="justext")


def _clusters(model: SiteModel) -> list[tuple[str, list[str]]]:
    return [(c.group, sorted(c.pages)) for c in model.clusters_]


def test_pages_are_clustered_per_site_and_template() -> None:
    model = SiteModel().fit(PAGES)
    assert _clusters(model) == [
        ("gazette.example", [f"gazette-{i}" for i in range(4)]),
        ("news.example", [f"listing-{i}" for i in range(4)]),
        ("news.example", [f"article-{i}" for i in range(6)]),
    ]
    articles = dict(model.clusters_[2].template())
    assert articles['html>body>div>ul>li>a "Home"'] == 6
    assert articles['html>body>div>p "Share this story with your friends and family today"'] == 6
    assert not any("ferry" in path for path in articles)
    assert model.n_pages_ == 14 and model.errors_ == []
    assert model.costs_["news.example"][1] < model.costs_["news.example"][0]


def test_fit_does_not_depend_on_the_order_of_the_pages(tmp_path: Path) -> None:
    shuffled = list(PAGES)
    random.Random(4).shuffle(shuffled)
    SiteModel().fit(PAGES).save(tmp_path / "a.json")
    SiteModel().fit(shuffled).save(tmp_path / "b.json")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def test_template_blocks_are_dropped_with_the_reason() -> None:
    model = SiteModel().fit(PAGES)
    page = RawPage(article(40), url="https://news.example/story/40")
    result = grist.extract(page, site=model)
    share = next(b for b in result.blocks if b.text.startswith("Share this story"))
    assert share.decided_by == "site" and not share.is_content
    assert share.reason.startswith("template path shared by 6 of 6 pages of cluster 2 (page: p=")
    assert "Share this story" in grist.extract(page).text
    assert "Share this story" not in result.text
    story = [b for b in result.blocks if "story 40" in b.text]
    assert story and all(b.is_content and b.decided_by == "page" for b in story)


def test_a_page_of_template_text_alone_is_not_emptied() -> None:
    model = SiteModel().fit(PAGES)
    # the article template with no story: what the page method keeps is all template text
    bare = article(43).split("<div class=main>")[0] + (
        "<div class=main><p class=share>Share this story with your friends and family today</p>"
        "</div></body></html>")
    page = RawPage(bare, url="https://news.example/story/43")
    alone = grist.extract(page)
    assert "Share this story" in alone.text
    result = grist.extract(page, site=model)
    assert result.text == alone.text
    assert all(b.decided_by == "page" for b in result.blocks)
    assert any("every block the page kept is template text of cluster 2" in w
               and "page-level result" in w for w in result.warnings), result.warnings


def test_annotate_gives_the_cluster_counts() -> None:
    model = SiteModel().fit(PAGES)
    result = grist.extract(RawPage(article(41), url="https://news.example/story/41"))
    columns = model.annotate(result.document, result.blocks)
    by_text = {b.text: columns.row(i) for i, b in enumerate(result.blocks)}
    assert by_text["Home"] == {"site_pages": 6, "site_path_pages": 6, "site_text_pages": 6,
                               "site_template": 1, "site_slot_pages": 6, "site_slot_share": 0}
    story = next(t for t in by_text if "story 41" in t)
    assert by_text[story]["site_text_pages"] == 0 and by_text[story]["site_path_pages"] == 6
    # the story's paragraphs sit where auto kept every block of the six articles
    assert by_text[story]["site_slot_pages"] == 6 and by_text[story]["site_slot_share"] == 1
    elsewhere = grist.extract(RawPage(article(41), url="https://elsewhere.example/41"))
    assert not model.annotate(elsewhere.document, elsewhere.blocks).values.any()


def _dropped(page: RawPage, text: str) -> tuple[grist.Result, list]:
    """The page extracted alone, with the block starting ``text`` labelled boilerplate as if
    the page method had missed it."""
    result = grist.extract(page)
    blocks = [replace(b, label=BOILERPLATE) if b.text.startswith(text) else b
              for b in result.blocks]
    return result, blocks


def _restored(model: SiteModel, result: grist.Result, blocks: list) -> list[str]:
    """The texts of the blocks the model's verdicts put back into the text."""
    verdicts = model.relabel(result.document, blocks)
    return [b.text for b, v in zip(blocks, verdicts, strict=True)
            if v is not None and v.label == CONTENT]


def test_a_dropped_block_in_a_content_slot_is_kept_with_the_reason() -> None:
    model = SiteModel().fit(PAGES)
    page = RawPage(article(44), url="https://news.example/story/44")
    first = story(44)[0]
    result, blocks = _dropped(page, first)
    verdicts = model.relabel(result.document, blocks)
    by_text = {b.text: v for b, v in zip(blocks, verdicts, strict=True)}
    # six paragraphs on each of the six articles, all kept by auto; the footer's div>p is
    # another place (its class), the share line is template text
    assert by_text[first] == Verdict(CONTENT, "content slot: the page method kept 36 of 36 "
                                     "blocks in this place on 6 other pages of cluster 2", "site")
    assert _restored(model, result, blocks) == [first]
    # a block the page method set aside by its role (a byline: in the text only on request)
    # stays out, whatever the place
    bylined = [replace(b, role="byline") if b.text == first else b for b in blocks]
    assert not _restored(model, result, bylined)
    # text another page of the cluster has in that place is not restored
    copied = RawPage(article(44).replace(first, story(3)[0]), url="https://news.example/s/44")
    result, blocks = _dropped(copied, story(3)[0])
    assert not _restored(model, result, blocks)


def test_paragraphs_the_page_method_missed_come_back_from_the_site() -> None:
    model = SiteModel().fit(PAGES)  # slots learnt with auto's own threshold
    strict = grist.Extractor(config=AutoConfig(threshold=0.999))  # keeps almost nothing
    page = RawPage(article(45), url="https://news.example/story/45")
    assert not any(p in strict(page).text for p in story(45))
    result = strict(page, site=model)
    added = [b for b in result.blocks if b.decided_by == "site" and b.is_content]
    assert [b.text for b in added] == story(45)
    assert all(b.reason.startswith("content slot: the page method kept 36 of 36 blocks in this "
                                   "place on 6 other pages of cluster 2 (page: p=") for b in added)
    assert "Share this story" not in result.text and "Home" not in result.text


def test_a_fitted_page_is_judged_by_the_other_pages_of_its_cluster() -> None:
    model = SiteModel().fit(PAGES)
    page = RawPage(article(2), url="https://www.news.example/story/2")  # one of the six
    result = grist.extract(page)
    evidence = model.evidence(result.document, result.blocks)
    at = next(i for i, b in enumerate(result.blocks) if b.text == story(2)[0])
    slots = evidence.slots
    assert slots is not None and evidence.text_elsewhere is not None
    assert (slots.pages[at], slots.blocks[at], slots.kept[at]) == (5, 30, 30)
    assert evidence.text_pages[at] == 1 and evidence.text_elsewhere[at] == 0
    # in a three-page cluster a member has two other pages: too few to vote
    small = SiteModel().fit(PAGES[:3])
    result, blocks = _dropped(PAGES[1], story(1)[0])
    assert small.evidence(result.document, blocks).slots.pages.max() == 2
    assert not _restored(small, result, blocks)
    unseen = RawPage(article(46), url="https://news.example/story/46")
    result, blocks = _dropped(unseen, story(46)[0])
    assert _restored(small, result, blocks) == [story(46)[0]]


def test_the_template_rule_alone_does_not_extract_while_fitting() -> None:
    model = SiteModel(decide="template").fit(PAGES)
    assert all(len(c.slots.hashes) == 0 for c in model.clusters_)
    result, blocks = _dropped(RawPage(article(44), url="https://news.example/story/44"),
                              story(44)[0])
    assert not _restored(model, result, blocks)
    # the slot method can be any extractor: justext learns the same places
    justext = SiteModel(extractor=grist.Extractor(method="justext")).fit(PAGES)
    assert len(justext.clusters_[2].slots.hashes) > 0
    # ... that reads the DOM: lineblock reads lines
    with pytest.raises(GristError, match="lineblock reads no DOM"):
        SiteModel(slot_method="lineblock").fit(PAGES)


def test_digits_are_part_of_a_text_unless_folded() -> None:
    page = RawPage(article(42), url="https://news.example/story/42")
    # the headline is the title role: asked for, it is in the text unless the site model drops it
    kept = grist.extract(page, site=SiteModel().fit(PAGES), with_title=True).text
    folded = grist.extract(page, site=SiteModel(fold_digits=True).fit(PAGES), with_title=True).text
    assert "Story number 42" in kept and "Story number 42" not in folded


def test_pages_the_model_does_not_know_get_page_level_results_with_a_note() -> None:
    model = SiteModel().fit(PAGES)
    for page, note in [
        (RawPage(article(3), url="https://unknown.example/a"),
         "no template of site unknown.example"),
        (RawPage(article(3)), "no template of pages without a URL"),
        (RawPage("<html><body><p>" + "Words of a page that looks like no other. " * 9
                 + "</p></body></html>", url="https://news.example/odd"),
         "no template of news.example matches this page"),
    ]:
        result = grist.extract(page, site=model)
        assert result.text == grist.extract(page).text
        assert any(note in w for w in result.warnings), result.warnings


def test_unreadable_pages_are_recorded_and_fit_goes_on() -> None:
    bad = [RawPage(b"", url="https://news.example/e", input="empty"),
           RawPage(b"%PDF-1.4 binary", url="https://news.example/p", input="pdf"),
           RawPage("<html><head><script>x()</script></head></html>", input="blank")]
    model = SiteModel().fit([*bad, *PAGES])
    assert [(e["input"], e["reason"]) for e in model.errors_] == [
        ("empty", "empty-input"), ("pdf", "not-html"), ("blank", "no-text")]
    assert model.n_pages_ == len(PAGES) and len(model.clusters_) == 3


def test_update_adds_a_page_to_its_cluster_or_a_new_one(tmp_path: Path) -> None:
    model = SiteModel().fit(PAGES)
    model.save(tmp_path / "model.json")
    loaded = SiteModel.load(tmp_path / "model.json")
    loaded.update(RawPage(listing(9), url="https://news.example/index/9", input="listing-9"))
    assert loaded.clusters_[1].pages[-1] == "listing-9" and loaded.clusters_[1].size == 5
    loaded.update(RawPage(article(9), url="https://new.example/9", input="new-9"))
    assert (loaded.clusters_[-1].group, loaded.clusters_[-1].pages) == ("new.example", ["new-9"])
    # the loaded model's clusters are its own: loading the same file again shows no update
    assert SiteModel.load(tmp_path / "model.json").clusters_[1].size == 4
    fresh = SiteModel().update(PAGES[0]).update(PAGES[1])
    assert [c.pages for c in fresh.clusters_] == [["article-0", "article-1"]]


def test_pages_added_one_by_one_find_the_same_templates() -> None:
    online = SiteModel()
    for page in PAGES:
        online.update(page)
    assert sorted(map(sorted, (c.pages for c in online.clusters_))) == sorted(
        map(sorted, (c.pages for c in SiteModel().fit(PAGES).clusters_)))


def test_update_keeps_counts_and_template_names_exact() -> None:
    incremental = SiteModel().fit(PAGES[:5])
    incremental.update(PAGES[5])
    batch = SiteModel().fit(PAGES[:6])
    a, b = incremental.clusters_[0], batch.clusters_[0]
    assert np.array_equal(a.hashes, b.hashes) and np.array_equal(a.support, b.support)
    assert a.template() == b.template()
    assert np.array_equal(a.digests, b.digests) and len(a.digests) == 6
    for name in ("hashes", "pages", "blocks", "kept"):
        assert np.array_equal(getattr(a.slots, name), getattr(b.slots, name)), name


def test_bad_model_files_are_model_errors(tmp_path: Path) -> None:
    fitted = SiteModel().fit(PAGES)
    fitted.save(tmp_path / "good.json.gz")
    loaded = SiteModel.load(tmp_path / "good.json.gz")
    assert len(loaded.clusters_) == 3
    for before, after in zip(fitted.clusters_, loaded.clusters_, strict=True):
        assert np.array_equal(before.digests, after.digests)
        assert np.array_equal(before.slots.kept, after.slots.kept) and before.slots.kept.any()
    write_model(tmp_path / "v1.json", "site", 1, {})  # before content slots
    write_model(tmp_path / "auto.json", "auto", 1, {})
    write_model(tmp_path / "broken.json", "site", VERSION, {"config": {}, "clusters": [{"id": 0}]})
    write_model(tmp_path / "alien.json", "site", VERSION, {"config": {"colour": "red"}})
    for name, message in [("v1.json", "version 1 site model"), ("auto.json", "not a site model"),
                          ("broken.json", "broken site model"), ("alien.json", "colour")]:
        with pytest.raises(ModelError, match=message):
            SiteModel.load(tmp_path / name)
    with pytest.raises(ModelError, match="cannot read model"):
        SiteModel.load(tmp_path / "missing.json")


@pytest.mark.parametrize(("setting", "value", "message"), [
    ("group_by", "path", "one of host, domain, none"),
    ("method", "kmeans", "one of mdl, hash, lsh"),
    ("slot_method", "nope", r"an extraction method \(justext, .*auto\)"),
    ("fold_digits", "yes", "True or False"),
    ("min_pages", "x", "a whole number of 1 or more"),
    ("min_pages", 0, "a whole number of 1 or more"),
    ("slot_pages", 2.5, "a whole number of 1 or more"),
    ("num_perm", True, "a whole number of 1 or more"),
    ("min_similarity", 5, "a number from 0 to 1"),
    ("min_similarity", "x", "a number from 0 to 1"),
    ("slot_share", None, "a number from 0 to 1"),
    ("lsh_threshold", 1, r"a number between 0 and 1 \(not 0 or 1\)"),
])
def test_settings_are_checked(setting: str, value: object, message: str) -> None:
    """``SiteConfig(min_pages="x")`` was accepted and made every extraction fail later."""
    with pytest.raises(ConfigError, match=rf"^SiteConfig\.{setting} must be {message}, "
                                          rf"not {re.escape(repr(value))}$"):
        SiteConfig(**{setting: value})
    with pytest.raises(ConfigError, match=rf"^SiteConfig\.{setting} must be"):
        SiteModel(**{setting: value})


def test_the_model_takes_a_site_config_and_known_settings_only() -> None:
    """``SiteModel(config=42)`` failed with ``replace() should be called on dataclass
    instances``."""
    with pytest.raises(ConfigError, match="^config must be a grist.sites.SiteConfig, not int$"):
        SiteModel(config=42)
    with pytest.raises(ConfigError, match="^unknown setting 'colour' \\(the settings are method, "):
        SiteModel(colour="red")
    assert SiteModel(SiteConfig(method="mdl"), min_pages=2).config == SiteConfig("mdl",
                                                                                 min_pages=2)


def test_settings_read_literally() -> None:
    literal = SiteConfig.literal()
    assert (literal.paths, literal.threshold, literal.reading) == ("nodes", "mode-equal",
                                                                    "literal")


def test_the_literal_reading_ends_in_one_cluster() -> None:
    model = SiteModel(SiteConfig.literal()).fit(PAGES)
    assert len(model.clusters_) == 1 and model.clusters_[0].size == len(PAGES)


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The payload of a fitted model's file, to break one field at a time."""
    path = tmp_path_factory.mktemp("saved") / "good.json.gz"
    SiteModel().fit(PAGES).save(path)
    return json.loads(gzip.decompress(path.read_bytes()))["payload"]


def _load_changed(saved: dict, tmp_path: Path, change: Callable[[dict], object]) -> str:
    """The message of the ModelError loading ``saved`` with ``change`` made gives ("" when it
    loads); the file is named M.json.gz."""
    payload = copy.deepcopy(saved)
    change(payload)
    write_model(tmp_path / "M.json.gz", "site", VERSION, payload)
    try:
        SiteModel.load(tmp_path / "M.json.gz")
    except ModelError as exc:
        assert str(exc).startswith(f"{tmp_path / 'M.json.gz'}: "), exc
        assert "Error" not in str(exc), exc
        return str(exc)[len(str(tmp_path / "M.json.gz: ")):]
    return ""


DELETE = object()


def _set(*keys: str | int, to: object) -> Callable[[dict], None]:
    """A change of the payload: the value at ``keys`` becomes ``to`` (deleted when ``DELETE``)."""
    def change(payload: dict) -> None:
        *inner, last = keys
        for key in inner:
            payload = payload[key]
        if to is DELETE:
            del payload[last]
        else:
            payload[last] = to
    return change


@pytest.mark.parametrize(("change", "message"), [
    (_set("config", "min_pages", to="three"),
     "SiteConfig.min_pages must be a whole number of 1 or more, not 'three'"),
    (_set("config", "min_similarity", to="x"),
     "SiteConfig.min_similarity must be a number from 0 to 1, not 'x'"),
    (_set("config", "slot_method", to="nope"),
     "SiteConfig.slot_method must be an extraction method (justext, lineblock, tagscore, tree, "
     "auto), not 'nope'"),
    (_set("config", "bogus", to=1), "unknown setting 'bogus' (the settings are method, "),
    (_set("config", to=[]), "broken site model: its 'config' field is a list, not an object"),
    (_set("clusters", to=DELETE), "broken site model: its 'clusters' field is missing"),
    (_set("clusters", to=None), "broken site model: its 'clusters' field is null, not a list"),
    (_set("clusters", 0, "hashes", to="!!!notbase64"),
     "broken site model: cluster 0's 'hashes' field is not valid base64"),
    (_set("clusters", 0, "support", to="AQAAAAEA"),
     "broken site model: cluster 0's 'support' field is cut off (6 bytes are not whole 4-byte "
     "numbers)"),
    (_set("clusters", 1, "group", to=5),
     "broken site model: cluster 1's 'group' field is a whole number, not text"),
    (_set("clusters", 1, "pages", to=["a", None]),
     "broken site model: cluster 1's 'pages' field holds null where text belongs"),
    (_set("clusters", 0, "slots", "kept", to=""),
     "broken site model: cluster 0's slot fields are of different lengths"),
    (_set("clusters", 0, "slots", "pages", to=DELETE),
     "broken site model: cluster 0's slots' 'pages' field is missing"),
    (_set("clusters", 2, "id", to=0), "broken site model: cluster 2 is numbered 0"),
    (_set("costs", "news.example", to="cheap"),
     "broken site model: its 'costs' field should give each site two numbers"),
    (_set("n_pages", to="14"), "broken site model: its 'n_pages' field is text, not a whole "
                               "number"),
    (_set("errors", to=[1]),
     "broken site model: its 'errors' field holds a whole number where an object belongs"),
])
def test_a_broken_model_file_says_what_is_wrong_in_words(saved: dict, tmp_path: Path,
                                                         change: Callable[[dict], None],
                                                         message: str) -> None:
    """Wrong settings loaded and failed every extraction (``'>=' not supported between ...``);
    broken fields said ``KeyError('clusters')`` or ``Error('Only base64 data is allowed')``."""
    assert _load_changed(saved, tmp_path, change).startswith(message)


def test_no_broken_field_leaks_python_internals(saved: dict, tmp_path: Path) -> None:
    """Every field of the payload, a cluster and its slots set to each wrong JSON value: the
    model loads or a ModelError names the file and says what is wrong (``_load_changed``)."""
    places = [(k,) for k in saved] + [("config", k) for k in saved["config"]] + [
        ("clusters", 0, k) for k in saved["clusters"][0]] + [
        ("clusters", 0, "slots", k) for k in saved["clusters"][0]["slots"]]
    for keys in places:
        for value in (DELETE, None, True, -1, 0.5, "x", [], {}, [None]):
            _load_changed(saved, tmp_path, _set(*keys, to=value))


def test_grist_extract_with_a_model_of_bad_settings_is_refused_at_load(
        saved: dict, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The reviewer's case: ``grist extract --site`` with ``min_pages="three"`` saved failed on
    every page with ``TypeError: '>=' not supported``; now reading the model fails, saying why."""
    from grist.cli import main

    _load_changed(saved, tmp_path, _set("config", "min_pages", to="three"))
    (tmp_path / "page.html").write_text(article(40), encoding="utf-8")
    code = main(["extract", "--site", str(tmp_path / "M.json.gz"), "--url",
                 "https://news.example/story/40", str(tmp_path / "page.html")])
    err = capsys.readouterr().err
    assert code != 0 and "TypeError" not in err
    assert "M.json.gz: SiteConfig.min_pages must be a whole number of 1 or more, not 'three'" in err


@pytest.mark.parametrize("decide", ["template+slots", "template"])
def test_a_page_that_is_not_text_is_skipped_into_errors(decide: str) -> None:
    """``fit(pages + [RawPage(123)])`` raised a TypeError and the whole fit was lost."""
    model = SiteModel(decide=decide).fit(
        [*PAGES, RawPage(123, input="number"), RawPage("<p>words</p>", url=5, input="url")])
    assert _clusters(model) == _clusters(SiteModel(decide=decide).fit(PAGES))
    model.update(RawPage(None, input="none"))
    assert model.n_pages_ == len(PAGES)
    assert model.errors_ == [
        {"input": "number", "error": "the page's content must be bytes or str, not int",
         "reason": "unreadable-input"},
        {"input": "url", "error": "the page's url must be a str or None, not int",
         "reason": "unreadable-input"},
        {"input": "none", "error": "the page's content must be bytes or str, not NoneType",
         "reason": "unreadable-input"}]


def test_a_page_given_as_its_html_says_how_to_make_a_page() -> None:
    """``SiteModel().fit(["<p>...</p>"])`` failed with ``'str' object has no attribute 'input'``."""
    from grist.stream.urltree import UrlTree

    for learn in (lambda: SiteModel().fit(["<p>a page</p>"]),
                  lambda: SiteModel().update(b"<p>a page</p>"),
                  lambda: UrlTree().update("<p>a page</p>")):
        with pytest.raises(TypeError, match=r"learns from grist.RawPage objects \(RawPage\(html, "
                                            r"url=\.\.\.\)\), not (str|bytes)"):
            learn()


def test_a_site_model_given_as_a_path_or_other_value_is_a_clear_error(tmp_path):
    with pytest.raises(grist.errors.ConfigError,
                       match=r"site must be a cross-page model \(grist.CrossPageModel\), not str "
                             r"\(a saved model is read with grist.SiteModel.load\('s.json.gz'\)\)"):
        grist.extract("<p>A page of words.</p>", site="s.json.gz")
    with pytest.raises(grist.errors.ConfigError, match="stream must be .*, not int$"):
        grist.Extractor(method="justext")("<p>A page of words.</p>", stream=3)
