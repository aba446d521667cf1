"""The Ray executor on a local Ray instance writes the very files the local executor writes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from grist.batch.job import JobConfig
from grist.batch.run import BatchOptions, run_job
from grist.io.sinks import Summary
from warc_files import page_html, response, write_warc

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def local_ray():
    sys.path.insert(0, str(Path(__file__).parent))
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": str(Path(__file__).parent)}})
    yield
    ray.shutdown()


def test_ray_writes_what_local_writes(tmp_path, local_ray):
    inputs = []
    for number in range(2):
        path = tmp_path / f"c{number}.warc.gz"
        write_warc(path, [response(n, page_html(n, f"crawl {number}")) for n in range(20)]
                   + [response(99, b"\x89PNG\r\n\x1a\n", content_type="image/png")])
        inputs.append(str(path))
    folder = tmp_path / "pages"
    folder.mkdir()
    for n in range(5):
        (folder / f"{n}.html").write_text(page_html(100 + n))
    inputs.append(str(folder))
    config = JobConfig(method="fragile", plugins=("batch_plugin",), output_format="jsonl.gz")
    written = {}
    for executor in ("local", "ray"):
        summary = Summary("batch")
        run_job(inputs, config, tmp_path / executor, BatchOptions(jobs=2, executor=executor),
                summary)
        assert (summary.pages, summary.results, dict(summary.errors)) == (47, 45, {"not-html": 2})
        written[executor] = {p.name: p.read_bytes()
                             for p in sorted((tmp_path / executor).glob("shard-*"))}
    assert sorted(written["ray"]) == ["shard-00000.done", "shard-00000.jsonl.gz",
                                      "shard-00001.done", "shard-00001.jsonl.gz",
                                      "shard-00002.done", "shard-00002.jsonl.gz"]
    assert written["ray"] == written["local"]
