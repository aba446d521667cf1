"""The contract every registered method keeps (ARCHITECTURE.md), checked on every one of them.

Any bytes in, a result or a grist error out; every block labelled with a reason; the same input
gives the same output, whatever ran before; deep nesting handled; the time budget respected.
Methods are discovered with ``grist.available_methods()``, so new ones are checked without edits.
"""

from __future__ import annotations

import json
import random
import time

import pytest
from standin_method import NAME as STANDIN

import grist
from grist.document import BOILERPLATE, CONTENT
from grist.errors import (
    EmptyInputError,
    ExtractionTimeout,
    GristError,
    LimitExceededError,
    ModelError,
    NoTextError,
    NotHTMLError,
)
from grist.limits import Limits
from grist.result import Result

METHODS = [*grist.available_methods(), STANDIN]
BUDGET = 3.0  # seconds; every call below must end within BUDGET + SLACK
SLACK = 2.0

ARTICLE = (
    "<html><head><title>Rivers</title></head><body><ul class=nav><li><a href=/>Home</a></li>"
    "<li><a href=/about>About</a></li></ul><h1>Rivers of the north</h1>"
    + "".join(
        f"<p>It was the {nth} time that she had been to the town by the river, and she was not "
        "sure what she would find there when she got off the train at the end of the line, "
        f"but she knew that {what} would be there for her, as it had been before the railway "
        "came.</p>"
        for nth, what in [("first", "the mill"), ("second", "her aunt"), ("third", "the inn")]
    )
    + "<div id=footer>Copyright 2024 | <a href=/terms>Terms</a></div></body></html>"
)

