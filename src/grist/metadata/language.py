"""The language of a page's main text: CLD2 (pycld2, its model compiled into the package).

Chosen by measurement among py3langid, pycld2, cld3, fastText's lid.176 and lingua
(``benchmarks/language_ids.py``, docs/decisions.md): as accurate as the best on the shared pages
and 6-8x faster than py3langid, with no download and no dependency. A page's declared language
(``<html lang>``, ``content-language``, ``og:locale``) is used when the text is too short or CLD2
is not sure: templates often declare a language their pages are not written in.
"""

from __future__ import annotations

import re

_MIN_CHARS = 40
_SAMPLE_CHARS = 4000
_LEGACY = {"iw": "he", "in": "id", "ji": "yi", "jw": "jv"}
_UNPRINTABLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
_CODE = re.compile(r"^[a-z]{2,3}$")


def declared_language(values: list[str]) -> str | None:
    """The first declared language tag's primary subtag (``en-GB`` -> ``en``, ``pt_BR`` ->
    ``pt``)."""
    for value in values:
        primary = value.strip().replace("_", "-").split("-")[0].lower()
        if _CODE.match(primary):
            return _LEGACY.get(primary, primary)
    return None


def detect_language(text: str) -> tuple[str | None, bool]:
    """CLD2's guess for ``text`` (an ISO 639-1 code) and whether it is reliable; (None, False)
    for text too short to judge."""
    import pycld2

    sample = _UNPRINTABLE.sub(" ", text[:_SAMPLE_CHARS])
    if len(sample.strip()) < _MIN_CHARS:
        return None, False
    try:
        reliable, _, details = pycld2.detect(sample)
    except pycld2.error:
        return None, False
    code = details[0][1] if details else "un"
    if code in ("un", "xxx"):
        return None, False
    code = code.split("-")[0].lower()
    return _LEGACY.get(code, code), bool(reliable)


def page_language(text: str, declared: list[str]) -> str | None:
    """The language of the main text; the declared one when detection is unsure."""
    detected, reliable = detect_language(text)
    said = declared_language(declared)
    if detected and (reliable or not said):
        return detected
    return said or detected
