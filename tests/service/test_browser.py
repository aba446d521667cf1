"""The inspector in a real browser (Debian's chromium through Playwright): blocks outlined as the
JSON says, the reason on hover, method switching, and a hostile page that runs nothing."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import ARTICLE

CHROMIUM = Path(os.environ.get("GRIST_CHROMIUM", "/usr/bin/chromium"))
playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
if not CHROMIUM.exists():  # `make test` installs it; a bare pytest run may not have it
    pytest.skip(f"no chromium at {CHROMIUM} (apt-get install chromium)", allow_module_level=True)

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
KEPT, DROPPED, APART = "rgb(26, 127, 55)", "rgb(207, 34, 46)", "rgb(154, 103, 0)"
APART_ROLES = {"title", "subtitle", "byline", "caption", "comment"}


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    with playwright_api.sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=str(CHROMIUM),
            args=ARGS, viewport={"width": 1400, "height": 900})
        yield context
        context.close()


@pytest.fixture
def inspector(browser, service: str):
    page = browser.new_page()
    page.dialogs = []
    page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(service + "/inspect")
    page.wait_for_selector("body[data-ready]")
    yield page
    page.close()


def inspect_pasted(page, html: str, method: str) -> None:
    page.click("#paste-toggle")
    page.fill("#html", html)
    page.select_option("#method", method)
    page.click("#run")
    page.wait_for_selector(f"body[data-inspected='{method}']")


def expected(service: str, method: str) -> dict:
    response = httpx.post(service + "/inspect", json={"html": ARTICLE, "method": method, "view": False},
                          timeout=30)
    return response.json()


def outlines(page) -> list[dict]:
    """Every outlined element in the frame: its block, label and outline colour."""
    return page.evaluate("""() => Array.from(document.getElementById('frame').contentDocument
        .querySelectorAll('[data-grist-block]')).map((e) => ({block: Number(e.dataset.gristBlock),
        label: e.dataset.gristLabel, apart: e.dataset.gristApart || null,
        colour: getComputedStyle(e).outlineColor}))""")


def check_outlines(page, data: dict) -> None:
    assert set(data["apart_roles"]) == APART_ROLES  # the page reads the list from the answer
    shown = outlines(page)
    by_block: dict[int, set[str]] = {}
    blocks = data["result"]["blocks"]
    for item in shown:
        by_block.setdefault(item["block"], set()).add(item["label"])
        block = blocks[item["block"]]
        apart = block["label"] == "boilerplate" and block["role"] in APART_ROLES
        assert item["apart"] == (block["role"] if apart else None)
        assert item["colour"] == (APART if apart else KEPT if item["label"] == "content" else DROPPED)
    located = [i for i, r in enumerate(data["blocks"]) if r is not None]
    assert sorted(by_block) == located
    for index in located:
        assert by_block[index] == {data["result"]["blocks"][index]["label"]}
    assert {item["label"] for item in shown} == {"content", "boilerplate"}


def test_blocks_are_outlined_as_the_json_says_and_hover_shows_the_reason(inspector, service: str) -> None:
    inspect_pasted(inspector, ARTICLE, "justext")
    data = expected(service, "justext")
    check_outlines(inspector, data)
    dropped = next(i for i, b in enumerate(data["result"]["blocks"])
                   if b["label"] == "boilerplate" and data["blocks"][i] is not None)
    frame = inspector.frame_locator("#frame")
    frame.locator(f"[data-grist-block='{dropped}']").first.hover()
    tip = inspector.locator("#tip")
    tip.wait_for(state="visible")
    reason = data["result"]["blocks"][dropped]["reason"]
    assert reason in tip.inner_text() and "dropped" in tip.inner_text()
    assert reason in inspector.locator("#tab-block").inner_text()
    inspector.click("#tabs button[data-tab='text']")  # the side panel: text, then metadata
    assert inspector.locator("#text").inner_text() == data["result"]["text"]
    inspector.click("#tabs button[data-tab='page']")
    page_tab = inspector.locator("#tab-page").inner_text()
    assert "title\nRivers" in page_tab and "no warnings" in page_tab


def test_switching_methods_compares_them_on_the_same_page(inspector, service: str) -> None:
    inspect_pasted(inspector, ARTICLE, "justext")
    inspector.select_option("#method", "auto")
    inspector.wait_for_selector("body[data-inspected='auto']")
    check_outlines(inspector, expected(service, "auto"))
    assert any(item["apart"] == "title" for item in outlines(inspector))  # the headline, apart
    assert "compared with justext" in inspector.locator("#summary").inner_text()
    frame = inspector.frame_locator("#frame")
    kept = frame.locator("[data-grist-label='content']").first
    kept.click()
    panel = inspector.locator("#tab-block").inner_text()
    assert "Top features" in panel and "p=" in panel  # auto's explained reason, feature by feature


def test_a_hostile_page_runs_nothing(inspector) -> None:
    inspect_pasted(inspector, ARTICLE, "auto")
    frame = inspector.frame_locator("#frame")
    frame.locator("text=Contact").click()  # its javascript: URL was removed; clicks go nowhere
    inspector.wait_for_timeout(200)
    state = inspector.evaluate("""() => {
        const frame = document.getElementById('frame');
        const doc = frame.contentDocument;
        const handlers = Array.from(doc.querySelectorAll('*')).flatMap((e) =>
            Array.from(e.attributes).filter((a) => a.name.startsWith('on')).map((a) => a.name));
        return {pwned: document.body.dataset.pwned || null, framePwned: frame.contentWindow.pwned || null,
                scripts: doc.querySelectorAll('script').length, handlers: handlers,
                sandbox: frame.getAttribute('sandbox'), url: frame.contentWindow.location.href};
    }""")
    assert state == {"pwned": None, "framePwned": None, "scripts": 0, "handlers": [],
                     "sandbox": "allow-same-origin", "url": "about:srcdoc"}
    assert inspector.dialogs == []


def test_a_refused_url_is_reported(inspector) -> None:
    inspector.fill("#url", "http://169.254.169.254/latest/meta-data/")
    inspector.click("#run")
    status = inspector.locator("#status.error")
    status.wait_for()
    assert "403" in status.inner_text() and "link-local" in status.inner_text()
