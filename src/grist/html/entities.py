"""HTML character references decoded as the standard library's ``html.unescape`` does, without
its failure on a decimal reference of thousands of digits (Python refuses to convert more than
4,300 decimal digits to an int: ``&#000...065;`` raised ValueError out of the extraction)."""

from __future__ import annotations

import html
import re

_LONG_DECIMAL = re.compile(r"&#([0-9]{1000,});?")  # far from Python's 4,300-digit limit
_MAX_DIGITS = 7  # 1,114,111 (U+10FFFF) has 7 digits; beyond it a reference is U+FFFD


def _shortened(found: re.Match[str]) -> str:
    digits = found.group(1).lstrip("0")
    return "\ufffd" if len(digits) > _MAX_DIGITS else f"&#{digits or '0'};"


def unescape(text: str) -> str:
    """``text`` with its character references decoded (``html.unescape``)."""
    if "&#" in text:
        text = _LONG_DECIMAL.sub(_shortened, text)
    return html.unescape(text)
