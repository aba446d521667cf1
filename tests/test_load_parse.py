"""Loading enforces the caps; parsing is browser-like and survives deep nesting."""

import pytest

import grist
from grist.errors import (
    ConfigError,
    EmptyInputError,
    ExtractionTimeout,
    LimitExceededError,
    NotHTMLError,
    UnknownFormatError,
    UnreadableInputError,
)
from grist.html.load import load_document, title_from_source, utf8_size
from grist.html.parse import check_structure, parse_document
from grist.limits import Budget, Limits


def test_title_is_read_without_a_dom():
    assert title_from_source("<html><head><TITLE> A &amp; B\n page </title>") == "A & B page"
    assert title_from_source("<p>no title</p>") == ""


def test_a_title_or_noscript_iframe_closed_by_a_misspelt_end_tag_still_ends_at_the_next_tag():
    # To the tokenizer "</titlevalue...>" and "</iframes>" are text, not end tags: the title (or
    # the iframe inside a noscript) would swallow the rest of the page. Taken from an L3S-GN1
    # page whose article was lost this way; such elements are closed at their next tag.
    page = ('<html><head><title id="t">Oil &amp; prices</titlevalue="true" --></head><body>'
            "<noscript><iframe src='/pixel'></iframes></noscript>"
            "<p>The president urged producers to pump more oil.</p></body></html>")
    doc = parse_document(load_document(page))
    assert doc.title == "Oil & prices"
    assert doc.dom.body.text(deep=True, separator=" ").split() == [
        "The", "president", "urged", "producers", "to", "pump", "more", "oil."]


def test_load_bytes_and_str_give_the_same_text():
    page = "<html><head><title>T</title></head><body><p>Zürich</p></body></html>"
    from_bytes = load_document(page.encode("utf-8"), url="http://x.test/")
    from_str = load_document(page)
    assert from_bytes.html == from_str.html
    assert from_bytes.encoding == "utf-8" and from_str.encoding is None
    assert from_bytes.title == "T" and from_bytes.url == "http://x.test/"


def test_size_cap_is_reported():
    with pytest.raises(LimitExceededError, match="max_bytes"):
        load_document(b"<p>" + b"x" * 2000, limits=Limits(max_bytes=1000))


def test_empty_and_nul_strings_are_refused():
    with pytest.raises(EmptyInputError):
        load_document("   ")
    with pytest.raises(NotHTMLError):
        load_document("\x00\x01\x00" * 100)


def test_broken_html_parses_like_a_browser():
    page = "<!DOCTYPE html><p>one<p>two<table><td>cell</table><b><i>x</b>y</i>"
    doc = parse_document(load_document(page))
    paragraphs = [node.text() for node in doc.dom.css("p")]
    assert paragraphs == ["one", "two"]  # an open <p> closes at the next <p> and at <table>
    assert doc.dom.css_first("td").text() == "cell"  # the missing <tr> and <tbody> are implied
    assert doc.dom.css_first("i").text() == "x"  # misnested </b> closes <i> (adoption agency)


def test_deep_nesting_beyond_libxml2_limit_keeps_all_text():
    depth = 3000
    page = "<body>" + "<div>" * depth + "deep text" + "</div>" * depth + "<p>after</p></body>"
    doc = parse_document(load_document(page))
    body_text = doc.dom.body.text()
    assert "deep text" in body_text and "after" in body_text


def test_depth_cap_is_reported_not_hidden():
    page = "<body>" + "<div>" * 500 + "x" + "</div>" * 500
    with pytest.raises(LimitExceededError, match="max_depth"):
        parse_document(load_document(page), Limits(max_depth=100))


def test_tag_cap_is_reported():
    with pytest.raises(LimitExceededError, match="max_tags"):
        parse_document(load_document("<p>x</p>" * 100), Limits(max_tags=50))


def test_budget_raises_after_deadline():
    budget = Budget(0.0)
    with pytest.raises(ExtractionTimeout, match="time budget"):
        budget.check("parsing")


