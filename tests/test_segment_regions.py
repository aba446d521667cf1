"""Seed 001 DIV/TD regions, minimum subtree and punctuation filter."""

from grist.document import Block, Document
from grist.html.parse import parse_document
from grist.segment.blocks import segment
from grist.segment.regions import (
    minimum_subtree,
    punctuation_count,
    punctuation_units,
    region_tree,
    unpunctuated_regions,
)

PAGE = """<html><body>
<div id="nav"><a href="/">Home</a> <a href="/world">World</a> <a href="/sport">Sport</a></div>
<div id="wrap">
  <div id="story"><h3>Bridge closed</h3>
    <p>The old bridge was closed on Monday, officials said, after engineers found cracks.</p>
    <p>Repairs will take months; traffic is diverted through the north road.</p>
    <table><tr><td><p>Outer cell text, with a comma.</p><div>Inner div in a cell.</div></td></tr></table>
  </div>
  <div id="related">Related stories Other news More links</div>
</div>
<script>var x = "<div>not a region</div>";</script>
</body></html>"""


def _blocks():
    doc = Document(html=PAGE)
    parse_document(doc)
    return doc, segment(doc)


def test_region_ids_match_segment_and_td_div_are_separate():
    doc, blocks = _blocks()
    tree = region_tree(doc)
    by_text = {b.text: b.region for b in blocks}
    assert tree[by_text["Inner div in a cell."]].tag == "div"
    outer = tree[by_text["Outer cell text, with a comma."]]
    assert outer.tag == "td"
    assert tree[by_text["Inner div in a cell."]].parent == outer.id
    assert tree[by_text["Bridge closed"]].tag == "div"
    assert all(b.region in tree for b in blocks)


def test_minimum_subtree_is_the_story_div():
    doc, blocks = _blocks()
    tree = region_tree(doc)
    inside = minimum_subtree(blocks, tree, share=0.7)
    kept = {b.text for b in blocks if b.region in inside}
    assert "Bridge closed" in kept and "Inner div in a cell." in kept
    assert not any("Home" in t for t in kept) and "Related stories Other news More links" not in kept
    assert minimum_subtree(blocks, tree, share=1.0) == set(tree)  # everything: stays at the page


def test_punctuation_filter_merges_small_regions():
    assert punctuation_count("a, b. c; d: e! f? g。") == 7
    blocks = [
        Block(text="Home World Sport", region=1),  # 3 words, merged with the next
        Block(text="Short title", region=2),  # 2 words
        Block(text="A real paragraph, with punctuation, that is long enough to stand.", region=3),
        Block(text="one two three four five six seven eight nine ten eleven", region=4),
        Block(text="tail", region=5),
    ]
    assert punctuation_units(blocks, min_words=10) == [[1, 2, 3], [4, 5]]
    assert unpunctuated_regions(blocks, min_words=10) == {4, 5}


def test_region_tree_survives_processing_instructions():
    doc = Document(html='<html><body><?xml-stylesheet href="x"?><div><p>Text, here.</p></div></body></html>')
    parse_document(doc)
    blocks = segment(doc)
    tree = region_tree(doc)
    assert tree[blocks[0].region].tag == "div"
