"""A page without visible text: the error says so, and says why when the page is a script shell."""

import pytest

import grist
from grist.document import RawPage
from grist.errors import NoTextError
from grist.sites.pages import PageError, read_page

# What a forum served to a crawler looks like when its posts are drawn by the browser: a splash
# section, preloaded scripts, no text.
SHELL = (
    '<html><head><title>Which telescope first?</title>'
    '<link rel="preload" href="/assets/start.js" as="script">'
    '<link rel="modulepreload" href="/assets/app.js">'
    '<script src="/assets/vendor.js"></script></head>'
    '<body><section id="d-splash"><div class="dots"></div></section>'
    '<section id="main"></section></body></html>'
)
EMPTY = "<html><head><title>Nothing</title></head><body><div> </div></body></html>"


def test_a_script_shell_is_reported_as_written_by_javascript() -> None:
    with pytest.raises(NoTextError) as caught:
        grist.extract(SHELL, method="justext")
    message = str(caught.value)
    assert message.startswith("the page has no visible text; it refers to 3 scripts")
    assert "JavaScript, which grist does not run" in message


def test_a_page_without_scripts_gets_the_plain_message() -> None:
    with pytest.raises(NoTextError) as caught:
        grist.extract(EMPTY, method="auto")
    assert str(caught.value) == "the page has no visible text"


def test_one_script_is_counted_in_the_singular() -> None:
    page = EMPTY.replace("</head>", "<SCRIPT>render()</SCRIPT></head>")
    with pytest.raises(NoTextError, match=r"it refers to 1 script, so its text"):
        grist.extract(page, method="auto")


def test_a_site_model_page_error_carries_the_same_reason() -> None:
    found = read_page(RawPage(content=SHELL, url="https://forum.example/t/1", input="t1"),
                      "text", True, "host")
    assert isinstance(found, PageError)
    assert found.reason == "no-text"
    assert "it refers to 3 scripts" in found.error


# A frameset with the text browsers never show (``noframes``: every browser shows frames).
FRAMESET = ("<html><head><title>Harbour</title><script>track()</script></head>"
            "<frameset cols='20%,80%'><frame src='menu.html'><frame src=\"story.html\">"
            "<frame src=menu.html></frameset><noframes><body><p>Your browser does not show "
            "frames; read the story on story.html.</p></body></noframes></html>")


def test_a_frameset_names_the_pages_its_frames_load_and_skips_its_noframes_text() -> None:
    with pytest.raises(NoTextError) as caught:
        grist.extract(FRAMESET, method="auto")
    assert str(caught.value) == ("the page is a frameset: its text is in the pages its frames "
                                 "load (menu.html, story.html): extract those")


def test_a_page_made_of_iframes_names_the_pages_they_load() -> None:
    sources = [f"https://news.example/{n}.html" for n in range(5)]
    page = EMPTY.replace("<div> </div>", "".join(f"<iframe src='{s}'></iframe>" for s in sources))
    with pytest.raises(NoTextError) as caught:
        grist.extract(page, method="justext")
    assert str(caught.value) == (
        "the page has no visible text of its own; its iframes load other pages "
        f"({', '.join(sources[:3])}, ...): extract those")


def test_noframes_text_is_not_the_pages_text() -> None:
    page = ("<html><body><p>The harbour reopened on Monday after two years of work on the "
            "quay.</p><noframes><p>Frames are off: see the menu.</p></noframes></body></html>")
    result = grist.extract(page, method="justext")
    assert [b.text for b in result.blocks] == [
        "The harbour reopened on Monday after two years of work on the quay."]
