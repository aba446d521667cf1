"""Small hand-made sites for the site-model tests: two templates on one host, one on another.

An article page has a navigation bar, a story of a few paragraphs and a footer; a listing page
of the same host a different layout (a list of teasers). Every page's story is its own, built
from a sentence bank, so only the template repeats.
"""

from __future__ import annotations

from grist.document import RawPage

SUBJECTS = ("The ferry", "A new school", "The mayor", "The river", "A small bakery", "The choir",
            "The old mill", "A storm", "The library", "The football club", "A young painter",
            "The night train")
VERBS = ("opened its doors", "came back late", "spoke to the crowd", "rose after the rain",
         "won a prize", "closed for the winter", "moved to the harbour", "lost its roof")
PLACES = ("in the north of the town", "near the old bridge", "by the market square",
          "at the end of the valley", "beside the station", "under the castle walls")


def story(seed: int, sentences: int = 6) -> list[str]:
    """Paragraphs of a story of its own (different for every seed)."""
    out = []
    for i in range(sentences):
        k = seed * 7 + i * 3
        out.append(f"{SUBJECTS[(seed + i) % len(SUBJECTS)]} {VERBS[k % len(VERBS)]} "
                   f"{PLACES[(k // 2) % len(PLACES)]} on day {seed}, and people who live there "
                   f"said that it was the {i + 1}th time this year that such a thing happened, "
                   f"which surprised everyone who had followed story {seed}.")
    return out


def article(seed: int, site: str = "Riverside News") -> str:
    paragraphs = "".join(f"<p>{p}</p>" for p in story(seed))
    return (f"<html><head><title>Story {seed}</title></head><body>"
            f"<div class=nav><ul><li><a href=/>Home</a></li><li><a href=/world>World</a></li>"
            f"<li><a href=/sport>Sport</a></li><li><a href=/weather>Weather</a></li></ul></div>"
            f"<div class=main><h1>Story number {seed}</h1>{paragraphs}"
            f"<p class=share>Share this story with your friends and family today</p></div>"
            f"<div class=footer><p>Copyright 20{seed % 20:02d} {site}. All rights reserved.</p>"
            f"<p><a href=/terms>Terms of use</a> | <a href=/privacy>Privacy policy</a></p></div>"
            f"</body></html>")


def listing(seed: int) -> str:
    teasers = "".join(f"<tr><td><a href=/s/{seed}-{i}>{story(seed + i, 1)[0][:60]}</a></td>"
                      f"<td>{i + 3} comments</td></tr>" for i in range(5))
    return (f"<html><head><title>Index {seed}</title></head><body><table class=layout>"
            f"<tr><td><b>Riverside News index</b></td><td>Page {seed}</td></tr>{teasers}"
            f"<tr><td><i>Advertise with us</i></td><td><i>Contact the newsroom</i></td></tr>"
            f"</table></body></html>")


def other_site(seed: int) -> str:
    paragraphs = "".join(f"<p>{p}</p>" for p in story(seed + 100, 4))
    return (f"<html><body><header><span>Valley Gazette</span><span>Subscribe</span></header>"
            f"<article><h2>Gazette report {seed}</h2>{paragraphs}</article>"
            f"<footer>Valley Gazette, printed since 1901</footer></body></html>")


def site_pages(articles: int = 6, listings: int = 4, others: int = 4) -> list[RawPage]:
    """Pages of two hosts: articles and listings of news.example, articles of gazette.example."""
    pages = [RawPage(article(i), url=f"https://www.news.example/story/{i}", input=f"article-{i}")
             for i in range(articles)]
    pages += [RawPage(listing(i), url=f"https://news.example/index/{i}", input=f"listing-{i}")
              for i in range(listings)]
    pages += [RawPage(other_site(i), url=f"https://gazette.example/{i}", input=f"gazette-{i}")
              for i in range(others)]
    return pages
