"""Site models over HTTP (the stand-in RepeatModel) and their saving, which survives kill -9."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from conftest import ARTICLE

from grist.errors import GristError
from grist.io.atomic import remove_stale_temporaries
from grist.service.sites import model_path

TESTS = Path(__file__).resolve().parents[1]


def page(n: int) -> str:
    return ARTICLE.replace("Rivers of the north</h1>", f"Rivers of the north</h1><p>Only on page {n}, "
                           "a paragraph of its own with enough words to stand alone.</p>")


def test_updates_teach_the_site_model_that_extraction_reads(service: str, sites_dir: Path) -> None:
    for n in range(2):
        response = httpx.post(f"{service}/sites/rivers.example/update",
                              json={"html": page(n), "url": f"https://rivers.example/{n}"}, timeout=30)
        assert response.status_code == 200
        assert response.json() == {"site": "rivers.example", "created": n == 0,
                                   "model": "standin_model.RepeatModel"}
    assert model_path(sites_dir, "rivers.example").is_file()
    response = httpx.post(f"{service}/extract", timeout=30, json={
        "html": page(5), "url": "https://rivers.example/5", "site": "rivers.example",
        "format": "json", "method": "justext"})
    assert response.status_code == 200
    blocks = {b["text"]: b for b in response.json()["blocks"]}
    repeated = blocks["Copyright 2024 | Terms | Privacy"]
    assert repeated["decided_by"] == "repeats" and repeated["label"] == "boilerplate"
    assert repeated["reason"].startswith("text on 2 pages of its host")
    own = next(b for t, b in blocks.items() if t.startswith("Only on page 5"))
    assert "decided_by" not in own  # the method decided


@pytest.mark.parametrize(("name", "status"), [("bad name!", 422), ("a" * 200, 422), (".hidden", 422)])
def test_site_names_are_plain_file_names(service: str, name: str, status: int) -> None:
    response = httpx.post(f"{service}/sites/{name}/update", json={"html": ARTICLE}, timeout=30)
    assert response.status_code == status and "a site name is letters" in response.json()["error"]
    assert response.json()["reason"] == "invalid-request"


def test_site_update_needs_a_page(service: str) -> None:
    response = httpx.post(f"{service}/sites/x/update", json={}, timeout=30)
    assert response.status_code == 422 and "give the page as html" in response.json()["error"]


def test_path_names_are_refused(tmp_path: Path) -> None:
    for name in ("..", "a/b", "../etc/passwd", "x\x00"):
        with pytest.raises(GristError):
            model_path(tmp_path, name)


WRITER = """
import sys
from pathlib import Path
sys.path.insert(0, {tests!r})
from standin_model import RepeatModel
from grist.document import RawPage
from grist.service.sites import update_site
n = {start}
while True:
    html = "<p>shared text on every page of the site</p><p>marker %d of this page</p>" % n
    update_site(Path({folder!r}), "killed", RepeatModel, RawPage(html, url="https://k.example/%d" % n))
    n += 1
    print(n, flush=True)
"""


def test_a_site_model_survives_kill_9_mid_save(tmp_path: Path) -> None:
    from standin_model import RepeatModel

    for round_ in range(3):
        script = WRITER.format(tests=str(TESTS), folder=str(tmp_path), start=1000 * round_)
        writer = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
        assert writer.stdout is not None
        for _ in range(5 + 7 * round_):  # let it save several times, then kill it mid-loop
            writer.stdout.readline()
        time.sleep(0.01 * round_)
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait()
        model = RepeatModel.load(model_path(tmp_path, "killed"))  # never half a file
        counts = model.counts_["k.example"]
        markers = sum(1 for text in counts if text.startswith("marker"))
        assert counts["shared text on every page of the site"] == markers >= 5  # whole updates only
    remove_stale_temporaries(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".killed.json.gz.lock", "killed.json.gz"]


def test_site_updates_are_capped_and_take_json(service: str) -> None:
    big = httpx.post(f"{service}/sites/x/update", content=b'{"html": "' + b"x" * 1_100_000 + b'"}',
                     headers={"content-type": "application/json"}, timeout=30)
    assert big.status_code == 413 and big.json()["reason"] == "too-large"
    raw = httpx.post(f"{service}/sites/x/update", content=ARTICLE, timeout=30,
                     headers={"content-type": "text/html"})
    assert raw.status_code == 415 and "/sites/x/update takes JSON" in raw.json()["error"]
