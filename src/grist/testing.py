"""The contract every extraction method and every cross-page model keeps, as checks anyone can run.

``check_method(spec)`` runs a registered method (or ``name/variant``) through the promises of
ARCHITECTURE.md: any bytes in, a result or a grist error out, never a crash, never a hang; every
block labelled with a reason; the same input gives the same output whatever ran before; deep
nesting loses no text; refusals name their cause; the time budget holds. ``check_model(make,
pages)`` does the same for a cross-page model: the estimator life cycle, save/load, bad files,
and extraction that only reads the model. Both raise ``ContractError`` listing every broken
promise; grist's own test suite runs them on every registered method, variant and model::

    from grist.testing import check_method
    grist.register_method("mine", MY_METHOD)
    check_method("mine")
"""

from __future__ import annotations

import json
import random
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from grist.api import Extractor
from grist.crosspage import CrossPageModel, Verdict
from grist.document import BOILERPLATE, CONTENT, RawPage
from grist.errors import (
    EmptyInputError,
    ExtractionTimeout,
    GristError,
    LimitExceededError,
    ModelError,
    NoTextError,
    NotHTMLError,
)
from grist.features.matrix import FeatureMatrix
from grist.limits import Limits
from grist.result import Result


class ContractError(AssertionError):
    """A method or model broke a promise of the contract; the message lists every one."""


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

# Hostile and odd inputs: each must give a Result or a GristError, the same one twice.
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
BUDGET = 3.0  # seconds per page in the checks; every call must end within BUDGET + SLACK
SLACK = 2.0

Outcome = Result | GristError


class _Run:
    """Extracts with one method and records what broke, instead of stopping at the first."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.extractor = Extractor(method=spec, limits=Limits(time_budget=BUDGET))
        self.failures: list[str] = []

    def fail(self, message: str) -> None:
        self.failures.append(message)

    def extract(self, source: bytes | str | RawPage, name: str,
                **models: CrossPageModel) -> Outcome:
        """The Result or the GristError; any other exception or a slow call is a failure."""
        started = time.perf_counter()
        try:
            outcome: Outcome = self.extractor(source, **models)
        except GristError as exc:
            outcome = exc
        except Exception as exc:  # noqa: BLE001 - the contract is exactly that this never happens
            self.fail(f"{name}: raised {type(exc).__name__}: {exc}")
            outcome = GristError(f"crashed: {exc!r}")
        elapsed = time.perf_counter() - started
        if elapsed > BUDGET + SLACK:
            self.fail(f"{name}: took {elapsed:.2f} s (budget {BUDGET:g} s)")
        return outcome

    def all_text(self, outcome: Outcome, name: str) -> str:
        """The text of every block, kept or dropped ("" and a failure for an error)."""
        if not isinstance(outcome, Result):
            self.fail(f"{name}: expected a result, got {type(outcome).__name__}: {outcome}")
            return ""
        return " ".join(b.text for b in outcome.blocks)


def fingerprint(outcome: Outcome) -> str:
    """Everything a caller sees of an outcome, for comparing two runs."""
    if isinstance(outcome, GristError):
        return f"{type(outcome).__name__}: {outcome}"
    return outcome.to_json()


def _result_problems(result: Result) -> list[str]:
    """What is wrong with a Result's blocks and renderings (empty when nothing is)."""
    problems = []
    for block in result.blocks:
        if block.label not in (CONTENT, BOILERPLATE):
            problems.append(f"block {block.index} has label {block.label!r}")
        if not (isinstance(block.reason, str) and block.reason):
            problems.append(f"block {block.index} has no reason")
    try:
        json.loads(result.to_json())
    except ValueError as exc:
        problems.append(f"JSON output is not valid JSON: {exc}")
    if not (isinstance(result.to_markdown(), str) and isinstance(result.to_html(), str)):
        problems.append("Markdown or HTML output is not a str")
    if (result.empty_reason is None) != bool(result.content_blocks):
        problems.append("empty_reason is set although blocks were kept, or missing")
    if bool(result.text.strip()) != any(b.text.strip() for b in result.content_blocks):
        problems.append("the text does not match the kept blocks")
    return problems


