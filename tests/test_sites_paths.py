"""Path sets, pathno, the least-pathno threshold and non-content paths (seed 002, Table 1)."""

from __future__ import annotations

import numpy as np
import pytest

from grist.document import Document
from grist.html.parse import parse_document
from grist.segment.blocks import segment
from grist.sites.pathsets import PathSets
from grist.sites.paths import (block_paths, hash_paths, node_paths, paper_notation, show_path,
                               text_step)

# Seed 002's sample documents: the two columns of its "Sample Web document" line.
DOC_1 = "<html><body><h1>IT</h1><br></body></html>"
DOC_2 = "<html><body><h1>Park</h1><br>Gate</body></html>"

# Table 1 as printed; P4 lost its "<br>" step to the conversion of the paper to text
# ("Document\<html>\<body>\ "): the only path with pathno 2 left is the <br> element.
TABLE_1 = {
    "Document\\<html>": 2,
    "Document\\<html>\\<body>": 2,
    "Document\\<html>\\<body>\\<h1>": 2,
    "Document\\<html>\\<body>\\<br>": 2,
    "Document\\<html>\\<body>Gate": 1,
    "Document\\<html>\\<body>\\<h1>IT": 1,
    "Document\\<html>\\<body>\\<h1>Park": 1,
}


def _doc(html: str, url: str | None = None) -> Document:
    return parse_document(Document(html, url=url))


def test_table_1_paths_and_pathno() -> None:
    paths = [node_paths(_doc(DOC_1)), node_paths(_doc(DOC_2))]
    sets = PathSets.build([hash_paths(p) for p in paths])
    names = {int(h): paper_notation(p) for doc in paths for p, h in
             zip(doc, [hash_paths([q])[0] for q in doc], strict=True)}
    table = {names[int(h)]: int(n) for h, n in zip(sets.hashes, sets.pathno, strict=True)}
    assert table == TABLE_1


def test_node_paths_skip_scripts_and_keep_each_path_once() -> None:
    html = ("<html><head><title>x</title><script>var a</script></head><body><ul>"
            "<li>One</li><li>One</li><li>Two <b>2009</b></li></ul></body></html>")
    paths = node_paths(_doc(html), fold_digits=True)
    assert [show_path(p) for p in paths] == [
        "html", "html>body", "html>body>ul", "html>body>ul>li", 'html>body>ul>li "One"',
        'html>body>ul>li "Two"', "html>body>ul>li>b", 'html>body>ul>li>b "0"']


def test_block_paths_are_block_texts_with_their_element_prefixes() -> None:
    doc = _doc("<body><div><p>Read <a href=/>more</a> here</p><p>Copyright 2009</p></div></body>")
    paths = block_paths(segment(doc))
    assert [show_path(p) for p in paths] == [
        "html", "html>body", "html>body>div", "html>body>div>p",
        'html>body>div>p "Read more here"', 'html>body>div>p "Copyright 0"']
    assert text_step("  Copyright\n 2009 ", fold_digits=False) == "Copyright 2009"


def _sets(*docs: list[int]) -> PathSets:
    return PathSets.build([np.array(d, dtype=np.uint64) for d in docs])


def test_threshold_is_the_mode_of_pathno_per_document() -> None:
    # pathno: 1 -> 3 docs, 2 -> 3, 3 -> 2, 4 -> 2, 5..8 -> 1
    sets = _sets([1, 2, 3, 5, 6, 7], [1, 2, 3, 4], [1, 2, 4, 8])
    assert sets.pathno.tolist() == [3, 3, 2, 2, 1, 1, 1, 1]
    # doc 0: pathno 3,3,2,1,1,1 -> mode 1; doc 1: 3,3,2,2 -> tie, the smaller: 2;
    # doc 2: 3,3,2,1 -> 3
    assert sets.thresholds("mode").tolist() == [1, 2, 3]
    assert sets.thresholds("mode-shared").tolist() == [3, 2, 3]
    assert sets.thresholds("shared").tolist() == [2, 2, 2]


def _nc(sets: PathSets, reading: str) -> list[list[int]]:
    rows = sets.non_content(reading)
    return [sorted(sets.hashes[rows.row(d)].tolist()) for d in range(len(rows))]


def test_non_content_paths_under_each_reading() -> None:
    sets = _sets([1, 2, 3, 5, 6, 7], [1, 2, 3, 4], [1, 2, 4, 8])
    assert _nc(sets, "mode") == [[1, 2, 3, 5, 6, 7], [1, 2, 3, 4], [1, 2]]
    assert _nc(sets, "mode-equal") == [[5, 6, 7], [3, 4], [1, 2]]
    assert _nc(sets, "mode-shared") == [[1, 2], [1, 2, 3, 4], [1, 2]]
    assert _nc(sets, "shared") == [[1, 2, 3], [1, 2, 3, 4], [1, 2, 4]]
    with pytest.raises(ValueError, match="unknown threshold"):
        sets.thresholds("median")


def test_documents_without_paths_are_rows_too() -> None:
    sets = _sets([], [4, 4, 9], [])
    assert len(sets.docs) == 3 and sets.pathno.tolist() == [1, 1]
    assert _nc(sets, "mode-shared") == [[], [], []]
    assert _nc(sets, "mode") == [[], [4, 9], []]
