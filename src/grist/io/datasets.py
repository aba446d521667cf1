"""Readers for evaluation datasets: the shared JSON-lines files, a folder of pages, CleanEval.

The shared files are described in ../shared/datasets/README.md. A user folder holds ``NAME.html``
pages with their gold text in ``NAME.txt`` beside them. The CleanEval layout has the pages in
``input/`` (wrapped in ``<text id=... encoding=...>``) and the gold in ``GoldStandard/`` (a
``URL:`` line, then text with ``<p>``/``<h>``/``<l>`` block markers), converted as the shared
datasets were (markers start paragraphs, hard-wrapped lines are joined, entities decoded).
"""

from __future__ import annotations

import codecs
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grist.errors import DatasetError, GristError
from grist.html.decode import decode
from grist.html.entities import unescape
from grist.io.sources import json_records

DEFAULT_DATASETS_DIR = Path(os.environ.get("GRIST_DATASETS", "../shared/datasets"))

# What each shared dataset's gold counts as main text, by block role (``grist.document.ROLES``):
# the roles of which at least half the words are in the gold, measured with the role
# derivation of ``grist.classify.roles`` (docs/training.md has the shares). The current
# convention (modern-dev, wcxb-dev, today's benchmarks and corpus builders) is the body alone;
# the older datasets also count the headline and dek, and some the bylines, captions or readers'
# comments.
BODY_ONLY = frozenset({"body"})
_TITLE = frozenset({"title", "subtitle"})
CONVENTIONS: dict[str, frozenset[str]] = {
    "cleaneval-dev": BODY_ONLY | _TITLE | {"byline", "caption", "comment"},
    "cleaneval-final": BODY_ONLY | _TITLE | {"byline", "caption", "comment"},
    "l3s-gn1": BODY_ONLY | _TITLE | {"byline", "caption"},
    "dragnet": BODY_ONLY | _TITLE | {"byline"},
    "cleanportaleval": BODY_ONLY | _TITLE | {"caption"},
    "readability": BODY_ONLY | {"caption"},
    "modern-dev": BODY_ONLY,
    "wcxb-dev": BODY_ONLY,
}


def gold_convention(dataset: str) -> frozenset[str]:
    """The roles a dataset's gold text holds (the body alone for datasets not listed)."""
    return CONVENTIONS.get(dataset, BODY_ONLY)


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
    """Yield the pages of a ``.jsonl`` or ``.jsonl.gz`` dataset file (a broken line, or a record
    without a string ``html`` and ``gold``, is a DatasetError: a dataset is read whole or not at
    all)."""
    path = Path(path)
    if not path.is_file():
        raise DatasetError(f"dataset file not found: {path}")
    name = path.name.split(".")[0]
    for count, (label, record) in enumerate(json_records(str(path))):
        if limit is not None and count >= limit:
            return
        if isinstance(record, GristError):
            raise DatasetError(f"cannot read dataset {label}: {record}")
        _check_text_fields(label, record)
        yield Page(
            id=str(record.get("id", count + 1)),  # (no id: the record's number in the file)
            html=record["html"],
            gold=record["gold"],
            dataset=record.get("dataset") or name,
            url=_string_or_none(record.get("url")),
            site=_string_or_none(record.get("site")),
            extra={k: v for k, v in record.items() if k not in _KNOWN},
        )


def _check_text_fields(label: str, record: dict[str, Any]) -> None:
    """Refuse a record whose ``html`` or ``gold`` is missing or not a string: a page without
    gold would be scored, or trained on, as one whose main text is nothing (``"gold": ""``
    says so on purpose, and is read)."""
    for field_name in ("html", "gold"):
        if field_name not in record:
            raise DatasetError(f"cannot read dataset {label}: no field '{field_name}'")
        if not isinstance(record[field_name], str):
            raise DatasetError(f"cannot read dataset {label}: its '{field_name}' is not a "
                               "string")


def _string_or_none(value: Any) -> str | None:
    """A record's optional text field: None unless it is a non-empty string."""
    return value if isinstance(value, str) and value else None


def _cp1252_fallback(error: UnicodeDecodeError) -> tuple[str, int]:
    bad = error.object[error.start : error.end]
    return bad.decode("cp1252", errors="replace"), error.end


codecs.register_error("grist-cp1252", _cp1252_fallback)


def _read_text(path: Path) -> str:
    """A gold text file: UTF-8 (BOM honoured), stray invalid bytes read as windows-1252."""
    return path.read_bytes().decode("utf-8-sig", errors="grist-cp1252")


def _read_page(path: Path) -> str:
    try:
        return decode(path.read_bytes())[0]
    except GristError:
        return ""  # an empty or binary file is still a page: the systems' outputs will be empty


