"""Regenerate the inspector screenshots in this folder (Debian's chromium through Playwright).

Starts the service on 127.0.0.1 with the bundled example page preloaded, opens the inspector,
hovers a dropped block, switches methods, and saves PNGs next to this script.

    .venv/bin/python docs/images/make_screenshots.py
"""

from __future__ import annotations

import secrets
import socket
import threading
import time
from pathlib import Path

import uvicorn
from playwright.sync_api import sync_playwright

from grist.service import ServiceSettings, create_app
from grist.service.app import Page

HERE = Path(__file__).resolve().parent
PAGE = HERE.parents[1] / "examples" / "article.html"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def main() -> None:
    token = secrets.token_urlsafe(8)
    app = create_app(ServiceSettings(workers=1),
                     preload={token: Page(PAGE.read_bytes(), "https://valley-courier.example/night-trains")})
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 860})
            page.goto(f"{base}/inspect?preload={token}")
            page.wait_for_selector("body[data-inspected='auto']")
            frame = page.frame_locator("#frame")
            frame.locator("[data-grist-label='boilerplate']").nth(6).hover()
            page.wait_for_timeout(300)
            page.screenshot(path=str(HERE / "inspector-auto-hover.png"))
            frame.locator("[data-grist-label='content']").nth(2).click()
            page.mouse.move(5, 5)
            page.wait_for_timeout(200)
            page.screenshot(path=str(HERE / "inspector-auto-selected.png"))
            page.select_option("#method", "justext")
            page.wait_for_selector("body[data-inspected='justext']")
            page.click("#tabs button[data-tab='list']")
            page.mouse.move(5, 5)
            page.wait_for_timeout(200)
            page.screenshot(path=str(HERE / "inspector-justext-compared.png"))
            browser.close()
    finally:
        server.should_exit = True


if __name__ == "__main__":
    main()
