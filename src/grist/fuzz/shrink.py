"""Shrink a failing input to a small reproducer (delta debugging: drop chunks while it still fails)
and save it with a note in the format of the shared reproducers."""

from __future__ import annotations

import dataclasses
import gzip
import json
import time
from collections.abc import Callable
from pathlib import Path

from grist.fuzz.cases import Case
from grist.fuzz.pool import Worker, job_of


def signature(record: dict, failure: str) -> str:
    """What must stay the same while shrinking: the failure kind and, for a crash, the exception
    type and the innermost grist function (line numbers move; functions rarely do)."""
    if failure != "crash":
        return failure
    sites = record.get("where", "").partition(" @ ")[2].split(" <- ")
    file_line, _, function = ([s for s in sites if s.startswith("grist/")] or sites)[0].partition(" ")
    return f"crash {record.get('kind')} {file_line.split(':')[0]} {function}"


def ddmin(content: bytes | str, fails: Callable[[bytes | str], bool], max_tests: int,
          max_seconds: float) -> bytes | str:
    """The smallest content found by removing chunks (halves, quarters, ...) that keeps failing."""
    deadline = time.monotonic() + max_seconds
    tests, parts = 0, 2
    while len(content) >= 2 and tests < max_tests and time.monotonic() < deadline:
        size = -(-len(content) // parts)
        for start in range(0, len(content), size):
            candidate = content[:start] + content[start + size :]
            tests += 1
            if candidate and fails(candidate):
                content, parts = candidate, max(parts - 1, 2)
                break
            if tests >= max_tests or time.monotonic() >= deadline:
                return content
        else:
            if parts >= len(content):
                break
            parts = min(len(content), parts * 2)
    return content


def shrink(case: Case, method: str, record: dict, failure: str, worker: Worker,
           classify: Callable[[dict], str | None], *, max_tests: int = 300,
           max_seconds: float = 600.0) -> Case:
    """A smaller case that fails the same way (``classify`` names a record's failure)."""
    wanted = signature(record, failure)

    def fails(content: bytes | str) -> bool:
        trial = dataclasses.replace(case, content=content)
        answer = worker.run(job_of(trial, method, -1))
        kind = classify(answer)
        return kind is not None and signature(answer, kind) == wanted

    small = ddmin(case.content, fails, max_tests, max_seconds)
    return dataclasses.replace(case, content=small, detail=f"{case.detail}; shrunk")


def save_reproducer(folder: Path, number: int, case: Case, method: str, record: dict,
                    failure: str) -> Path:
    """Write ``NN-failure-family-method.html[.gz]`` and its JSON note (the shared cases' format:
    signature, method, input_mode, url, message, size_bytes, generator, files) plus the seed."""
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"{number:02d}-{failure}-{case.family}-{method}"
    data = case.content if isinstance(case.content, bytes) else \
        case.content.encode("utf-8", "surrogatepass")
    name = f"{stem}.html.gz" if len(data) > 100_000 else f"{stem}.html"
    (folder / name).write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    where = record.get("where", "")
    note = {
        "signature": f"{failure} {record.get('kind', '')} @ {where}".strip(),
        "method": method,
        "input_mode": "bytes" if isinstance(case.content, bytes) else "str",
        "url": case.url,
        "http_charset": case.http_charset,
        "message": record.get("message"),
        "size_bytes": len(data),
        "generator": case.family,
        "detail": case.detail,
        "seed": case.seed,
        "index": case.index,
        "files": [name],
    }
    (folder / f"{stem}.json").write_text(json.dumps(note, indent=1, ensure_ascii=False) + "\n")
    return folder / name


def load_reproducers(folder: Path) -> list[tuple[Case, str | None]]:
    """The cases of a folder of reproducers (notes + inputs), each with the method its note names."""
    found = []
    for path in sorted(folder.glob("*.json")):
        note = json.loads(path.read_text(encoding="utf-8"))
        data = (folder / note["files"][0]).read_bytes()
        if note["files"][0].endswith(".gz"):
            data = gzip.decompress(data)
        content: bytes | str = data
        if note.get("input_mode") == "str":
            content = data.decode("utf-8", "surrogatepass")
        case = Case(path.stem, content, url=note.get("url"), http_charset=note.get("http_charset"),
                    detail=note.get("signature", ""))
        found.append((case, note.get("method")))
    return found
