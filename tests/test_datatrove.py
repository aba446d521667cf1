"""grist's datatrove step: in a datatrove LocalPipelineExecutor pipeline over a WARC file, and
on its own over Documents (option checks, the model load outside the timeout, exceptions)."""

from __future__ import annotations

import dataclasses
import gzip
import json
import pickle
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import grist
from grist.errors import ConfigError, ModelError, UnknownFormatError, UnknownMethodError
from grist.methods import unregister_method
from standin_method import METHOD as STANDIN
from warc_files import page_html, response, write_warc

pytest.importorskip("datatrove")
pytest.importorskip("warcio")


def run_pipeline(tmp_path: Path, records: list[bytes]) -> tuple[list[dict], dict[str, Any]]:
    """WarcReader -> GristExtractor(lineblock) -> JsonlWriter over a WARC of ``records``: the
    documents written and the grist step's stats."""
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.readers import WarcReader
    from datatrove.pipeline.writers import JsonlWriter

    from grist.integrations.datatrove import GristExtractor

    (tmp_path / "crawl").mkdir()
    write_warc(tmp_path / "crawl" / "a.warc.gz", records)
    executor = LocalPipelineExecutor(
        pipeline=[WarcReader(str(tmp_path / "crawl"), glob_pattern="*.warc.gz"),
                  GristExtractor(method="lineblock"),
                  JsonlWriter(str(tmp_path / "out"), compression="gzip")],
        tasks=1, workers=1, logging_dir=str(tmp_path / "logs"))
    executor.run()
    with gzip.open(next((tmp_path / "out").glob("*.jsonl.gz")), "rt") as handle:
        docs = [json.loads(line) for line in handle]
    stats = json.loads(next((tmp_path / "logs" / "stats").glob("*.json")).read_text())
    return docs, next(s for s in stats if "grist" in s["name"])["stats"]


def test_pipeline_over_a_warc(tmp_path):
    pages = [page_html(n) for n in range(4)]
    docs, stats = run_pipeline(tmp_path, [response(n, html) for n, html in enumerate(pages)]
                               + [response(9, "<html><body><script>x()</script></body></html>")])
    assert [d["metadata"]["url"] for d in docs] == [f"https://site{n % 3}.example/{n}"
                                                    for n in range(4)]
    for doc, html in zip(docs, pages, strict=True):
        expected = grist.extract(html, url=doc["metadata"]["url"], method="lineblock")
        assert doc["text"] == expected.text and doc["metadata"]["title"] == expected.title
    assert stats["error:no-text"] == 1 and stats["extracted"] == 4


def test_a_brotli_record_is_read_with_the_brotli_package(tmp_path):
    """warcio's own br decompressor cannot be built with the brotli package (FastWARC's): the
    record raised AttributeError in WarcReader and ended the task."""
    brotli = pytest.importorskip("brotli")
    html = page_html(5)
    docs, stats = run_pipeline(tmp_path, [response(4), response(5, brotli.compress(html.encode()),
                                                                extra="Content-Encoding: br\r\n")])
    assert [d["metadata"]["url"] for d in docs] == ["https://site1.example/4",
                                                    "https://site2.example/5"]
    assert docs[1]["text"] == grist.extract(html, method="lineblock").text
    assert stats["extracted"] == 2


@pytest.mark.parametrize(("option", "error"), [
    ({"method": "nosuchmethod"}, UnknownMethodError),
    ({"text_format": "bogus"}, UnknownFormatError),
    ({"model": "/nonexistent.model"}, ModelError),
    ({"timeout": 0}, ConfigError),
])
def test_options_are_checked_when_the_step_is_made(option, error):
    """(They were checked in the sandbox, once per document: each waited its whole timeout.)"""
    from grist.integrations.datatrove import GristExtractor

    with pytest.raises(error):
        GristExtractor(**option)


def counts(step: Any) -> dict[str, float]:
    """The step's stats that count documents (not their lengths), by name."""
    return {name: metric.total for name, metric in step.stats.stats.items() if name != "doc_len"}


def documents(urls: list[Any]) -> Iterator[Any]:
    """A datatrove Document of an article page per URL."""
    from datatrove.data import Document

    return (Document(text=page_html(n), id=str(n), metadata={"url": url})
            for n, url in enumerate(urls))


LOAD_SECONDS = 1.5  # the slow method's model load, twice the step's timeout


@pytest.fixture
def slow_load() -> Iterator[str]:
    """The stand-in method with a model load of LOAD_SECONDS, registered for one test."""
    grist.register_method("slowload", dataclasses.replace(
        STANDIN, name="slowload", load=lambda config: time.sleep(LOAD_SECONDS)))
    yield "slowload"
    unregister_method("slowload")


@pytest.mark.parametrize("pickled", [False, True], ids=["as-made", "unpickled-by-a-worker"])
def test_the_model_load_is_not_charged_to_a_documents_timeout(slow_load, pickled):
    """(The sandbox process loaded it in its warm-up, under the timeout: every page timed out.)"""
    from grist.integrations.datatrove import GristExtractor

    step = GristExtractor(method=slow_load, timeout=LOAD_SECONDS / 2)
    if pickled:
        step = pickle.loads(pickle.dumps(step))
    kept = list(step.run(documents([f"https://a.example/{n}" for n in range(3)])))
    assert len(kept) == 3
    assert counts(step) == {"total": 3, "extracted": 3, "forwarded": 3}


def test_an_exception_drops_the_document_not_the_sandbox():
    """A URL that is not a str raised TypeError in the sandbox, which killed its process; one
    that cannot be pickled raised out of the step and ended the task."""
    from grist.integrations.datatrove import GristExtractor

    step = GristExtractor(method="lineblock", timeout=2)
    assert step.extract("<p>a page</p>", 12345) == {
        "error": "clean_error", "message": "TypeError: url must be a str or None, not int"}
    kept = list(step.run(documents([12345, lambda: 0, "https://a.example/2"])))
    assert [doc.id for doc in kept] == ["2"]
    assert counts(step) == {"total": 3, "clean_error": 2, "dropped": 2, "extracted": 1,
                            "forwarded": 1}
