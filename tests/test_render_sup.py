"""Superscripts and subscripts are inline markup: kept in HTML, Markdown (as inline HTML) and
TEI, while the plain text (the model's input) stays as it was."""

from __future__ import annotations

import grist

PAGE = "<p>E = mc<sup>2</sup> and 10<sup>6</sup> cells, H<sub>2</sub>O</p>"


def test_superscripts_and_subscripts_are_kept_in_every_marked_up_format():
    found = grist.extract(PAGE, method="justext")
    found.blocks[0].label = "content"
    assert found.render("text") == "E = mc2 and 106 cells, H2O"
    written = "E = mc<sup>2</sup> and 10<sup>6</sup> cells, H<sub>2</sub>O"
    assert found.render("markdown") == written
    assert f"<p>{written}</p>" in found.render("html")
    assert ('<p>E = mc<hi rend="sup">2</hi> and 10<hi rend="sup">6</hi> cells, '
            'H<hi rend="sub">2</hi>O</p>') in found.render("xml")


def test_markup_inside_a_superscript_is_written_and_its_text_escaped():
    page = "<p>Note<sup><a href='#n1'>[1]</a></sup> and x<sup><em>n</em>*</sup></p>"
    found = grist.extract(page, method="justext")
    found.blocks[0].label = "content"
    assert found.render("markdown", links=True) == (
        "Note<sup>[\\[1\\]](#n1)</sup> and x<sup>*n*\\*</sup>")  # (the page's nesting)
