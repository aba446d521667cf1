"""Where a benchmark's Markdown report goes: standard output, and the file named by ``--out``
(or ``--report``) when there is one."""

from __future__ import annotations

from pathlib import Path


def publish(text: str, out: Path | str | None) -> int:
    """Print ``text``, write it to ``out`` when given (ending in a newline); exit status 0."""
    print(text)
    if out:
        Path(out).write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    return 0
