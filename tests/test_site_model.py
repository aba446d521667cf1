"""``SiteModel``: the cross-page contract, what it learns, how extraction reads it, bad input."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from site_pages import article, listing, site_pages

import grist
from grist.document import RawPage
from grist.errors import ModelError
from grist.modelfile import write_model
from grist.sites.model import SiteConfig, SiteModel
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
                               "site_template": 1}
    story = next(t for t in by_text if "story 41" in t)
    assert by_text[story]["site_text_pages"] == 0 and by_text[story]["site_path_pages"] == 6
    elsewhere = grist.extract(RawPage(article(41), url="https://elsewhere.example/41"))
    assert not model.annotate(elsewhere.document, elsewhere.blocks).values.any()


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


def test_bad_model_files_are_model_errors(tmp_path: Path) -> None:
    SiteModel().fit(PAGES).save(tmp_path / "good.json.gz")
    assert len(SiteModel.load(tmp_path / "good.json.gz").clusters_) == 3
    write_model(tmp_path / "v2.json", "site", 2, {})
    write_model(tmp_path / "auto.json", "auto", 1, {})
    write_model(tmp_path / "broken.json", "site", 1, {"config": {}, "clusters": [{"id": 0}]})
    write_model(tmp_path / "alien.json", "site", 1, {"config": {"colour": "red"}})
    for name, message in [("v2.json", "version 2 site model"), ("auto.json", "not a site model"),
                          ("broken.json", "broken site model"), ("alien.json", "colour")]:
        with pytest.raises(ModelError, match=message):
            SiteModel.load(tmp_path / name)
    with pytest.raises(ModelError, match="cannot read model"):
        SiteModel.load(tmp_path / "missing.json")


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="unknown group_by"):
        SiteConfig(group_by="path")
    with pytest.raises(ValueError, match="unknown clustering method"):
        SiteModel(method="kmeans")
    literal = SiteConfig.literal()
    assert (literal.paths, literal.threshold, literal.reading) == ("nodes", "mode-equal",
                                                                    "literal")


def test_the_literal_reading_ends_in_one_cluster() -> None:
    model = SiteModel(SiteConfig.literal()).fit(PAGES)
    assert len(model.clusters_) == 1 and model.clusters_[0].size == len(PAGES)
