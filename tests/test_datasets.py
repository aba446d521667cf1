"""Dataset readers: JSON lines, a folder of pages with gold text, the CleanEval layout."""

import gzip
import json

import pytest

from grist.errors import DatasetError
from grist.io.datasets import (
    cleaneval_gold,
    dataset_name,
    page_datasets,
    read_dataset,
    resolve_dataset,
    unwrap_cleaneval_page,
)


def test_jsonl_reader_keeps_extras_and_limit(tmp_path):
    path = tmp_path / "tiny.jsonl.gz"
    records = [
        {"id": "1", "html": "<p>a</p>", "gold": "a", "with": ["a"], "without": []},
        {"id": "2", "html": "<p>b</p>", "gold": "b"},
    ]
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.writelines(json.dumps(r) + "\n" for r in records)
    pages = list(read_dataset(path))
    assert [p.id for p in pages] == ["1", "2"]
    assert pages[0].dataset == "tiny"
    assert pages[0].extra == {"with": ["a"], "without": []}
    assert len(list(read_dataset(path, limit=1))) == 1


def test_a_record_needs_string_html_and_gold_but_no_id(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"html": "<p>a</p>", "gold": "a", "url": 5}) + "\n")
    (page,) = read_dataset(path)
    assert (page.id, page.url) == ("1", None)  # named by its number; a bad url is no url
    for bad, said in (({"html": 123, "gold": "a"}, "'html' is not a string"),
                      ({"html": "<p>a</p>", "gold": ["a"]}, "'gold' is not a string"),
                      ({"gold": "a"}, "no field 'html'"),
                      ({"html": "<p>a</p>", "id": "x"}, "no field 'gold'"),  # (it was gold "")
                      ({"html": "<p>a</p>", "gold": None}, "'gold' is not a string")):
        path.write_text(json.dumps({"html": "<p>b</p>", "gold": "b"}) + "\n" + json.dumps(bad))
        with pytest.raises(DatasetError, match=f"d.jsonl:2: (its )?{said}"):
            list(read_dataset(path))


def test_an_explicitly_empty_gold_is_read(tmp_path):
    """A page whose main text is nothing says so with ``"gold": ""`` (wcxb-dev has 14)."""
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"html": "<p>a</p>", "gold": ""}) + "\n")
    assert [p.gold for p in read_dataset(path)] == [""]


def test_json_lines_are_read_by_their_bytes_whatever_their_name(tmp_path):
    line = json.dumps({"id": "1", "html": "<p>a</p>", "gold": "a"}) + "\n"
    (tmp_path / "plain.jsonl.gz").write_text(line)  # named .gz, not compressed
    (tmp_path / "packed.jsonl").write_bytes(gzip.compress(line.encode()))  # compressed, no .gz
    for name in ("plain.jsonl.gz", "packed.jsonl"):
        assert [p.gold for p in read_dataset(tmp_path / name)] == ["a"]


def test_page_datasets_tell_pages_from_other_records(tmp_path):
    def write(name, lines):
        with gzip.open(tmp_path / name, "wt", encoding="utf-8") as handle:
            handle.writelines(line + "\n" for line in lines)

    write("news.jsonl.gz", [json.dumps({"id": "1", "html": "<p>a</p>", "gold": "a"})])
    write("news-meta.jsonl.gz", [json.dumps({"id": "1", "title": "A"})])
    write("broken.jsonl.gz", ["{not json"])  # kept: reading it names the broken line
    (tmp_path / "notes.txt").write_text("not a dataset")
    pages, others = page_datasets(tmp_path)
    assert [p.name for p in pages] == ["broken.jsonl.gz", "news.jsonl.gz"]
    assert [p.name for p in others] == ["news-meta.jsonl.gz"]
    with pytest.raises(DatasetError, match="broken.jsonl.gz:1"):
        list(read_dataset(pages[0]))


def test_folder_reader_pairs_html_with_txt(tmp_path):
    (tmp_path / "a.html").write_bytes(b"<meta charset=cp1252><p>caf\xe9</p>")
    (tmp_path / "a.txt").write_bytes("café ".encode() + b"\x93ok\x94\n")
    pages = list(read_dataset(tmp_path))
    assert [p.id for p in pages] == ["a"]
    assert "café" in pages[0].html
    assert pages[0].gold == "café “ok”"  # invalid UTF-8 bytes read as windows-1252
    (tmp_path / "b.html").write_text("<p>no gold</p>")  # a page without its gold: said, not lost
    with pytest.raises(DatasetError, match=r"b.html has no gold text beside it \(b.txt\)"):
        list(read_dataset(tmp_path))
    assert pages[0].dataset == dataset_name(tmp_path)


def test_cleaneval_gold_conversion():
    raw = "URL: http://x.org/\n<h>A title\n<p>Text that is\nhard wrapped &amp; long\n\n<l>item one\n"
    assert cleaneval_gold(raw) == "A title\n\nText that is hard wrapped & long\n\nitem one"


def test_cleaneval_layout(tmp_path):
    (tmp_path / "input").mkdir()
    (tmp_path / "GoldStandard").mkdir()
    page = '<text id="http://x.org/1" title="t" encoding="utf-8">\n<html><p>Hi</p></html>\n</text>'
    (tmp_path / "input" / "10.html").write_text(page)
    (tmp_path / "GoldStandard" / "10.txt").write_text("URL: http://x.org/1\n<p>Hi\n")
    (tmp_path / "input" / "2.html").write_text("<p>x</p>")
    (tmp_path / "GoldStandard" / "2.txt").write_text("URL: y\n")  # empty gold: skipped
    pages = list(read_dataset(tmp_path))
    assert [(p.id, p.gold, p.url) for p in pages] == [("10", "Hi", "http://x.org/1")]
    assert pages[0].html.strip() == "<html><p>Hi</p></html>"


def test_unwrap_leaves_plain_pages_alone():
    assert unwrap_cleaneval_page("<html></html>") == ("<html></html>", None)


def test_resolve_dataset_by_name(tmp_path):
    (tmp_path / "demo.jsonl.gz").write_bytes(b"")
    assert resolve_dataset("demo", tmp_path) == tmp_path / "demo.jsonl.gz"
    with pytest.raises(DatasetError):
        resolve_dataset("missing", tmp_path)
