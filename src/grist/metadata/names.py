"""Clean titles and author names as pages declare them.

A ``<title>`` (and often ``og:title``) carries the site's name: "Story | Site", "Site - Story",
"Story — Site". ``clean_title`` removes a leading or trailing segment that names the site (any
site name the page declares, its host, or words of its host only; its handle only at the end:
"Firefox — ..." on mozilla.org, whose handle is @firefox, names its subject) and a trailing
credit ("| by Ann Lee"), or, when none does, keeps the one segment the article's own heading
repeats; with neither, the title stays whole ("Q&A - Part 2" may be a title). Authors lose "By",
handles' "@", e-mail and profile URLs; a byline's names end at a separator ("|", "·", "•", "/",
a dash) and at what it goes on to say ("on January 12", "Updated ..."); lists are split on
"and", "&", ";" and ","; what bylines hold besides names (dates, reading times, labels such as
"Posted" or "Name *", phrases, an aside that is a phrase: "(avec Bo Chen et Cleo Park)", a role
in lower case after a name: "Ann Lee, staff writer") is not a name; nor is a byline block's
lone word when it does not say "by" ("Partners in Prevention").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from grist.clean.domains import host_of
from grist.features.tokens import DAY_WORDS, MONTH_WORDS, alternation
from grist.whitespace import visible_text

_SEPARATORS = re.compile(r"\s+(?:[|\-–—:·•»«/]|::)\s+")
_NON_WORD = re.compile(r"[\W_]+")
# "By", after a word ("Written by", "Recipe by") or a label and what it says ("Published on May
# 2, 2024 by", "first posted by", "On 6/13/2018 by").
_BY = re.compile(r"^(?:(?:\w+\s+)?(?:written|posted|published|reviewed|edited|updated|on)\b"
                 r".{0,60}?\s|\w+\s+)?by[:\s]+", re.IGNORECASE)
_SPLIT_AUTHORS = re.compile(r"\s*(?:;|&|\band\b|\bund\b|\bet\b|,)\s*", re.IGNORECASE)
# What ends the names of a byline: a separator ("|", "•", and "/", "·" and dashes set off by
# spaces: within a name a hyphen joins and a middle dot spells Catalan; "/" also writes URLs), ...
_BYLINE_PARTS = re.compile(r"\s*(?:[|•‧∙]|\s[·/]|[·/]\s|\s[-–—]\s)\s*")
# ... and, within a part, a word that starts what is said about them: "on January 12", "at
# 10:30", "in News", "from Ohio", "Last updated ...".
_TAIL = re.compile(r"\s(?:on|at|in|from|@)(?:\s|$)"
                   r"|\s(?i:(?:last\s+)?updated|published|posted|reviewed)\b(?!\s+by\b)")
_NOT_A_NAME = re.compile(r"https?://|www\.|@.*\.|\d{3,}|^\W+$|[\[\]{}<>#:]")
_UNBALANCED = re.compile(r"\([^)]*$|^[^(]*\)")  # a fragment: "(Duration", "verified 10/28/02)"
_ASIDE = re.compile(r"\s*\(([^()]*)\)")  # "Ann Lee (avec Bo Chen et Cleo Park)"
_SAYS_BY = re.compile(r"\bby\b", re.IGNORECASE)  # (at a part's start: "Story | by Ann Lee")
# The lower-case words a name may hold ("Ludwig van Beethoven", "Ana de la Cruz", "the Food
# Team", "Ann Lee with Bo Chen").
_PARTICLES = frozenset(("van", "von", "der", "den", "de", "da", "di", "del", "della", "la", "le",
                        "du", "do", "dos", "das", "bin", "ibn", "al", "el", "ter", "ten", "zu",
                        "y", "e", "the", "of", "with"))
_LONGEST_NAME = 60
_MONTHS = alternation(MONTH_WORDS)
_WEEKDAYS = alternation(d for d in DAY_WORDS if d.endswith("day"))
_SHORT_DAYS = alternation(d for d in DAY_WORDS if not d.endswith("day"))
# What bylines hold after names: dates ("August 16", "Nov 1st", "1 February", "18/01/2008",
# "Sunday"), times ("7:30PM"), reading times and ages ("8 min read", "6 days ago"); a name ends
# where one begins.
_DATE_PART = re.compile(
    rf"(?:{_MONTHS})\.?\s*\d{{1,2}}(?:st|nd|rd|th)?\b"
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\.?\s+(?:of\s+)?(?:{_MONTHS})\b"
    r"|\b\d{1,4}[./-]\d{1,2}[./-]\d{1,4}\b"
    rf"|\b(?:{_WEEKDAYS})\b|\b\d{{1,2}}:\d{{2}}(?!\d)"
    r"|\b\d+\s*(?:min|mins|minutes?|hours?|hrs?|days?|weeks?|months?|years?)\b",
    re.IGNORECASE)
# Labels around bylines, and what starts with one ("Posted under Cars", "Originally posted").
_LABEL = re.compile(
    r"^(?:\w+\s+)?(?:posted|updated|published|released|release date|reading time)\b"
    r"|^(?:name|author|authors|admin|days|comments?|reply|share|get in touch|registered|joined"
    r"|permalink"
    rf"|{_SHORT_DAYS})[\W\d]*$", re.IGNORECASE)


def _reads_as_sentence(name: str) -> bool:
    """Three words or more, most of them lower-case: a phrase, not a name."""
    words = name.split()
    return len(words) >= 3 and 2 * sum(w[:1].islower() for w in words) > len(words)


def _reads_as_phrase(name: str) -> bool:
    """A sentence, or capitalised words beside a lower-case one that is no particle ("Ann Lee
    wrote", "Read Ann Lee's articles"): a name is capitalised, or all lower-case as handles are."""
    words = name.split()
    lower = [w for w in words if w.islower() and w.isalpha() and w not in _PARTICLES]
    return _reads_as_sentence(name) or bool(lower) and any(w[:1].isupper() for w in words)


def _squash(text: str) -> str:
    return _NON_WORD.sub("", text.casefold())


@dataclass(frozen=True)
class SiteNames:
    """What names a site: its declared names and its host with its main label (squashed), the
    words of its host name, and its declared handles ("@firefox", squashed)."""

    names: frozenset[str]
    host_words: frozenset[str]
    handles: frozenset[str]

    @classmethod
    def of(cls, sitenames: Iterable[str], url: str | None) -> SiteNames:
        """The names of the site ``sitenames`` declare (handles begin with "@") and ``url`` is
        on."""
        sitenames = list(sitenames)
        names = {_squash(name) for name in sitenames if not name.startswith("@")}
        handles = {_squash(name) for name in sitenames if name.startswith("@")}
        words: set[str] = set()
        host = host_of(url).removeprefix("www.") if url else ""
        if host:
            labels = host.split(".")
            names |= {_squash(host), _squash(labels[-2] if len(labels) > 1 else labels[0])}
            words = {w for label in labels[:-1] for w in label.split("-")}
        for found in (names, words, handles):
            found.discard("")
        return cls(frozenset(names), frozenset(words), frozenset(handles))

    def named_by(self, part: str, leading: bool = False) -> bool:
        """Whether a part of a title names the site: one of its names, or a part holding one or
        held in one ("Coast Times" on coast.example), or words of the host only ("Rust Blog" on
        blog.rust-lang.org). A title starts with its subject, which may be named like the site
        ("Python 3.12" on docs.python.org): a ``leading`` part holds no number the name lacks,
        and is not taken for a handle (a site's account often names its product: "Firefox —
        Customize ..." on mozilla.org, whose handle is @firefox). Like a name, a host's words
        are read in parts of four letters or more ("Q&A" on qa.example.com may be a
        subject)."""
        squashed = _squash(part)
        if not any(c.isalpha() for c in squashed):  # ("2026 / 2027": a number names no site)
            return False
        names = self.names if leading else self.names | self.handles
        if any(_is_name(squashed, name, leading) for name in names):
            return True
        return len(squashed) > 3 and {_squash(w) for w in part.split()} - {""} <= self.host_words


def _is_name(squashed: str, name: str, leading: bool) -> bool:
    """Whether the squashed part of a title is ``name``, holds it or is held in it (and, when
    ``leading``, holds no number it lacks)."""
    if squashed == name:
        return True
    if len(squashed) <= 3 or len(name) <= 3 or (name not in squashed and squashed not in name):
        return False
    return not leading or not any(c.isdigit() for c in squashed.replace(name, ""))


def clean_title(title: str, sitenames: Iterable[str] = (), url: str | None = None,
                heading: str | None = None) -> str:
    """``title`` without the site name the page appended or prepended to it (one of the
    ``sitenames`` the page declares, or the host of ``url``; else the segment the page's
    ``heading`` begins with), and without a trailing credit of its author ("| by Ann Lee")."""
    title = visible_text(title)
    parts = _SEPARATORS.split(title)
    if len(parts) < 2:
        return title
    count = len(parts)
    site = SiteNames.of(sitenames, url)
    while len(parts) > 1 and (site.named_by(parts[-1]) or _credits_author(parts[-1])):
        parts.pop()
    while len(parts) > 1 and site.named_by(parts[0], leading=True):
        parts.pop(0)
    if len(parts) < count:
        return _rejoin(title, parts)
    said = _squash(heading or "")
    if said.startswith(_squash(title)):  # the heading repeats the whole title
        return title
    matching = [p for p in parts if _squash(p) and said.startswith(_squash(p))]
    return matching[0] if len(matching) == 1 else title


def _credits_author(part: str) -> bool:
    """Whether a part of a title credits its author: "by" and a person's names, two words or
    more, capitalised but for particles ("by Ann Lee"; not "By the Sea", "By Night")."""
    if not _SAYS_BY.match(part):
        return False
    names = clean_authors(part)
    return bool(names) and all(_reads_as_person(name) for name in names)


def _reads_as_person(name: str) -> bool:
    """A name of two words or more that starts capitalised, its other words too or particles."""
    words = name.split()
    return len(words) > 1 and words[0][:1].isupper() and all(
        w[:1].isupper() or w in _PARTICLES for w in words)


def _rejoin(title: str, parts: list[str]) -> str:
    """The span of ``title`` from the first kept part to the last (separators inside kept)."""
    start = title.find(parts[0])
    end = title.rfind(parts[-1]) + len(parts[-1])
    return title[start:end].strip() if 0 <= start < end else " ".join(parts)


def clean_authors(value: str) -> list[str]:
    """The people named in an author field or byline, in order, without duplicates: those of
    its first part that names any (what follows a separator is a date, a reading time, a
    role or the publication)."""
    value = visible_text(value)
    if _reads_as_sentence(_before_tail(_BY.sub("", value))):
        return []
    for part in _BYLINE_PARTS.split(value):
        names = _names(part)
        if names:
            return names
    return []


def byline_authors(text: str) -> list[str]:
    """The people a byline block names. A line that does not say "by" must name someone in
    two words or more, or by a handle: a lone word there is as often a label, a section, a
    place or a heading's first word ("Partners in Prevention", "News - May 2", "Dublin 16
    October") as a name."""
    names = clean_authors(text)
    if names and not _SAYS_BY.search(text) and len(names[0].split()) < 2 \
            and f"@{names[0]}" not in text:
        return []
    return names


def _before_tail(text: str) -> str:
    """``text`` up to the tail that follows a byline's names ("on January 12", "Updated ...")."""
    tail = _TAIL.search(text)
    return text[: tail.start()] if tail else text


def _unless_phrase(aside: re.Match[str]) -> str:
    """An aside in parentheses, or nothing when it is a phrase ("(avec Bo Chen et Cleo Park)"):
    its names would be split from their phrase into fragments; the names before it are the
    byline's. A name's own aside stays ("Paramita (Guha) Ghosh", "Jean-Luc Aufranc
    (CNXSoft)")."""
    return "" if _reads_as_phrase(aside.group(1)) else aside.group()


def _names(part: str) -> list[str]:
    """The people one part of a byline names, up to where its tail ("on ...", "Updated ...")
    begins."""
    part = _BY.sub("", part).strip()
    if _LABEL.search(part):
        return []
    part = _ASIDE.sub(_unless_phrase, _before_tail(part))
    if _reads_as_sentence(part):
        return []
    found: list[str] = []
    seen: set[str] = set()
    for name in _SPLIT_AUTHORS.split(part):
        name = name.strip(" .-–—:")
        handle = name.startswith("@")
        name = _BY.sub("", name.removeprefix("@")).strip()
        if _UNBALANCED.search(name):
            continue
        date = _DATE_PART.search(name, 0, 2 * _LONGEST_NAME)  # (bounded: names are short)
        if date:
            name = name[: date.start()].strip(" ,.-–—:(")
        if len(name) < 2 or len(name) > _LONGEST_NAME or _NOT_A_NAME.search(name):
            continue
        if _LABEL.search(name) or _reads_as_phrase(name):
            continue
        if not any(c.isalpha() for c in name):
            continue
        if found and name.islower() and not handle:  # a role after a name: "staff writer"
            continue
        if name.casefold() not in seen:
            seen.add(name.casefold())
            found.append(name)
    return found
