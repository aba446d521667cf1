"""Explanations of learned methods are computed on demand: Result.explained(), or JSON output."""

from __future__ import annotations

import json

import grist
from grist.methods.auto import AutoConfig

PAGE = (
    "<html><head><title>Harbour</title></head><body>"
    "<ul class=nav><li><a href=/>Home</a></li><li><a href=/news>News</a></li></ul>"
    + "".join(
        f"<p>The harbour report {i} says the old quay was rebuilt, the boats came back and the "
        "fish market reopened on a cold morning in spring, to the relief of the town.</p>"
        for i in range(4)
    )
    + "<div class=footer><a href=/privacy>Privacy</a> | <a href=/terms>Terms</a></div>"
    "</body></html>"
)


def test_reasons_are_short_until_explained():
    result = grist.extract(PAGE, method="auto")
    short = [b.reason for b in result.blocks]
    assert all(r.startswith("p=") and r.count(";") == 1 and "context" in r for r in short)
    explained = result.explained()
    full = [b.reason for b in explained.blocks]
    for before, after in zip(short, full, strict=True):
        head, context = before.split("; ")
        assert after.startswith(head + "; ") and after.endswith("; " + context)
        assert after.count("(") >= 1  # at least one feature with its contribution
    assert [b.reason for b in result.blocks] == short  # the result itself is unchanged
    assert [b.reason for b in result.explained().blocks] == full  # the same every time
    assert result.explained().text == result.text


def test_explained_json_carries_full_explanations_and_features():
    result = grist.extract(PAGE, method="auto")
    record = json.loads(result.to_json(explain=True))
    reasons = [b["reason"] for b in record["blocks"]]
    assert all(r.count(";") == 2 for r in reasons)
    assert all(b["features"] and "link_density" in b["features"] for b in record["blocks"])


def test_compact_json_has_the_short_reasons_and_no_features():
    result = grist.extract(PAGE, method="auto")
    record = json.loads(result.to_json())
    assert [b["reason"] for b in record["blocks"]] == [b.reason for b in result.blocks]
    assert all(set(b) == {"text", "role", "label", "score", "reason"} for b in record["blocks"])
    assert [b["score"] for b in record["blocks"]] == [round(b.score, 4) for b in result.blocks]


def test_explanations_off_leave_the_probability_only():
    result = grist.extract(PAGE, method="auto", config=AutoConfig(explain=False))
    assert all(b.reason == f"p={b.score:.3f}" for b in result.explained().blocks)
