"""grist's datatrove step in a datatrove LocalPipelineExecutor pipeline over a WARC file."""

from __future__ import annotations

import gzip
import json

import pytest

import grist
from warc_files import page_html, response, write_warc

pytest.importorskip("datatrove")
pytest.importorskip("warcio")


def test_pipeline_over_a_warc(tmp_path):
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.readers import WarcReader
    from datatrove.pipeline.writers import JsonlWriter

    from grist.integrations.datatrove import GristExtractor

    (tmp_path / "crawl").mkdir()
    pages = [page_html(n) for n in range(4)]
    write_warc(tmp_path / "crawl" / "a.warc.gz",
               [response(n, html) for n, html in enumerate(pages)]
               + [response(9, "<html><body><script>x()</script></body></html>")])
    executor = LocalPipelineExecutor(
        pipeline=[WarcReader(str(tmp_path / "crawl"), glob_pattern="*.warc.gz"),
                  GristExtractor(method="lineblock"),
                  JsonlWriter(str(tmp_path / "out"), compression="gzip")],
        tasks=1, workers=1, logging_dir=str(tmp_path / "logs"))
    executor.run()
    with gzip.open(next((tmp_path / "out").glob("*.jsonl.gz")), "rt") as handle:
        docs = [json.loads(line) for line in handle]
    assert [d["metadata"]["url"] for d in docs] == [f"https://site{n % 3}.example/{n}"
                                                    for n in range(4)]
    for doc, html in zip(docs, pages, strict=True):
        expected = grist.extract(html, url=doc["metadata"]["url"], method="lineblock")
        assert doc["text"] == expected.text and doc["metadata"]["title"] == expected.title
    stats = json.loads(next((tmp_path / "logs" / "stats").glob("*.json")).read_text())
    step = next(s for s in stats if "grist" in s["name"])
    assert step["stats"]["error:no-text"] == 1 and step["stats"]["extracted"] == 4