def test_tag_count_is_the_number_of_tag_starts():
    assert check_structure("a < b, <<div>x</div><!-- c --><?pi?> <", Limits()) == 3


def test_a_str_is_capped_by_its_utf8_size():
    limits = Limits(max_bytes=3000)
    assert load_document("<p>" + "x" * 2990, limits=limits).html.startswith("<p>x")
    with pytest.raises(LimitExceededError, match="max_bytes"):
        load_document("<p>" + "\u20ac" * 1000, limits=limits)  # 1003 characters, 3003 bytes
    assert utf8_size("\u20ac" * 1000, 3000) == 3000 and utf8_size("x" * 10, 100) == 10
    assert utf8_size("\ud800" * 2, 7) == 6  # a lone surrogate counts as U+FFFD would


def test_lone_surrogates_in_a_str_become_replacement_characters():
    doc = load_document("<p>broken \ud800 surrogate \udfff here</p>")
    assert doc.html == "<p>broken \ufffd surrogate \ufffd here</p>"
    doc.html.encode("utf-8")


def test_a_str_of_control_characters_is_not_html():
    with pytest.raises(NotHTMLError):
        load_document("".join(chr(1 + i % 30) for i in range(2000)))


def test_the_compiled_checks_find_what_the_python_ones_find(monkeypatch):
    # grist.html._scan's control count and surrogate check against the regex and the encoder,
    # on str of every width (1, 2 and 4 bytes a character) and on slices cut anywhere
    import random

    import grist.html.load as load
    import grist.html.sniff as sniff

    rng = random.Random(5)
    alphabet = "ab <>\t\n\r\x0c\x00\x01\x08\x0b\x0e\x1f\x7f\x80\x9f\xa0é\u20ac\ud800\udfff\U0001f600"
    texts = ["", "plain", "\x7f", "caf\xe9\x85", "\u20ac\x9f", "\U0001f600\x01", "x\udc80"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60))) for _ in range(500)]
    wide = "\u20ac" * 9000  # the surrogate scan goes in blocks of 4096 characters: cross them
    texts += [wide, wide[:4095] + "\ud800" + wide[4096:], wide[:4096] + "\udfff",
              wide + "\udbff", "\U0001f600" * 5000, "\U0001f600" * 5000 + "\udc00"]
    compiled = [(sniff.controls(t, 0, len(t)), sniff.controls(t, 3, 40), load._has_surrogates(t))
                for t in texts]
    assert compiled[3] == (1, 1, False) and compiled[6] == (0, 0, True)
    monkeypatch.setattr(sniff, "_count_controls", None)  # as an install without a C compiler
    monkeypatch.setattr(load, "_find_surrogates", None)
    assert [(sniff.controls(t, 0, len(t)), sniff.controls(t, 3, 40), load._has_surrogates(t))
            for t in texts] == compiled


@pytest.mark.parametrize(("limits", "named"), [
    ({"max_bytes": 0}, "Limits.max_bytes"), ({"max_depth": "40"}, "Limits.max_depth"),
    ({"max_tags": True}, "Limits.max_tags"), ({"max_blocks": 2.5}, "Limits.max_blocks"),
    ({"time_budget": -1}, "Limits.time_budget"), ({"time_budget": float("nan")}, "Limits.time_budget"),
])
def test_limits_a_page_cannot_be_read_under_are_refused_when_made(limits, named) -> None:
    with pytest.raises(ConfigError, match=named):
        Limits(**limits)


def test_limits_take_any_number_type_but_no_zero_budget() -> None:
    import numpy as np

    assert Limits(max_bytes=np.int64(5)).max_bytes == 5
    assert Limits(time_budget=1e-9).time_budget == 1e-9 and Limits(time_budget=float("inf"))
    with pytest.raises(ConfigError, match="Limits.time_budget must be a number of seconds, more "
                                          "than 0, not 0"):
        Limits(time_budget=0)  # (every page would fail: the command line refuses it too)


