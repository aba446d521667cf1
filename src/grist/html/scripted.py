"""Say why a page holds no visible text: most such pages are written by JavaScript in a browser.

A shop or forum page fetched as served is often an empty shell (``<section id="main">`` and a
list of scripts) whose text the browser draws. grist reads the HTML it is given and runs no
scripts, so the user needs to know to give it the rendered page instead.
"""

from __future__ import annotations

import re

from grist.errors import NoTextError

# A script element, or a link that preloads one (crawls that strip scripts keep those).
_SCRIPT = re.compile(
    r"<script\b|<link\b[^<>]{0,2000}?(?:\bas\s*=\s*[\"']?script\b|modulepreload)", re.IGNORECASE)


def no_text_error(html: str) -> NoTextError:
    """The error for a page without visible text; when it refers to scripts, the likely cause."""
    scripts = len(_SCRIPT.findall(html))
    if not scripts:
        return NoTextError("the page has no visible text")
    plural = "s" if scripts > 1 else ""
    return NoTextError(
        f"the page has no visible text; it refers to {scripts} script{plural}, so its text is "
        "probably written by JavaScript, which grist does not run: give it the page as a browser "
        "renders it (e.g. the HTML a headless browser saves)")
