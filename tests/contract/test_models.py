"""The cross-page protocol: models are read, never updated, by extraction; ``check_model``."""

from __future__ import annotations

import pytest
from standin_model import RepeatModel

import grist
from grist.crosspage import Verdict
from grist.document import RawPage
from grist.testing import ContractError, check_model

ARTICLES = [
    "<html><head><title>t</title></head><body><nav><a href=/>Home</a> <a href=/n>News</a></nav>"
    f"<p>{text} It is a story told in several sentences, with commas, and it goes on for a while"
    " so that every method sees a real paragraph here.</p>"
    "<div class=promo>Subscribe to our newsletter today</div></body></html>"
    for text in ("The ferry came in late.", "A new school opened.", "The mayor spoke at noon.")
]
PAGES = [RawPage(html, url=f"https://news.example/{i}", input=f"page{i}")
         for i, html in enumerate(ARTICLES)]


def test_the_standin_model_keeps_the_protocol() -> None:
    check_model(RepeatModel, PAGES, role="site")
    check_model(RepeatModel, PAGES, role="stream", method="justext")


def test_verdicts_override_the_method_and_keep_its_reason() -> None:
    model = RepeatModel().fit(PAGES[:2])
    result = grist.extract(PAGES[2], method="justext", site=model)
    promo = next(b for b in result.blocks if b.text.startswith("Subscribe"))
    assert promo.decided_by == "repeats" and not promo.is_content
    assert promo.reason.startswith("text on 2 pages of its host (page: ")
    story = next(b for b in result.blocks if b.text.startswith("The mayor"))
    assert story.decided_by == "page"
    without = grist.extract(PAGES[2], method="justext")
    assert all(b.decided_by == "page" for b in without.blocks)


def test_extraction_never_updates_the_model(tmp_path) -> None:
    model = RepeatModel().fit(PAGES[:1])
    model.save(tmp_path / "before")
    for _ in range(3):
        grist.extract(PAGES[1], site=model)
    model.save(tmp_path / "after")
    assert (tmp_path / "before").read_bytes() == (tmp_path / "after").read_bytes()


def test_a_model_that_updates_during_extraction_breaks_the_contract() -> None:
    class Learning(RepeatModel):
        def relabel(self, doc, blocks):
            self.counts_.setdefault("news.example", {}).update({"x": 1})
            return super().relabel(doc, blocks)

    with pytest.raises(ContractError, match="changed the model"):
        check_model(Learning, PAGES)


def test_a_verdict_must_be_content_or_boilerplate() -> None:
    with pytest.raises(ValueError, match="content"):
        Verdict("maybe", "unsure", "x")