def test_arguments_of_the_wrong_kind_say_what_was_expected() -> None:
    """A config of another method, limits as a dict, a URL that is not a string: each gave an
    AttributeError from deep inside (``'dict' object has no attribute 'time_budget'``)."""
    import grist
    from grist.methods.auto import AutoConfig
    from grist.methods.justext import JustextConfig

    with pytest.raises(ConfigError, match="method 'auto' needs its config as AutoConfig, not "
                                          "JustextConfig"):
        grist.Extractor(method="auto", config=JustextConfig())
    with pytest.raises(ConfigError, match="limits must be grist.Limits, not dict"):
        grist.Extractor(method="justext", limits={"time_budget": 5})
    with pytest.raises(TypeError, match="url must be a str or None, not int"):
        grist.extract("<p>Some text of the page.</p>", method="justext", url=123)
    with pytest.raises(TypeError, match=r"the page must be bytes or str \(or a grist.RawPage, "
                                        r"or a file's pathlib.Path\), not NoneType"):
        grist.extract(None)
    with pytest.raises(TypeError, match="http_charset must be a str or None, not int"):
        grist.Extractor(method="justext")(b"<p>Some text of the page.</p>", http_charset=5)
    for method in (None, 5):
        with pytest.raises(TypeError, match="a method is named by a str such as 'auto'"):
            grist.extract("<p>Some text of the page.</p>", method=method)
    for threshold in (2, -0.5, float("nan")):
        with pytest.raises(ConfigError, match="AutoConfig.threshold is a probability"):
            AutoConfig(threshold=threshold)
    assert grist.Extractor(method="auto/fallback").config == AutoConfig(fallback_words=10)
    for fmt in ("md", "pdf"):
        with pytest.raises(UnknownFormatError, match=f"unknown output format '{fmt}'; choose one "
                                                     "of: text, markdown"):
            grist.extract("<p>Some text of the page.</p>", method="justext", output=fmt)
    with pytest.raises(UnknownFormatError, match="unknown output format 'md'"):
        grist.extract("<p>Some text of the page.</p>", method="justext").render("md")
    with pytest.raises(TypeError, match="the output format is a name .*, not int"):
        grist.Extractor(method="justext", output=5)
    # a switch is True or False: "yes" or 2 would be read as True, "" or 0 as False
    with pytest.raises(ConfigError, match="Extractor.links must be True or False, not 'yes'"):
        grist.Extractor(method="justext", links="yes")
    with pytest.raises(ConfigError, match="Extractor.with_title must be True or False, not 2"):
        grist.extract("<p>Some text of the page.</p>", method="justext", with_title=2)
    with pytest.raises(ConfigError, match="RenderOptions.links must be True or False, not 'x'"):
        grist.extract("<p>Some text of the page.</p>", method="justext").to_markdown(links="x")


def test_a_page_given_as_a_path_is_read_and_one_given_as_its_name_is_a_clear_error(
        tmp_path, standin):
    import gzip

    page = "<html><body><p>" + "The harbour reopened on Monday after two years. " * 4 + "</p>"
    (tmp_path / "page.html").write_text(page)
    (tmp_path / "page.html.gz").write_bytes(gzip.compress(page.encode()))
    expected = grist.extract(page, method=standin).text
    assert expected.startswith("The harbour reopened")
    for name in ("page.html", "page.html.gz"):
        assert grist.extract(tmp_path / name, method=standin).text == expected
    with pytest.raises(UnreadableInputError, match="missing.html: No such file"):
        grist.extract(tmp_path / "missing.html")
    with pytest.raises(NotHTMLError, match=r"the name of a file, 'page.html': pass "
                                           r"pathlib.Path\('page.html'\) to read it"):
        grist.extract("page.html")
    with pytest.raises(NotHTMLError, match=r"the name of a file, 'pages/a.HTM.gz'"):
        grist.extract("pages/a.HTM.gz")
    with pytest.raises(NotHTMLError, match="the address 'https://example.org/a', not its HTML"):
        grist.extract(" https://example.org/a\n")
    # text, not a name; and whether a file exists is not looked at (the service must not say)
    for text in ("Hello", "see https://example.org/a", "page.html.", "/etc/passwd"):
        assert grist.extract(text, method=standin).blocks[0].text == text
