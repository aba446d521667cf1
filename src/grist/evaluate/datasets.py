"""Readers for evaluation datasets: the shared JSON-lines files (see ../shared/datasets/README.md)."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grist.errors import DatasetError


@dataclass
class Page:
    """One evaluation page: its HTML (decoded str), gold main text and optional extras."""

    id: str
    html: str
    gold: str
    dataset: str = ""
    url: str | None = None
    site: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


_KNOWN = {"id", "html", "gold", "dataset", "url", "site"}


def read_jsonl(path: str | Path, limit: int | None = None) -> Iterator[Page]:
    """Yield the pages of a ``.jsonl`` or ``.jsonl.gz`` dataset file."""
    path = Path(path)
    if not path.is_file():
        raise DatasetError(f"dataset file not found: {path}")
    opener = gzip.open if path.suffix == ".gz" else open
    name = path.name.split(".")[0]
    try:
        with opener(path, "rt", encoding="utf-8") as handle:
            for count, line in enumerate(handle):
                if limit is not None and count >= limit:
                    return
                if not line.strip():
                    continue
                record = json.loads(line)
                yield Page(
                    id=str(record["id"]),
                    html=record["html"],
                    gold=record.get("gold") or "",
                    dataset=record.get("dataset") or name,
                    url=record.get("url"),
                    site=record.get("site"),
                    extra={k: v for k, v in record.items() if k not in _KNOWN},
                )
    except (OSError, EOFError, json.JSONDecodeError, KeyError) as exc:
        raise DatasetError(f"cannot read dataset {path}: {exc}") from None
