"""The fuzz suite: its runner classifies what happens in a worker, its shrinker finds small
reproducers, and a short fixed-seed run over every family and method keeps the contract."""

import json
from pathlib import Path

import grist
from grist.fuzz import FAMILIES, PoolConfig, fuzz, load_reproducers, make_case, run_cases
from grist.fuzz.cases import Case
from grist.fuzz.shrink import ddmin
from grist.limits import Limits

from fuzz_methods import REGISTER

TESTS = str(Path(__file__).parent)
# Small caps, so that the pages "at and just over every cap" stay small too.
SHORT_LIMITS = Limits(max_bytes=256 * 1024, max_tags=20_000, max_depth=400, max_blocks=5_000)


def _config(**options) -> PoolConfig:
    return PoolConfig(register=REGISTER, sys_path=(TESTS,), **options)


def test_cases_are_made_again_from_seed_and_index():
    first, again = make_case(5, 17), make_case(5, 17)
    assert (first.content, first.url, first.http_charset, first.family) == (
        again.content, again.url, again.http_charset, again.family)
    assert make_case(5, 18).content != first.content
    assert make_case(5, 17, families=["nonhtml"]).family == "nonhtml"


def test_a_family_added_later_leaves_the_other_cases_as_they_were():
    """Families were picked from one weighted draw, so adding one changed which input most
    ``--replay SEED:INDEX`` numbers written down before made."""
    make_case(7, 0)  # (registers the families)
    names = list(FAMILIES)
    without = names[:-1]  # as before the newest family was added
    kept = 0
    for index in range(300):
        case = make_case(7, index)
        if case.family == names[-1]:
            continue
        before = make_case(7, index, families=without)
        assert (before.family, before.content, before.url) == (case.family, case.content, case.url)
        kept += 1
    assert kept >= 250  # the newest family wins its share only


def test_outcomes_are_classified_and_dead_workers_replaced(tmp_path):
    page = Case("test", b"<p>boom here and a few more words of text</p>")
    plain = Case("test", b"<p>an ordinary paragraph with some words in it</p>")
    records = []
    summary = run_cases([page, plain], ["crash", "hang", "hog", "die", "auto"],
                        _config(hang_seconds=8, memory_bytes=1536 << 20),
                        on_record=records.append)
    seen = {(r["method"], r["outcome"]) for r in records if r["size"] == len(page.content)}
    assert seen == {("crash", "crash"), ("hang", "hang"), ("hog", "crash"), ("die", "died"),
                    ("auto", "ok")}
    by_method = {r["method"]: r for r in records if r["size"] == len(page.content)}
    assert by_method["crash"]["kind"] == "ValueError"
    assert "fuzz_methods.py" in by_method["crash"]["where"]
    assert by_method["hog"]["kind"] == "MemoryError"
    assert "SIGSEGV" in by_method["die"]["message"]
    assert "_hang" in by_method["hang"]["where"]  # the stuck run's traceback was read
    # Every plain page ran fine after the hangs and deaths: the workers were replaced.
    assert {r["outcome"] for r in records if r["size"] == len(plain.content)} == {"ok"}
    assert summary.count("crash") == 2 and summary.count("hang") == 1
    assert len(summary.failures) == 4


def test_failures_are_shrunk_to_small_reproducers(tmp_path):
    filler = "<p>" + "words of an ordinary page, " * 200 + "</p>"
    page = Case("test", (filler + "<p>it goes boom</p>" + filler).encode(), url="http://a/")
    run_cases([page], ["crash"], _config(hang_seconds=10), shrink_into=tmp_path)
    (note_path,) = tmp_path.glob("*.json")
    note = json.loads(note_path.read_text())
    assert note["method"] == "crash" and note["signature"].startswith("crash ValueError")
    assert note["size_bytes"] < 40 and note["url"] == "http://a/"
    ((case, method),) = load_reproducers(tmp_path)
    assert method == "crash" and b"boom" in case.content


def test_ddmin_keeps_what_makes_the_failure():
    content = "a" * 300 + "<b>" + "c" * 300
    assert ddmin(content, lambda c: "<b>" in c, 500, 60) == "<b>"


def test_short_run_keeps_the_contract():
    """Three cases of every family, with every method: no crash, hang, death or overrun."""
    cases = [make_case(2026, index, SHORT_LIMITS, scale=0.01, families=[family])
             for family in sorted(FAMILIES) for index in range(3)]
    summary = run_cases(cases, grist.available_methods(),
                        PoolConfig(jobs=2, hang_seconds=20, limits=SHORT_LIMITS))
    assert summary.runs == len(cases) * len(grist.available_methods()) >= 300
    assert summary.failures == [], summary.failure_lines()
    assert summary.count("ok") > summary.runs // 2
    assert {"NotHTMLError", "LimitExceededError"} <= set(summary.errors)


def test_fuzz_generates_from_a_seed():
    summary = fuzz(3, 4, methods=["lineblock"], config=PoolConfig(limits=SHORT_LIMITS),
                   scale=0.01)
    assert summary.runs == 4 and len(summary.pages) == 4
