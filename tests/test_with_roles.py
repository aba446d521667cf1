"""The body is the text; ``with_title``, ``with_byline``, ``with_captions`` and ``with_comments``
(API) and ``--with-*`` (``grist extract``) add the blocks of those roles."""

from __future__ import annotations

import pytest

import grist
from grist.cli import main
from grist.document import BOILERPLATE, CONTENT, Document
from grist.methods import Labelled, Method, PageContext, unregister_method
from grist.segment.blocks import segment

PAGE = ("<html><body><h1>Headline</h1><p>By A. Writer</p><p>The body paragraph one.</p>"
        "<p>Photo: the harbour at dawn</p><p>The body paragraph two.</p>"
        "<p>Comment: nice story</p><p>Home | About</p></body></html>")
ROLES = {"Headline": "title", "By A. Writer": "byline", "Photo: the harbour at dawn": "caption",
         "Comment: nice story": "comment", "Home | About": "navigation"}


def _run(doc: Document, config: object, ctx: PageContext) -> Labelled:
    blocks = segment(doc)
    for block in blocks:
        block.role = ROLES.get(block.text, "body")
        block.label = CONTENT if block.role == "body" else BOILERPLATE
        block.reason = f"role {block.role}"
    return Labelled(blocks, reasons=lambda: [f"full: {b.role}" for b in blocks])


@pytest.fixture
def roles_method():
    grist.register_method("withroles", Method("withroles", "roles stand-in", object, _run))
    yield "withroles"
    unregister_method("withroles")


BODY = "The body paragraph one.\n\nThe body paragraph two."


def test_the_text_is_the_body_and_options_add_roles(roles_method):
    assert grist.extract(PAGE, method=roles_method).text == BODY
    titled = grist.extract(PAGE, method=roles_method, with_title=True)
    assert titled.text == "Headline\n\n" + BODY
    everything = grist.Extractor(method=roles_method, with_title=True, with_byline=True,
                                 with_captions=True, with_comments=True)(PAGE)
    assert everything.text == ("Headline\n\nBy A. Writer\n\nThe body paragraph one.\n\nPhoto: the "
                               "harbour at dawn\n\nThe body paragraph two.\n\nComment: nice story")
    assert "Home | About" not in everything.text  # navigation is never added
    added = next(b for b in everything.blocks if b.text == "Headline")
    assert added.role == "title" and added.reason == "role title; title, kept on request"
    explained = everything.explained()  # the on-demand reasons say it too
    assert next(b for b in explained.blocks if b.text == "Headline").reason == \
        "full: title; title, kept on request"


def test_including_leaves_the_original_result_alone(roles_method):
    result = grist.extract(PAGE, method=roles_method)
    captions = result.including({"caption"})
    assert "Photo: the harbour at dawn" in captions.text and result.text == BODY
    assert result.including({"nonexistent"}) is result


def test_methods_without_roles_are_unaffected():
    plain = grist.extract(PAGE, method="justext")
    assert grist.extract(PAGE, method="justext", with_title=True).text == plain.text


def test_cli_flags(roles_method, tmp_path, capsys):
    page = tmp_path / "page.html"
    page.write_text(PAGE)
    assert main(["extract", "--method", roles_method, str(page)]) == 0
    assert capsys.readouterr().out.strip() == BODY
    assert main(["extract", "--method", roles_method, "--with-title", "--with-captions",
                 str(page)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Headline\n\n") and "Photo: the harbour" in out and "By A." not in out


ARTICLE = ("<html><head><title>Council debates the quay plan - Town News</title></head><body>"
           "<nav><a href=/>Home</a> <a href=/n>News</a></nav><article>"
           "<h1>Council debates the quay plan</h1><p class=byline>By Ann Reporter</p>"
           + "".join(f"<p>The harbour council met on Tuesday evening to discuss plan number {i} "
                     "for the old quay, and residents who attended said the debate went on "
                     "until late at night, with many questions about cost.</p>" for i in range(6))
           + "</article><footer>Copyright 2024 Town News</footer></body></html>")


def test_auto_names_the_title_and_workers_honour_the_flags(tmp_path, capsys):
    folder = tmp_path / "pages"
    folder.mkdir()
    for name in ("a.html", "b.html"):
        (folder / name).write_text(ARTICLE)
    assert main(["extract", "--quiet", "-j", "2", str(folder)]) == 0  # worker processes
    body = capsys.readouterr().out
    assert body.count("plan number 0 ") == 2 and "Council debates" not in body
    assert main(["extract", "--quiet", "-j", "2", "--with-title", str(folder)]) == 0
    titled = capsys.readouterr().out
    assert titled.count("Council debates the quay plan\n\nThe harbour council met") == 2
    assert titled.replace("Council debates the quay plan\n\n", "") == body


def test_with_comments_adds_the_comments_not_a_page_whose_html_class_mentions_them():
    # ``<html class="feature_newcomments">`` describes the site, not each block under it
    page = ARTICLE.replace("<html>", "<html class='feature_newcomments'>").replace(
        "</article>", "</article><div class=teasers><a href=/x>Ten quays to visit this summer</a>"
                      "<a href=/y>Sign in to your account</a></div><div class=comments><p>I went "
                      "to the meeting and the plan for the old quay is far too costly.</p></div>")
    body = grist.extract(page).text
    with_comments = grist.extract(page, with_comments=True).text
    assert "plan number 0 " in body and "far too costly" not in body
    assert with_comments.startswith(body) and "far too costly" in with_comments
    assert "Ten quays" not in with_comments and "Sign in" not in with_comments
