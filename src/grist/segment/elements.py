"""The page's elements as a table, recorded while segmenting: what each container says it is.

A block alone knows the id/class words of its four nearest ancestors (``Block.info["classes"]``).
What a block *is* often shows higher up (a ``related`` rail ten levels above a teaser) or only
in attributes other than ``class`` (schema.org ``itemprop="articleBody"``, ARIA
``role="navigation"``, ``data-testid="byline"``), and some containers are hidden
(``style="display:none"``, ``hidden``, ``aria-hidden="true"``). ``segment_elements`` records
every element except plain inline ones (``a``, ``b``, ``em`` ...) in one table: its parent, DOM
depth, tag, words and whether its own attributes hide it. Every block records its innermost
recorded element in ``Block.info["element"]``, so the elements around a block are that
element's chain of parents. Features read the table with NumPy (``grist.features.ancestry``).
Inside a ``pre`` the classes are a syntax highlighter's (``hljs-comment``, ``token tag``): they
describe the code, not the page, so those elements are recorded without words.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# How many of the innermost elements open at a block's start give their words to
# ``Block.info["classes"]``.
NEAREST_CLASSES = 4
# Attributes whose values say what an element is, read besides ``id`` and ``class``.
WORD_ATTRIBUTES = ("itemprop", "role", "data-testid", "data-component")
_HIDING_STYLE = ("display:none", "visibility:hidden")
# The attributes besides id and class that ``describe`` reads: most elements have none of them.
OTHER_ATTRIBUTES = frozenset((*WORD_ATTRIBUTES, "hidden", "aria-hidden", "style"))


def describe(attrs: dict[str, str | None]) -> tuple[str, bool]:
    """What an element's attributes say about it: its words (the id, class, itemprop, role,
    data-testid and data-component values joined by spaces) and whether they hide it
    (``hidden``, ``aria-hidden="true"``, an inline ``display:none`` / ``visibility:hidden``).

    Most elements have only an id and a class: those are read first, the rest only when the
    element has one of the other attributes read (``isdisjoint`` checks without allocating).
    """
    name, cls = attrs.get("id"), attrs.get("class")
    words = f"{name} {cls}" if name and cls else name or cls or ""
    if OTHER_ATTRIBUTES.isdisjoint(attrs):
        return words, False
    extra = list(filter(None, map(attrs.get, WORD_ATTRIBUTES)))
    if extra:
        words = " ".join([words, *extra]) if words else " ".join(extra)
    if "hidden" in attrs or attrs.get("aria-hidden") == "true":
        return words, True
    style = attrs.get("style")
    if not style or "none" not in style and "hidden" not in style:
        return words, False
    squeezed = style.replace(" ", "").lower()
    return words, any(rule in squeezed for rule in _HIDING_STYLE)


@dataclass
class Elements:
    """The recorded elements in document (pre-)order, parents first: one row each of
    (parent, depth, tag, words, hidden), and where each one's subtree ends.

    parent: index of the nearest recorded ancestor, -1 at the top.
    depth:  number of elements above it in the DOM (all tags, as ``Block.depth`` counts them).
    end:    the recorded elements inside element ``i`` are those numbered ``i + 1 .. end[i] - 1``
            (so a block is inside ``i`` when ``i <= Block.info["element"] < end[i]``).
    """

    rows: list[tuple[int, int, str, str, bool]] = field(default_factory=list)
    end: list[int] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.rows)