INPUTS: dict[str, bytes | str] = {
    "article": ARTICLE,
    "article-bytes": ARTICLE.encode("utf-8"),
    "empty": b"",
    "whitespace": " \r\n\t ",
    "png": b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(100),
    "pdf": b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj",
    "gzip": b"\x1f\x8b\x08\x00" + bytes(50),
    "random-bytes": random.Random(7).randbytes(5000),
    "nul-str": "<p>a\x00b</p>" + "\x00" * 200,
    "only-script": "<head><script>var a = '<p>x</p>';</script><style>p{}</style></head>",
    "only-comment": "<!-- <p>hidden text here</p> --><!--> <!---->",
    "truncated": ARTICLE[: len(ARTICLE) // 2],
    "cut-in-tag": ARTICLE[: ARTICLE.index("<p>") + 2],
    "unclosed": "<div><p>one two three<p>four five six<ul><li>seven<table><tr><td>eight",
    "stray-closers": "</div></p></td></html><p>text after stray closing tags here</p></body>",
    "plain-text": "Just a line of plain text without any markup at all, but several words.",
    "lone-surrogate": "<p>broken \ud800 surrogate in the middle of words</p>",
    "rtl-emoji": "<p>\u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627 \U0001f600 \u202e"
    "reversed text</p>",
    "gb18030": '<meta charset="gb2312"><p>中文内容测试，这是一个段落。</p>'.encode("gb18030"),
    "utf16-bom": "\ufeff<p>UTF-16 page with a byte order mark</p>".encode("utf-16-le"),
    "bad-utf8": b'<meta charset="utf-8"><p>caf\xe9 \xff\xfe broken \xc3 bytes</p>',
    "xml-decl": b'<?xml version="1.0" encoding="iso-8859-1"?><html><p>caf\xe9 au lait</p></html>',
    "frameset": "<frameset><frame src=a.html><noframes><p>No frames text</p></noframes></frameset>",
    "plaintext-tag": "<p>before</p><plaintext><p>this is all text</p></plaintext>",
    "textarea": "<textarea><p>not markup</p></textarea><p>after the textarea</p>",
    "pre-tabs": "<pre>\tcol1\tcol2\n  indented   line\n\n\n</pre>",
    "long-word": "<p>" + "x" * 200_000 + "</p>",
    "many-brs": "<p>" + "line<br>" * 1500 + "</p>" + "<br>" * 1500,
    "many-links": "<div>" + "<a href=/x>link</a> " * 2000 + "</div>",
    "big-table": "<table>"
    + "<tr><td>cell</td><td>12.5</td><td>word word</td></tr>" * 200
    + "</table>",
    "deep-inline": "<p>" + "<b>" * 100_000 + "bold words here" + "</p>",
    "deep-tables": "<table><tr><td>" * 10_000 + "cell text",
    "nested-lists": "<ul><li>" * 3000 + "item text",
    "attr-soup": '<p class="a b\' id=x onclick="<p>" data-x=\'">\'>quoted attribute soup text</p>',
    "entities": "<p>&amp;&lt;&gt;&#0;&#x110000;&#xD800;&nbsp;&notanentity; &am</p>",
    "svg-template": "<svg><text>svg</text></svg><template><p>tpl</p></template><p>real text</p>",
}

DEEPEST = "<div>" * 100_000 + "deepest words of all" + "</div>" * 100_000
# Deep enough to need an iterative walk (Python's recursion limit is 1000), under Limits.max_depth.
MODERATELY_DEEP = "<div>" * 1500 + "<p>the deepest words survive</p>" + "</div>" * 1500


@pytest.fixture(params=METHODS)
def method(request: pytest.FixtureRequest, standin: str) -> str:
    return request.param


def _extract(source: bytes | str, method: str) -> Result | GristError:
    """Extract, returning the grist error instead of raising it; any other exception fails."""
    started = time.perf_counter()
    try:
        outcome: Result | GristError = grist.extract(
            source, method=method, limits=Limits(time_budget=BUDGET)
        )
    except GristError as exc:
        outcome = exc
    elapsed = time.perf_counter() - started
    assert elapsed < BUDGET + SLACK, f"{method} took {elapsed:.2f} s"
    return outcome


def _fingerprint(outcome: Result | GristError) -> str:
    """Everything a caller sees of the outcome, for comparing two runs."""
    if isinstance(outcome, GristError):
        return f"{type(outcome).__name__}: {outcome}"
    return outcome.to_json()


def _check_result(result: Result) -> None:
    for block in result.blocks:
        assert block.label in (CONTENT, BOILERPLATE), block
        assert isinstance(block.reason, str) and block.reason, block
    json.loads(result.to_json())
    assert isinstance(result.to_markdown(), str) and isinstance(result.to_html(), str)
    assert result.text == "\n\n".join(b.text for b in result.content_blocks if b.text)
    assert (result.empty_reason is None) == bool(result.content_blocks)


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_result_or_grist_error_and_deterministic(method: str, name: str) -> None:
    first = _extract(INPUTS[name], method)
    if isinstance(first, Result):
        _check_result(first)
    assert _fingerprint(_extract(INPUTS[name], method)) == _fingerprint(first)


def test_every_block_is_returned(method: str) -> None:
    text = _all_text(_extract(ARTICLE, method))
    for words in ("Home", "Rivers of the north", "her aunt", "Copyright 2024"):
        assert words in text


def test_no_state_between_pages(method: str) -> None:
    first = _fingerprint(_extract(ARTICLE, method))
    for other in ("many-links", "big-table", "gb18030"):
        _extract(INPUTS[other], method)
    assert _fingerprint(_extract(ARTICLE, method)) == first


def test_refusals_name_their_cause(method: str) -> None:
    assert isinstance(_extract(INPUTS["empty"], method), EmptyInputError)
    assert isinstance(_extract(INPUTS["png"], method), NotHTMLError)
    assert isinstance(_extract(INPUTS["pdf"], method), NotHTMLError)
    assert isinstance(_extract(INPUTS["only-script"], method), NoTextError)
    deep = _extract(DEEPEST, method)
    assert isinstance(deep, LimitExceededError) or "deepest words" in _all_text(deep)


def _all_text(outcome: Result | GristError) -> str:
    """The text of every block, kept or dropped (skips a method whose model is not built)."""
    if isinstance(outcome, ModelError):
        pytest.skip(f"the method's model is not available: {outcome}")
    assert isinstance(outcome, Result), outcome
    return " ".join(b.text for b in outcome.blocks)


def test_deep_nesting_loses_no_text(method: str) -> None:
    assert "the deepest words survive" in _all_text(_extract(MODERATELY_DEEP, method))


def test_time_budget_ends_slow_pages(method: str) -> None:
    page = ARTICLE.replace("</body>", INPUTS["big-table"] + "</body>")
    with pytest.raises(ExtractionTimeout, match="time budget"):
        grist.extract(page, method=method, limits=Limits(time_budget=0.0))
