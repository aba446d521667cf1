"""JSON: the page's metadata, its text, and every block with its decision.

Compact by default: per block only ``text``, ``role``, ``label``, ``score`` (4 decimals) and
``reason`` (for learned methods the short one, e.g. ``p=0.981; context +0.35``), plus
``decided_by`` when a table vote or a cross-page model overrode the method, so that a batch
of pages stays small and cheap to write. With ``explain`` every block also carries its complete
reason (the features that decided it), its structure (tag, path, heading, list, cell, ...), the
method's details (``info``) and its feature values. Non-finite numbers become ``null`` so the
output is always valid JSON.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from grist.document import Block
from grist.features.matrix import FeatureMatrix
from grist.html.load import without_surrogates
from grist.render import RenderOptions
from grist.render.text import render as render_text

if TYPE_CHECKING:  # pragma: no cover
    from grist.render import Extraction

_TEXT_ONLY = RenderOptions()


def _plain(value: Any) -> Any:
    """``value`` with NumPy scalars, tuples, sets and non-finite floats made JSON-safe."""
    if isinstance(value, np.generic):
        value = value.item()
    elif isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(_plain(v) for v in value)
    if value is None or isinstance(value, (str, int, bool)):
        return value
    return str(value)


def compact_block(block: Block) -> dict[str, Any]:
    """One block as the compact JSON output has it (``decided_by`` only when something other
    than the method decided: a data-table vote, a cross-page model)."""
    score = block.score
    record = {
        "text": block.text,
        "role": block.role,
        "label": block.label,
        "score": round(float(score), 4) if score is not None and math.isfinite(score) else None,
        "reason": block.reason,
    }
    if block.decided_by != "page":
        record["decided_by"] = block.decided_by
    return record


def block_dict(block: Block, features: dict[str, float | None] | None = None) -> dict[str, Any]:
    """One block with everything known about it (``features`` must already be JSON-safe)."""
    record: dict[str, Any] = {
        "index": block.index,
        "text": block.text,
        "tag": block.tag,
        "path": block.path,
        "label": block.label,
        "reason": block.reason,
        "score": _plain(block.score),
        "role": block.role,
        "decided_by": block.decided_by,
        "heading": block.heading,
        "list_kind": block.list_kind,
        "list_depth": block.list_depth,
        "list_item": list(block.list_item) if block.list_item else None,
        "definition": list(block.definition) if block.definition else None,
        "cell": list(block.cell) if block.cell else None,
        "preformatted": block.preformatted,
        "code_language": block.code_language,
        "quote_depth": block.quote_depth,
        "region": block.region,
        "depth": block.depth,
        "anchor_words": block.anchor_words,
        "info": _plain(block.info),
    }
    if features is not None:
        record["features"] = features
    return record


def _feature_rows(matrix: FeatureMatrix) -> list[dict[str, float | None]]:
    """One dict per matrix row, non-finite values as None (vectorised: matrices are large)."""
    finite = np.isfinite(matrix.values)
    if finite.all():
        rows = matrix.values.tolist()
    else:
        values = matrix.values.astype(object)
        values[~finite] = None
        rows = values.tolist()
    return [dict(zip(matrix.names, row, strict=True)) for row in rows]


def result_dict(result: Extraction, options: RenderOptions | None = None) -> dict[str, Any]:
    """The whole result as a JSON-ready dict: compact, or with ``options.explain`` every block's
    complete reason, structure and features."""
    explain = options is not None and options.explain
    record: dict[str, Any] = {
        "url": result.url,
        "method": result.method,
        "encoding": result.document.encoding,
        "metadata": result.metadata.as_dict(),
        "text": render_text(result, _TEXT_ONLY),
        "empty_reason": result.empty_reason,
        "warnings": list(result.warnings),
    }
    if result.meta:
        record["meta"] = dict(result.meta)
    if not explain:
        record["blocks"] = [compact_block(b) for b in result.blocks]
        return record
    result = result.explained()
    matrix = result.features
    rows = None
    if matrix is not None and len(matrix) == len(result.blocks):
        rows = _feature_rows(matrix)
    record["blocks"] = [block_dict(b, rows[i] if rows is not None else None)
                        for i, b in enumerate(result.blocks)]
    return record


def dumps(record: dict[str, Any], *, indent: int | None = None) -> str:
    """Serialise a record as JSON without ASCII escapes, one line unless ``indent``; a lone
    surrogate (a file name that is not UTF-8 holds its bytes as such) becomes U+FFFD, so that
    the JSON can always be written as UTF-8."""
    return without_surrogates(json.dumps(record, ensure_ascii=False, indent=indent,
                                         allow_nan=False))


def render(result: Extraction, options: RenderOptions) -> str:
    """The result as indented JSON."""
    return dumps(result_dict(result, options), indent=2)
