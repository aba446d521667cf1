"""A YAML front-matter header of a page's metadata, for text and Markdown output.

Every value is written as a JSON string or list, which YAML reads as the same value, so titles
with colons, quotes or ``#`` need no further escaping.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from grist.metadata import Metadata


def front_matter(metadata: Metadata) -> str:
    """``---``, one ``key: value`` line per field the page has, ``---``, then a blank line."""
    lines = ["---"]
    for key, value in metadata.as_dict().items():
        if value in (None, [], ""):
            continue
        lines.append(f"{key}: {json.dumps(value, ensure_ascii=False)}")
    lines.append("---")
    return "\n".join(lines) + "\n\n"