def _inputs(run: _Run) -> None:
    for name, source in INPUTS.items():
        first = run.extract(source, name)
        if isinstance(first, Result):
            run.failures += [f"{name}: {p}" for p in _result_problems(first)]
        if fingerprint(run.extract(source, name)) != fingerprint(first):
            run.fail(f"{name}: a second run gave another output")


def _every_block(run: _Run) -> None:
    text = run.all_text(run.extract(ARTICLE, "article"), "article")
    for words in ("Home", "Rivers of the north", "her aunt", "Copyright 2024"):
        if words not in text:
            run.fail(f"article: the block {words!r} is missing from the result's blocks")


def _no_state(run: _Run) -> None:
    first = fingerprint(run.extract(ARTICLE, "article"))
    for other in ("many-links", "big-table", "gb18030"):
        run.extract(INPUTS[other], other)
    if fingerprint(run.extract(ARTICLE, "article")) != first:
        run.fail("article: the output changed after other pages were extracted")


def _refusals(run: _Run) -> None:
    for name, kind in (("empty", EmptyInputError), ("png", NotHTMLError), ("pdf", NotHTMLError),
                       ("only-script", NoTextError)):
        outcome = run.extract(INPUTS[name], name)
        if not isinstance(outcome, kind):
            run.fail(f"{name}: expected {kind.__name__}, got {type(outcome).__name__}")
    deep = run.extract(DEEPEST, "deepest")
    if not isinstance(deep, LimitExceededError) and "deepest words" not in run.all_text(
            deep, "deepest"):
        run.fail("deepest: neither a LimitExceededError nor the deepest text")


def _deep_nesting(run: _Run) -> None:
    if "the deepest words survive" not in run.all_text(
            run.extract(MODERATELY_DEEP, "moderately-deep"), "moderately-deep"):
        run.fail("moderately-deep: text nested 1500 deep was lost")


def _time_budget(run: _Run) -> None:
    page = ARTICLE.replace("</body>", str(INPUTS["big-table"]) + "</body>")
    try:
        Extractor(method=run.spec, limits=Limits(time_budget=1e-9))(page)
    except ExtractionTimeout as exc:
        if "time budget" not in str(exc):
            run.fail(f"time budget: the timeout message does not name the budget: {exc}")
    except GristError as exc:
        run.fail(f"time budget: expected ExtractionTimeout, got {type(exc).__name__}: {exc}")
    else:
        run.fail("time budget: a budget of 1 ns did not stop the extraction")


METHOD_CHECKS: dict[str, Callable[[_Run], None]] = {
    "inputs": _inputs,
    "every-block": _every_block,
    "no-state": _no_state,
    "refusals": _refusals,
    "deep-nesting": _deep_nesting,
    "time-budget": _time_budget,
}


def check_method(spec: str, checks: Sequence[str] | None = None) -> None:
    """Run the method ``spec`` through the contract (all ``METHOD_CHECKS``, or those named);
    raise ContractError listing every broken promise."""
    run = _Run(spec)
    for name in checks or METHOD_CHECKS:
        METHOD_CHECKS[name](run)
    if run.failures:
        raise ContractError(f"method {spec!r} breaks the contract:\n- " + "\n- ".join(run.failures))


def _fitted_attributes(model: object) -> list[str]:
    return [a for a in vars(model) if a.endswith("_") and not a.startswith("_")]


