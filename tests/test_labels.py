"""Labels from gold text: shingle alignment, repeated text, coverage."""

from __future__ import annotations

from grist.document import BOILERPLATE, CONTENT, Document
from grist.html.parse import parse_document
from grist.segment.blocks import segment
from grist.train.labels import align, apply_labels

LEAD = "The council voted on Tuesday to rebuild the old stone bridge over the river"
BODY = "Work will start in spring and the road will stay closed for about eight months"
PAGE = (
    "<html><head><title>Bridge</title></head><body>"
    "<ul><li><a href=/>Home</a></li><li><a href=/news>News</a></li></ul>"
    f"<div class=teaser><p>{LEAD}</p></div>"
    "<h1>Council backs new bridge</h1>"
    f"<p>{LEAD}.</p><p>{BODY}.</p>"
    "<div class=footer>Contact us | Privacy</div></body></html>"
)
GOLD = f"Council backs new bridge\n\n{LEAD}.\n\n{BODY}.\n\nA paragraph the page never had."


def blocks_of(html: str):
    return segment(parse_document(Document(html=html)))


def test_align_labels_article_and_drops_navigation_and_footer():
    blocks = blocks_of(PAGE)
    result = align(blocks, GOLD)
    by_text = {b.text: keep for b, keep in zip(blocks, result.labels, strict=True)}
    assert by_text["Council backs new bridge"]
    assert by_text[BODY + "."]
    assert not by_text["Home"] and not by_text["News"]
    assert not by_text["Contact us | Privacy"]


def test_repeated_teaser_is_not_content_twice():
    blocks = blocks_of(PAGE)
    result = align(blocks, GOLD)
    lead_labels = [keep for b, keep in zip(blocks, result.labels, strict=True) if LEAD in b.text]
    # The teaser precedes the headline, so only the copy in gold order is kept.
    assert lead_labels == [False, True]


def test_coverage_counts_gold_words_the_page_lacks():
    blocks = blocks_of(PAGE)
    result = align(blocks, GOLD)
    missing = 6  # "A paragraph the page never had."
    assert result.gold_words == len(GOLD.split())  # (no punctuation stands alone here)
    assert abs(result.coverage - (result.gold_words - missing) / result.gold_words) < 1e-9


def test_apply_labels_writes_label_score_and_reason():
    blocks = blocks_of(PAGE)
    apply_labels(blocks, align(blocks, GOLD))
    assert blocks[0].label == BOILERPLATE and blocks[0].score == 0.0
    headline = next(b for b in blocks if b.text.startswith("Council"))
    assert headline.label == CONTENT and headline.score == 1.0
    assert headline.reason == "gold match 1.00"


def test_empty_gold_labels_nothing():
    blocks = blocks_of(PAGE)
    result = align(blocks, "")
    assert not any(result.labels) and result.coverage == 1.0


def test_gold_that_splits_code_at_its_highlighting_still_labels_the_code_block():
    # Some gold texts put every highlighted element of a code line on a line of its own; the
    # words are the same as the block's, only the whitespace between them differs.
    page = ("<html><body><p>Filter the entries by their date and print each headline.</p>"
            "<pre><code><span>for</span> e <span>in</span> Entry.objects.filter(pub_date=today):"
            "\n    <span>print</span>(e.headline)</code></pre><p>Related: more posts</p>"
            "</body></html>")
    gold = ("Filter the entries by their date and print each headline.\n\nfor\n\ne\n\nin\n\n"
            "Entry\n\n.\n\nobjects\n\n.\n\nfilter\n\n(\n\npub_date\n\n=\n\ntoday\n\n):\n\n"
            "print\n\n(\n\ne\n\n.\n\nheadline\n\n)")
    blocks = blocks_of(page)
    result = align(blocks, gold)
    by_text = {b.text.split()[0]: keep for b, keep in zip(blocks, result.labels, strict=True)}
    assert by_text["for"] and by_text["Filter"] and not by_text["Related:"]
    assert result.coverage == 1.0


def test_short_blocks_repeated_next_to_each_other_are_each_content():
    # a table of short cells: each "Yes" has a gold place of its own, one word after the other's
    page = ("<html><body><p>Which plans include backups and support, as the table shows.</p>"
            "<table><tr><td>Backups</td><td>Yes</td><td>Yes</td><td>No</td></tr>"
            "<tr><td>Support</td><td>Yes</td><td>Yes</td><td>Yes</td></tr></table>"
            "<ul><li><a href=/>Yes</a></li></ul></body></html>")
    gold = ("Which plans include backups and support, as the table shows.\n\n"
            "Backups Yes Yes No\n\nSupport Yes Yes Yes")
    blocks = blocks_of(page)
    labels = align(blocks, gold).labels
    assert [b.text for b in blocks][1:] == ["Backups", "Yes", "Yes", "No", "Support", "Yes",
                                            "Yes", "Yes", "Yes"]
    assert labels == [True] * 9 + [False]  # the menu's "Yes" after the table is not gold
