"""Fuzz cases: what one generated input is, and how a case is made again from its seed and index.

A case is fully determined by ``(seed, index)``: ``make_case`` picks a family by weight and lets it
build the input from a generator seeded with both and the family's name, so any failure is
reproduced by its two numbers. The pick is a weighted rendezvous (``family_of``): a family added
later takes the cases it wins and leaves every other case as it was, so a ``--replay SEED:INDEX``
written down before still makes the same input.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from grist.document import RawPage
from grist.limits import Limits


@dataclass(frozen=True)
class Case:
    """One fuzz input: the content (bytes or str) with the URL and HTTP charset passed along.

    family: the generator that made it; ``detail`` says how (pattern, counts); ``seed`` and
    ``index`` make it again (-1 for inputs read from files).
    """

    family: str
    content: bytes | str
    url: str | None = None
    http_charset: str | None = None
    detail: str = ""
    seed: int = -1
    index: int = -1

    @property
    def size(self) -> int:
        """Length of the content in bytes (UTF-8 size for a str, lone surrogates counted as 3)."""
        if isinstance(self.content, bytes):
            return len(self.content)
        return len(self.content.encode("utf-8", "surrogatepass"))

    def page(self) -> RawPage:
        """The case as the RawPage an extractor is given."""
        return RawPage(self.content, url=self.url, http_charset=self.http_charset,
                       input=self.name)

    @property
    def name(self) -> str:
        return f"{self.family}#{self.seed}:{self.index}" if self.index >= 0 else self.family


@dataclass
class Context:
    """What every family may use: the generator, the caps in force, a size scale, seed pages.

    ``scale`` (0, 1] shrinks every storm's counts (a short run uses a small one); ``corpus`` holds
    real pages to mutate besides the synthetic ones.
    """

    rng: random.Random
    limits: Limits
    scale: float = 1.0
    corpus: Sequence[str] = field(default_factory=tuple)

    def count(self, low: int, high: int) -> int:
        """A count drawn log-uniformly from [low, high * scale] (at least ``low``)."""
        top = max(low, int(high * self.scale))
        return int(math.exp(self.rng.uniform(math.log(max(low, 1)), math.log(max(top, 1)))))

    def pick(self, options: Sequence):
        return options[self.rng.randrange(len(options))]


@dataclass(frozen=True)
class Made:
    """What a family built: the content, how (``detail``), and whether its form is the point.

    ``exact``: pass the content as it is (an encoding or str test), never re-encoded; then
    ``http_charset`` is the one to send with it.
    """

    content: bytes | str
    detail: str
    exact: bool = False
    http_charset: str | None = None


Family = Callable[[Context], Made]
FAMILIES: dict[str, tuple[float, Family]] = {}


def family(name: str, weight: float) -> Callable[[Family], Family]:
    """Register a generator ``fn(ctx) -> Made``; ``weight`` is its share of the cases."""
    def register(fn: Family) -> Family:
        FAMILIES[name] = (weight, fn)
        return fn
    return register


def _url(ctx: Context) -> str | None:
    roll = ctx.rng.random()
    if roll < 0.4:
        return None
    if roll < 0.9:
        return ctx.pick(("https://www.example.com/news/2024/story.html", "http://bbc.co.uk/a",
                         "https://blog.example.org/", "http://192.168.0.1:8080/x?y=z"))
    return ctx.pick(("not a url", "http://[::1", "http://a:99999/", "https://bücher.de/",
                     "file:///etc/passwd", "", "http://" + "a." * 300 + "com/"))


def _as_input(ctx: Context, content: bytes | str) -> tuple[bytes | str, str | None]:
    """Pass most cases as bytes, some as a decoded str, some with an HTTP charset."""
    roll = ctx.rng.random()
    if roll < 0.2:
        if isinstance(content, bytes):
            content = content.decode(ctx.pick(("utf-8", "latin-1")), "replace")
        return content, None
    if isinstance(content, str):
        content = content.encode("utf-8", "surrogatepass")
    if roll < 0.3:
        return content, ctx.pick(("utf-8", "iso-8859-1", "windows-1251", "shift_jis", "utf-16",
                                  "idna", "bogus", "x-user-defined", "gb2312", "utf-16be"))
    return content, None


def make_case(seed: int, index: int, limits: Limits | None = None, *, scale: float = 1.0,
              corpus: Sequence[str] = (), families: Sequence[str] | None = None) -> Case:
    """The case number ``index`` of the run seeded ``seed`` (same arguments, same case)."""
    names = [n for n in FAMILIES if families is None or n in families]
    name = family_of(seed, index, {n: FAMILIES[n][0] for n in names})
    ctx = Context(random.Random(f"grist-fuzz:{seed}:{index}:{name}"), limits or Limits(), scale,
                  corpus)
    made = FAMILIES[name][1](ctx)
    content, http_charset = made.content, made.http_charset
    if not made.exact:
        content, http_charset = _as_input(ctx, content)
    return Case(name, content, url=_url(ctx), http_charset=http_charset, detail=made.detail,
                seed=seed, index=index)


def family_of(seed: int, index: int, weights: dict[str, float]) -> str:
    """The family of case ``(seed, index)`` among ``weights`` (name -> weight): each family draws
    its own number from the case and its name, and the least ``-log(u) / weight`` wins, so each
    family wins its share of the cases and adding or removing one moves only the cases it wins."""
    def draw(name: str) -> float:
        u = random.Random(f"grist-fuzz-family:{seed}:{index}:{name}").random()
        return -math.log1p(-u) / weights[name]

    return min(weights, key=draw)
