"""grist batch --site-aware: hosts with enough pages get a site model fitted on their pages
(scanned, then read back from where they are), and their pages are extracted with it."""

from __future__ import annotations

import json

from test_batch import grist, outputs
from warc_files import http_response, warc_record, write_warc

NAV = "Home page of the Daily Example with Sport and Weather"


def page(host: str, number: int) -> bytes:
    html = (f"<html><body><div>{NAV}</div><h1>Story {number} from {host}</h1><p>The story "
            f"number {number} tells something new about {host} in many words.</p></body></html>")
    return warc_record("response", number, http_response(html.encode()),
                       url=f"https://www.{host}/story/{number}")


def test_site_models_for_hosts_with_enough_pages(tmp_path):
    write_warc(tmp_path / "a.warc.gz", [page("big.example", n) for n in range(4)]
               + [page("small.example", n) for n in range(10, 13)])
    lines = [json.dumps({"html": f"<html><body><div>{NAV}</div><p>Story {n} from big.example "
                         "has its own words here.</p></body></html>",
                         "url": f"https://big.example/j/{n}"}) for n in range(2)]
    (tmp_path / "b.jsonl").write_text("\n".join(lines) + "\n")
    common = ["--plugin", "batch_plugin", "--method", "fragile", "-j", "2",
              str(tmp_path / "a.warc.gz"), str(tmp_path / "b.jsonl")]
    plain = grist("batch", *common, "--out", str(tmp_path / "plain"))
    assert plain.returncode == 0, plain.stderr
    assert all(NAV in r["text"] for r in outputs(tmp_path / "plain"))
    sited = grist("batch", *common, "--out", str(tmp_path / "sited"), "--site-aware",
                  "--site-model", "standin_model:RepeatModel", "--site-min-pages", "5")
    assert sited.returncode == 0, sited.stderr
    records = outputs(tmp_path / "sited")
    big = [r for r in records if "big.example" in r["url"]]
    small = [r for r in records if "small.example" in r["url"]]
    assert len(big) == 6 and len(small) == 3
    assert all(NAV not in r["text"] and "Story" in r["text"] for r in big)
    assert all(NAV in r["text"] for r in small)
    index = json.loads((tmp_path / "sited" / "sites" / "index.json").read_text())
    assert index == {"big.example": "site-00000.json.gz"}


TEMPLATE = ("The Daily Example is an independent local newspaper published in the valley since "
            "1901 by its readers.")


def test_grist_site_model_is_the_default(tmp_path):
    """Without --site-model the job fits grist's own SiteModel (seed 002's template paths)."""
    def templated(number: int) -> bytes:
        words = " ".join(f"word{number}x{k}" for k in range(40))
        html = (f"<html><body><div class=nav><a href=/>{NAV}</a></div>"
                f"<div class=main><h1>Story {number}</h1><p>Story {number}: {words}.</p>"
                f"<p>More of story {number}: {words}.</p>"
                f"<p>{TEMPLATE}</p></div>"  # auto keeps it; only the site shows it is a template
                "<div class=foot><p>Copyright the Daily Example, all rights kept</p></div>"
                "</body></html>")
        return warc_record("response", number, http_response(html.encode()),
                           url=f"https://news.example/story/{number}")

    write_warc(tmp_path / "a.warc.gz", [templated(n) for n in range(8)])
    common = ["-j", "1", str(tmp_path / "a.warc.gz")]  # auto, the default
    plain = grist("batch", *common, "--out", str(tmp_path / "plain"))
    sited = grist("batch", *common, "--out", str(tmp_path / "sited"), "--site-aware")
    assert plain.returncode == 0 and sited.returncode == 0, sited.stderr
    before, after = outputs(tmp_path / "plain"), outputs(tmp_path / "sited")
    assert len(after) == 8
    assert sum(TEMPLATE in r["text"] for r in before) == 8
    assert not any(TEMPLATE in r["text"] for r in after)
    assert all(f"Story {n}:" in r["text"] for n, r in enumerate(after))
    index = json.loads((tmp_path / "sited" / "sites" / "index.json").read_text())
    assert list(index) == ["news.example"]


def test_a_method_without_dom_paths_gets_a_clear_note():
    import grist
    from grist.sites import SiteModel

    pages = [grist.RawPage(f"<html><body><div class=nav><a href=/>{NAV}</a></div><p>Story {n} "
                           "tells something new in many words of its own today.</p></body></html>",
                           url=f"https://news.example/{n}") for n in range(6)]
    model = SiteModel().fit(pages)
    result = grist.extract(pages[0], method="lineblock", site=model)
    assert any("blocks have none" in w and "page-level result" in w for w in result.warnings)
