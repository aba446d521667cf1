"""Whether a page is parsed in quirks mode (WHATWG "initial" insertion mode and DOCTYPE tokenizer
states): no doctype, a malformed one, a name other than ``html`` or a legacy public identifier.

One tree-construction rule depends on it: outside quirks mode a ``<table>`` closes an open
``<p>``. ``grist.html.structure`` needs to know which, to follow the parser exactly.
"""

from __future__ import annotations

import re

_QUIRKY_PREFIXES = tuple(p.lower() for p in (
    "+//Silmaril//dtd html Pro v0r11 19970101//", "-//AS//DTD HTML 3.0 asWedit + extensions//",
    "-//AdvaSoft Ltd//DTD HTML 3.0 asWedit + extensions//", "-//IETF//DTD HTML 2.0 Level 1//",
    "-//IETF//DTD HTML 2.0 Level 2//", "-//IETF//DTD HTML 2.0 Strict Level 1//",
    "-//IETF//DTD HTML 2.0 Strict Level 2//", "-//IETF//DTD HTML 2.0 Strict//",
    "-//IETF//DTD HTML 2.0//", "-//IETF//DTD HTML 2.1E//", "-//IETF//DTD HTML 3.0//",
    "-//IETF//DTD HTML 3.2 Final//", "-//IETF//DTD HTML 3.2//", "-//IETF//DTD HTML 3//",
    "-//IETF//DTD HTML Level 0//", "-//IETF//DTD HTML Level 1//", "-//IETF//DTD HTML Level 2//",
    "-//IETF//DTD HTML Level 3//", "-//IETF//DTD HTML Strict Level 0//",
    "-//IETF//DTD HTML Strict Level 1//", "-//IETF//DTD HTML Strict Level 2//",
    "-//IETF//DTD HTML Strict Level 3//", "-//IETF//DTD HTML Strict//", "-//IETF//DTD HTML//",
    "-//Metrius//DTD Metrius Presentational//",
    "-//Microsoft//DTD Internet Explorer 2.0 HTML Strict//",
    "-//Microsoft//DTD Internet Explorer 2.0 HTML//",
    "-//Microsoft//DTD Internet Explorer 2.0 Tables//",
    "-//Microsoft//DTD Internet Explorer 3.0 HTML Strict//",
    "-//Microsoft//DTD Internet Explorer 3.0 HTML//",
    "-//Microsoft//DTD Internet Explorer 3.0 Tables//", "-//Netscape Comm. Corp.//DTD HTML//",
    "-//Netscape Comm. Corp.//DTD Strict HTML//", "-//O'Reilly and Associates//DTD HTML 2.0//",
    "-//O'Reilly and Associates//DTD HTML Extended 1.0//",
    "-//O'Reilly and Associates//DTD HTML Extended Relaxed 1.0//",
    "-//SQ//DTD HTML 2.0 HoTMetaL + extensions//",
    "-//SoftQuad Software//DTD HoTMetaL PRO 6.0::19990601::extensions to HTML 4.0//",
    "-//SoftQuad//DTD HoTMetaL PRO 4.0::19971010::extensions to HTML 4.0//",
    "-//Spyglass//DTD HTML 2.0 Extended//", "-//Sun Microsystems Corp.//DTD HotJava HTML//",
    "-//Sun Microsystems Corp.//DTD HotJava Strict HTML//", "-//W3C//DTD HTML 3 1995-03-24//",
    "-//W3C//DTD HTML 3.2 Draft//", "-//W3C//DTD HTML 3.2 Final//", "-//W3C//DTD HTML 3.2//",
    "-//W3C//DTD HTML 3.2S Draft//", "-//W3C//DTD HTML 4.0 Frameset//",
    "-//W3C//DTD HTML 4.0 Transitional//", "-//W3C//DTD HTML Experimental 19960712//",
    "-//W3C//DTD HTML Experimental 970421//", "-//W3C//DTD W3 HTML//",
    "-//W3O//DTD W3 HTML 3.0//", "-//WebTechs//DTD Mozilla HTML 2.0//",
    "-//WebTechs//DTD Mozilla HTML//",
))
_QUIRKY_IDS = ("-//w3o//dtd w3 html strict 3.0//en//", "-/w3c/dtd html 4.0 transitional/en", "html")
_QUIRKY_WITHOUT_SYSTEM = ("-//w3c//dtd html 4.01 frameset//", "-//w3c//dtd html 4.01 transitional//")
_IBM = "http://www.ibm.com/data/dtd/v11/ibmxhtml1-transitional.dtd"
_SPACE = "\t\n\f\r "
_BEFORE = re.compile(r"[\t\n\f\r ]*+(?:<!--(?:-?>|.*?--!?>)|<\?[^>]*+>|<!(?!doctype)(?i:[^>]*+)>)",
                     re.DOTALL | re.IGNORECASE)
_KEYWORD = re.compile(r"(?i:public|system)")


def quirks_mode(source: str) -> bool:
    """Whether the parser treats ``source`` in quirks mode."""
    pos = 0
    while (skipped := _BEFORE.match(source, pos)) is not None:
        pos = skipped.end()  # comments and bogus comments may come before the doctype
    while pos < len(source) and source[pos] in _SPACE:
        pos += 1
    if source[pos : pos + 9].lower() != "<!doctype":
        return True
    return _doctype_is_quirky(source, pos + 9)


def _doctype_is_quirky(source: str, pos: int) -> bool:
    """Tokenize the doctype after ``<!DOCTYPE``; any malformation forces quirks mode."""
    pos = _skip_space(source, pos)
    start = pos
    while pos < len(source) and source[pos] not in _SPACE and source[pos] != ">":
        pos += 1
    name = source[start:pos].lower()
    pos = _skip_space(source, pos)
    if not name or pos >= len(source):
        return True
    public = system = None
    if source[pos] != ">":
        keyword = _KEYWORD.match(source, pos)
        if keyword is None:
            return True  # a bogus doctype forces quirks mode
        identifier, pos = _identifier(source, _skip_space(source, keyword.end()))
        if identifier is None:
            return True
        if keyword.group(0).lower() == "public":
            public = identifier
            pos = _skip_space(source, pos)
            if pos < len(source) and source[pos] in "\"'":
                system, pos = _identifier(source, pos)
                if system is None:
                    return True
            elif pos < len(source) and source[pos] != ">":
                return True  # neither a system identifier nor the end: bogus, quirks
        else:
            system = identifier
        if source.find(">", pos) < 0:
            return True
    if name != "html":
        return True
    if public is not None and (public in _QUIRKY_IDS or public.startswith(_QUIRKY_PREFIXES)
                               or (system is None and public.startswith(_QUIRKY_WITHOUT_SYSTEM))):
        return True
    return system == _IBM


def _skip_space(source: str, pos: int) -> int:
    while pos < len(source) and source[pos] in _SPACE:
        pos += 1
    return pos


def _identifier(source: str, pos: int) -> tuple[str | None, int]:
    """A quoted identifier at ``pos`` (lower-cased) and the position after it; None when it is
    missing, unquoted, or cut by ``>`` or the end of the input (all force quirks mode)."""
    if pos >= len(source) or source[pos] not in "\"'":
        return None, pos
    end = source.find(source[pos], pos + 1)
    closing = source.find(">", pos + 1)
    if end < 0 or 0 <= closing < end:
        return None, pos
    return source[pos + 1 : end].lower(), end + 1
