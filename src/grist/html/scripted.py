"""Say why a page holds no visible text: most such pages are written by JavaScript in a browser,
a few are framesets whose text is in the pages their frames load.

A shop or forum page fetched as served is often an empty shell (``<section id="main">`` and a
list of scripts) whose text the browser draws. grist reads the HTML it is given and runs no
scripts, so the user needs to know to give it the rendered page instead; and it reads one page,
so a frameset's frames (or a page's iframes) have to be extracted as pages of their own.
"""

from __future__ import annotations

import re

from grist.errors import NoTextError

# A script element, or a link that preloads one (crawls that strip scripts keep those).
_SCRIPT = re.compile(
    r"<script\b|<link\b[^<>]{0,2000}?(?:\bas\s*=\s*[\"']?script\b|modulepreload)", re.IGNORECASE)


# The address a frame or iframe loads (the first few are named).
_FRAME_SOURCE = re.compile(r"<i?frame\b[^<>]{0,2000}?\bsrc\s*=\s*[\"']?([^\"'\s<>]+)",
                           re.IGNORECASE)
_NAMED_FRAMES = 3


def _frames(html: str) -> tuple[bool, str] | None:
    """When the page is a frameset or has iframes: whether it is a frameset, and the message
    naming the pages they load."""
    found = _FRAME_SOURCE.findall(html)
    if not found:
        return None
    sources = list(dict.fromkeys(found))
    named = ", ".join(sources[:_NAMED_FRAMES]) + (", ..." if len(sources) > _NAMED_FRAMES else "")
    if re.search(r"<frameset\b", html, re.IGNORECASE):
        return True, ("the page is a frameset: its text is in the pages its frames load "
                      f"({named}): extract those")
    return False, ("the page has no visible text of its own; its iframes load other pages "
                   f"({named}): extract those")


def no_text_error(html: str) -> NoTextError:
    """The error for a page without visible text; when it refers to scripts or loads frames,
    the likely cause."""
    frames = _frames(html)
    if frames is not None and frames[0]:
        return NoTextError(frames[1])
    scripts = len(_SCRIPT.findall(html))
    if not scripts:
        return NoTextError(frames[1] if frames else "the page has no visible text")
    plural = "s" if scripts > 1 else ""
    return NoTextError(
        f"the page has no visible text; it refers to {scripts} script{plural}, so its text is "
        "probably written by JavaScript, which grist does not run: give it the page as a browser "
        "renders it (e.g. the HTML a headless browser saves)")
