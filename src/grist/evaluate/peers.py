"""The established extractors grist is compared with, each behind the same signature.

Every peer is ``make() -> extract(html: str, url: str | None) -> str``: ``make`` does the imports
and one-time set-up (outside the timed region), ``extract`` gets the page as a decoded ``str``.
The packages come from the ``peers`` extra; a peer whose package is missing is reported, not fatal.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable

from grist.errors import UnknownMethodError

ExtractFunction = Callable[[str, "str | None"], str]

_BLOCK_TAGS = frozenset(
    "address article aside blockquote br dd details dialog div dl dt fieldset figcaption figure "
    "footer form h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section summary table td th tr "
    "ul".split()
)


def visible_text(html_fragment: str) -> str:
    """Text of an HTML fragment with a line break at every block element (for HTML-output peers)."""
    import lxml.html

    if not html_fragment.strip():
        return ""
    root = lxml.html.fromstring(html_fragment)
    parts: list[str] = []
    for event, element in lxml.etree.iterwalk(root, events=("start", "end")):
        tag = element.tag if isinstance(element.tag, str) else ""
        if tag in _BLOCK_TAGS:
            parts.append("\n")
        if event == "start" and element.text and tag not in ("script", "style"):
            parts.append(element.text)
        if event == "end" and element.tail:
            parts.append(element.tail)
    lines = (" ".join(line.split()) for line in "".join(parts).split("\n"))
    return "\n".join(line for line in lines if line)


def _trafilatura(**options: bool) -> Callable[[], ExtractFunction]:
    def make() -> ExtractFunction:
        import trafilatura

        return lambda html, url: trafilatura.extract(html, **options) or ""

    return make


def _readability() -> ExtractFunction:
    from readability import Document

    return lambda html, url: visible_text(Document(html).summary(html_partial=True))


def _justext() -> ExtractFunction:
    import justext

    stoplist = justext.get_stoplist("English")

    def extract(html: str, url: str | None) -> str:
        paragraphs = justext.justext(html, stoplist)
        return "\n\n".join(p.text for p in paragraphs if not p.is_boilerplate)

    return extract


def _boilerpy3() -> ExtractFunction:
    from boilerpy3 import extractors

    extractor = extractors.ArticleExtractor(raise_on_failure=False)
    return lambda html, url: extractor.get_content(html) or ""


def _resiliparse() -> ExtractFunction:
    from resiliparse.extract.html2text import extract_plain_text

    return lambda html, url: extract_plain_text(html, main_content=True)


def _goose3() -> ExtractFunction:
    from goose3 import Goose

    goose = Goose({"enable_image_fetching": False, "http_timeout": 0.001})
    return lambda html, url: goose.extract(url=None, raw_html=html).cleaned_text or ""


def _newspaper4k() -> ExtractFunction:
    import newspaper

    def extract(html: str, url: str | None) -> str:
        article = newspaper.Article(url or "https://example.invalid/", fetch_images=False)
        article.download(input_html=html)
        article.parse()
        return article.text or ""

    return extract


def _inscriptis() -> ExtractFunction:
    import inscriptis

    return lambda html, url: inscriptis.get_text(html)


# name -> (distribution name for the version, factory)
PEERS: dict[str, tuple[str, Callable[[], ExtractFunction]]] = {
    "trafilatura": ("trafilatura", _trafilatura()),
    "trafilatura-precision": ("trafilatura", _trafilatura(favor_precision=True)),
    "trafilatura-recall": ("trafilatura", _trafilatura(favor_recall=True)),
    "readability-lxml": ("readability-lxml", _readability),
    "justext": ("justext", _justext),
    "boilerpy3": ("boilerpy3", _boilerpy3),
    "resiliparse": ("resiliparse", _resiliparse),
    "goose3": ("goose3", _goose3),
    "newspaper4k": ("newspaper4k", _newspaper4k),
    "inscriptis": ("inscriptis", _inscriptis),
}


def peer_version(name: str) -> str | None:
    """Installed version of the package behind peer ``name``, or None when it is not installed."""
    try:
        return importlib.metadata.version(PEERS[name][0])
    except importlib.metadata.PackageNotFoundError:
        return None


def make_peer(name: str) -> ExtractFunction:
    """Set up peer ``name``; UnknownMethodError if unknown or its package is not installed."""
    if name not in PEERS:
        raise UnknownMethodError(f"unknown peer {name!r}; choose from: {', '.join(PEERS)}")
    try:
        return PEERS[name][1]()
    except ImportError as exc:
        raise UnknownMethodError(f"peer {name!r} is not installed ({exc})") from None
