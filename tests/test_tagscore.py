"""The tagscore method (seed 001 end to end) on a small hand-made page."""

import pytest

import grist
from grist.errors import GristError
from grist.methods import get_method
from grist.methods.tagscore import TagscoreConfig

PARAGRAPH = ("The regional council confirmed on Monday that the old stone bridge, closed since "
             "spring, will reopen in May after repairs costing four million euros. ")

PAGE = f"""<html><head><title>Stone bridge to reopen in May</title></head><body>
<div id="top"><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a></div>
<div class="ad-slot"><a href="https://ad.doubleclick.net/x">Cheap flights, book now!</a></div>
<div id="main">
  <h1>Stone bridge to reopen in May</h1>
  <div class="body">
    <p>{PARAGRAPH}</p>
    <p>Engineers replaced two arches, and traffic will be limited to cars and bicycles.</p>
    <p>{PARAGRAPH}</p>
    <img src="/b.png" width="728" height="90">
  </div>
  <div class="tags">bridge repairs council traffic</div>
</div>
<ul class="share"><li><a href="https://facebook.com/s">Facebook</a></li>
<li><a href="https://twitter.com/s">Twitter</a></li></ul>
<div id="foot"><a href="/privacy">Privacy policy</a> <a href="/terms">Terms of use</a></div>
</body></html>"""


def test_tagscore_keeps_the_article_and_explains_each_drop():
    result = grist.extract(PAGE, url="https://news.example.com/bridge", method="tagscore")
    text = result.text
    assert "Engineers replaced two arches" in text
    assert text.count("four million euros") == 1  # the repeated paragraph is a near-duplicate
    for noise in ("Cheap flights", "Facebook", "Privacy policy", "Home"):
        assert noise not in text
    reasons = {b.text[:20]: b.reason for b in result.blocks if not b.is_content}
    assert reasons["Cheap flights, book "].startswith("removed by rule ad_providers")
    assert reasons["Facebook"].startswith("removed by rule social_links")
    assert any(r.startswith("near-duplicate of block") for r in reasons.values())
    assert all(b.label in ("content", "boilerplate") and b.reason for b in result.blocks)
    assert [b.index for b in result.blocks] == list(range(len(result.blocks)))


def test_tagscore_stage_switches_and_region_unit():
    method = get_method("tagscore")
    assert method.name == "tagscore"
    only_rules = grist.extract(PAGE, method="tagscore", config=TagscoreConfig(stages=("rules",)))
    assert only_rules.text.count("four million euros") == 2
    assert "Home" in only_rules.text and "Facebook" not in only_rules.text
    # Region units: the two equal paragraphs share one DIV, so region-level dedup keeps both.
    no_score = ("rules", "subtree", "punctuation", "dedup")
    regions = grist.extract(PAGE, method="tagscore", config=TagscoreConfig(unit="region", stages=no_score))
    assert regions.text.count("four million euros") == 2
    # Eq. 4 on a whole-article region: content words / distinct content words > 1, score < 0.
    scored = grist.extract(PAGE, method="tagscore", config=TagscoreConfig(unit="region"))
    assert min(b.score for b in scored.blocks if b.score is not None) < 0
    with pytest.raises(GristError, match="unknown tagscore stage"):
        grist.extract(PAGE, method="tagscore", config=TagscoreConfig(stages=("nope",)))