def _model_outputs(model: CrossPageModel, pages: Sequence[RawPage], role: str,
                   run: _Run) -> list[str]:
    """Fingerprints of extracting every page with the model, and of its annotate/relabel."""
    seen = []
    for page in pages:
        outcome = run.extract(page, page.input or str(page.url), **{role: model})
        seen.append(fingerprint(outcome))
        if not isinstance(outcome, Result):
            continue
        doc, blocks = outcome.document, outcome.blocks
        columns = model.annotate(doc, blocks)
        verdicts = model.relabel(doc, blocks)
        if not isinstance(columns, FeatureMatrix) or len(columns) != len(blocks):
            run.fail(f"{page.input}: annotate() must give a FeatureMatrix with a row per block")
        else:
            seen.append(repr((columns.names, columns.values.tolist())))
        if len(verdicts) != len(blocks) or not all(
                v is None or isinstance(v, Verdict) for v in verdicts):
            run.fail(f"{page.input}: relabel() must give a Verdict or None per block")
        seen.append(repr(verdicts))
    return seen


def check_model(make: Callable[[], CrossPageModel], pages: Sequence[RawPage], *,
                role: str = "site", method: str = "auto") -> None:
    """Run a cross-page model through the contract; raise ContractError listing every broken
    promise.

    ``make`` builds an unfitted model; ``pages`` are pages it can learn from (with URLs);
    ``role`` is how extraction receives it (``site`` or ``stream``). Checked: ``fit`` and
    ``update`` return the model, fitted attributes end in ``_`` and appear only when fitted; a
    page that cannot be parsed does not stop ``fit``; extraction reads the model without
    changing it and gives the same output twice; ``save``/``load`` round-trips to the same
    outputs; a corrupt, empty or foreign file is a ModelError; a page of an unknown host is
    extracted at page level.
    """
    run = _Run(method)
    model = make()
    if _fitted_attributes(model):
        run.fail(f"an unfitted model already has fitted attributes {_fitted_attributes(model)}")
    broken = [RawPage(b"", url="http://broken.invalid/empty", input="empty"),
              RawPage(b"\x89PNG\r\n\x1a\n" + bytes(50), url="http://broken.invalid/png",
                      input="png")]
    try:
        fitted = model.fit([*broken, *pages])
    except GristError as exc:
        raise ContractError(f"fit() failed on pages with two unusable ones: {exc}") from None
    if fitted is not model:
        run.fail("fit() must return the model itself")
    if not _fitted_attributes(model):
        run.fail("a fitted model has no attribute ending in '_'")
    with tempfile.TemporaryDirectory() as folder:
        before, again = Path(folder, "before"), Path(folder, "again")
        model.save(before)
        first = _model_outputs(model, pages, role, run)
        model.save(again)
        if before.read_bytes() != again.read_bytes():
            run.fail("extraction changed the model (its saved file differs)")
        if _model_outputs(model, pages, role, run) != first:
            run.fail("extracting the same pages twice with the model gave other outputs")
        loaded = type(model).load(before)
        if _model_outputs(loaded, pages, role, run) != first:
            run.fail("the loaded model gives other outputs than the saved one")
        for name, data in (("empty", b""), ("garbage", b"\x00\x01not a model"),
                           ("truncated", before.read_bytes()[:40]),
                           ("foreign", b'{"format": "grist-model", "kind": "x", "version": 1}')):
            bad = Path(folder, name)
            bad.write_bytes(data)
            try:
                type(model).load(bad)
            except ModelError:
                continue
            except Exception as exc:  # noqa: BLE001 - anything but a ModelError breaks the promise
                run.fail(f"loading a {name} file raised {type(exc).__name__}, not ModelError")
                continue
            run.fail(f"loading a {name} file did not raise ModelError")
    stranger = run.extract(ARTICLE, "unknown host", **{role: model})
    plain = run.extract(ARTICLE, "unknown host, no model")
    if isinstance(stranger, Result) and isinstance(plain, Result) and stranger.text != plain.text:
        run.fail("a page the model knows nothing about was not extracted at page level")
    if model.update(pages[0]) is not model:
        run.fail("update() must return the model itself")
    if run.failures:
        raise ContractError(f"model {type(model).__name__} breaks the contract:\n- "
                            + "\n- ".join(run.failures))
