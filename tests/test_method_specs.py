"""Method specs: ``name``, ``name/variant`` and, in the benchmark, ``@model`` per dataset."""

from __future__ import annotations

import pytest

import grist
from grist.errors import UnknownMethodError
from grist.evaluate.systems import make_system, model_path, system_available
from grist.methods import get_method, method_config
from grist.methods.justext import JustextConfig
from grist.methods.tagscore import TagscoreConfig

PAGE = (
    "<html><head><title>t</title></head><body>"
    '<embed src="movie.swf"><p>Plug-in fallback text that is long enough to stay.</p>'
    "<p>" + "A sentence of the article that goes on and on about the harbour. " * 6 + "</p>"
    "</body></html>"
)


def test_variant_configs_come_from_the_method():
    config = method_config("justext/no-headings")
    assert isinstance(config, JustextConfig) and config.rules.headings == "off"
    single = method_config("tagscore/rule-plugins")
    assert isinstance(single, TagscoreConfig)
    assert single.stages == ("rules",) and single.rules.rules == ("plugins",)
    assert get_method("tagscore/rules-only").name == "tagscore"


def test_unknown_variant_lists_the_known_ones():
    with pytest.raises(UnknownMethodError, match="no-headings"):
        method_config("justext/nonsense")


def test_extractor_uses_the_variant_config():
    only_rules = grist.Extractor(method="tagscore/rules-only")(PAGE)
    assert only_rules.method == "tagscore/rules-only"
    assert "harbour" in only_rules.text and "fallback" in only_rules.text
    explicit = grist.extract(PAGE, method="tagscore", config=method_config("tagscore/rules-only"))
    assert explicit.text == only_rules.text


def test_bench_system_reads_a_model_per_dataset(tmp_path):
    with pytest.raises(grist.errors.ModelError, match="cleaneval-x"):
        make_system(f"grist:tree@{tmp_path}/{{dataset}}.json", "cleaneval-x")
    assert system_available("grist:tree@whatever/{dataset}.json") is None
    assert system_available("grist:tagscore/rule-plugins") is None
    assert "unknown method" in system_available("grist:nonsense")


def test_bench_system_reads_the_fold_of_each_page(tmp_path):
    (tmp_path / "folds.json").write_text('{"news/a": 0, "news/b": 3}')
    spec = f"grist:auto@{tmp_path}/fold{{fold}}.json.gz"
    assert model_path(spec, "news", "b") == f"{tmp_path}/fold3.json.gz"
    assert model_path(f"grist:auto@{tmp_path}/{{dataset}}.json.gz", "news") == \
        f"{tmp_path}/news.json.gz"
    assert model_path("grist:auto", "news", "a") is None
    with pytest.raises(grist.errors.GristError, match="news/c is not in the fold table"):
        model_path(spec, "news", "c")
