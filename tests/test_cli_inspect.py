"""``grist inspect`` refuses, before starting its server, a method or a page it cannot show."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")

ARTICLE = ("<html><body><div><a href=/>Home</a></div><p>The council met on Monday to talk about "
           "the river, the market and the new bridge the town has wanted for years.</p>"
           "</body></html>")


def _inspect(*args: str) -> subprocess.CompletedProcess:
    """``grist inspect ... --no-browser`` run to its end (a server that starts never ends: the
    timeout fails the test)."""
    return subprocess.run([sys.executable, "-m", "grist", "inspect", *args, "--no-browser"],
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(("content", "options", "said"), [
    (b"", [], "the page is empty"),
    (bytes(range(256)) * 16, [], "the input is not an HTML page"),
    (b"<div>" * 5000 + b"<p>deep</p>", [], "the page nests elements more than 4000 deep"),
    (ARTICLE.replace("years.", "years. " + "and more words " * 1000).encode(),
     ["--max-body-mib", "0.01"],
     "bytes as the inspector sends it, more than the 10,485 a request may hold "
     "(--max-body-mib 0.01)"),
])
def test_a_page_the_inspector_cannot_show_is_an_error_and_no_server_starts(
        tmp_path: Path, content: bytes, options: list[str], said: str) -> None:
    """These started the server and printed its address; the browser then showed the error
    (for a page over the body cap, a 413)."""
    page = tmp_path / "page.html"
    page.write_bytes(content)
    done = _inspect(str(page), *options)
    assert done.returncode == 1 and done.stderr.startswith(f"grist: error: {page}: ")
    assert said in done.stderr and "inspector at" not in done.stderr


def test_an_unknown_method_is_an_error_and_no_server_starts(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text(ARTICLE)
    for method, said in (("foo", "unknown method 'foo'; choose one of: "),
                         ("auto/nope", "method 'auto' has no variant 'nope'")):
        done = _inspect(str(page), "--method", method)
        assert done.returncode == 1 and done.stderr.startswith(f"grist: error: {said}")