def read_folder(path: str | Path, limit: int | None = None) -> Iterator[Page]:
    """Yield the ``*.htm*`` pages of a folder with the gold ``*.txt`` beside each (sorted by
    name); a page without its gold is a DatasetError, as a broken line of a JSON-lines dataset
    is: a dataset is read whole or not at all."""
    folder = Path(path)
    if not folder.is_dir():
        raise DatasetError(f"dataset folder not found: {folder}")
    count = 0
    for page_path in sorted(folder.glob("*.htm*")):
        gold_path = page_path.with_suffix(".txt")
        if not gold_path.is_file():
            raise DatasetError(f"{page_path} has no gold text beside it ({gold_path.name}): a "
                               "dataset folder pairs every NAME.html with its NAME.txt")
        if limit is not None and count >= limit:
            return
        count += 1
        yield Page(page_path.stem, _read_page(page_path), _read_text(gold_path).strip(), folder.name)


_WRAPPER = re.compile(r"\A\s*<text\b([^>]*)>(.*?)(?:</text>\s*)?\Z", re.S | re.I)
_WRAPPER_ID = re.compile(r"""\bid\s*=\s*["']([^"']*)["']""", re.I)
_MARKER = re.compile(r"<(?:p|h|l|h<|>)\s*>?|<p(?=[A-Z])", re.I)


def cleaneval_gold(raw: str) -> str:
    """Convert a CleanEval gold file to plain text with paragraphs separated by a blank line."""
    lines = raw.splitlines()
    if lines and lines[0].startswith("URL:"):
        lines = lines[1:]
    paragraphs: list[str] = []
    current: list[str] = []
    for line in lines + [""]:
        pieces = _MARKER.split(line)
        for number, piece in enumerate(pieces):
            if number > 0 or not line.strip():
                if current:
                    paragraphs.append(" ".join(current))
                current = []
            piece = " ".join(unescape(piece).split())
            if piece:
                current.append(piece)
    return "\n\n".join(paragraphs)


def unwrap_cleaneval_page(source: str) -> tuple[str, str | None]:
    """Strip CleanEval's ``<text id=...>`` crawl wrapper; returns the page and its URL."""
    match = _WRAPPER.match(source)
    if not match:
        return source, None
    url = _WRAPPER_ID.search(match.group(1))
    return match.group(2), url.group(1) if url else None


def read_cleaneval(path: str | Path, limit: int | None = None) -> Iterator[Page]:
    """Yield the pages of a CleanEval-layout folder (``input/``, ``GoldStandard/``)."""
    root = Path(path)
    inputs, golds = root / "input", root / "GoldStandard"
    if not inputs.is_dir() or not golds.is_dir():
        raise DatasetError(f"not a CleanEval folder (needs input/ and GoldStandard/): {root}")
    count = 0
    for page_path in sorted(inputs.iterdir(), key=lambda p: (len(p.stem), p.stem)):
        gold_path = golds / (page_path.stem + ".txt")
        if not page_path.is_file() or not gold_path.is_file():
            continue
        gold = cleaneval_gold(_read_text(gold_path))
        if not gold:
            continue
        if limit is not None and count >= limit:
            return
        count += 1
        source, url = unwrap_cleaneval_page(_read_page(page_path))
        yield Page(page_path.stem, source, gold, root.name, url=url)


def resolve_dataset(spec: str | Path, datasets_dir: str | Path = DEFAULT_DATASETS_DIR) -> Path:
    """A dataset path from a name (``l3s-gn1`` -> DIR/l3s-gn1.jsonl.gz), a file or a folder."""
    path = Path(spec)
    if path.exists():
        return path
    if path.suffix or len(path.parts) > 1:  # a path, not a dataset's name
        raise DatasetError(f"{spec}: no such file or folder")
    candidate = Path(datasets_dir) / f"{spec}.jsonl.gz"
    if candidate.is_file():
        return candidate
    raise DatasetError(f"no dataset {str(spec)!r} (looked for {path} and {candidate})")


def read_dataset(path: str | Path, limit: int | None = None) -> Iterator[Page]:
    """Yield the pages of any supported dataset: JSON-lines file, CleanEval folder, page folder."""
    path = Path(path)
    if path.is_dir():
        if (path / "input").is_dir() and (path / "GoldStandard").is_dir():
            return read_cleaneval(path, limit)
        return read_folder(path, limit)
    return read_jsonl(path, limit)


def page_datasets(folder: str | Path) -> tuple[list[Path], list[Path]]:
    """The page/gold datasets among a folder's ``*.jsonl.gz`` files (those whose first record has
    an ``html`` field), and the others: files of the same name pattern that hold no pages, such as
    the metadata gold ``modern-dev-meta.jsonl.gz``, which a benchmark must not read as pages. A
    file whose first line cannot be read counts as a dataset, so that reading it says why."""
    pages, others = [], []
    for path in sorted(Path(folder).glob("*.jsonl.gz")):
        first = next(json_records(str(path)), None)
        no_pages = first is not None and isinstance(first[1], dict) and "html" not in first[1]
        (others if no_pages else pages).append(path)
    return pages, others


def dataset_name(path: str | Path) -> str:
    """The name pages of this dataset carry in ``Page.dataset``."""
    path = Path(path)
    return path.name if path.is_dir() else path.name.split(".")[0]
