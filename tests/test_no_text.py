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
