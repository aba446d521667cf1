"""A page as its set of root-to-node DOM paths, the text as the last step (seed 002, Table 1).

A path is the tags from the root down to an element (``html>body>h1``) or, for text, down to the
text's parent followed by the text itself (``html>body>h1`` + TEXT + ``IT``). Two readings:

- ``node_paths``: the paper's, every element and every text node of the DOM (``<br>`` included);
- ``block_paths``: grist's blocks (``grist.segment.blocks``) as the text steps, each block's path
  and its prefixes as the element steps: one text step per block, so a paragraph with links is
  one path, and the paths are exactly what a block is looked up by at extraction.

Digits in text steps can be folded to ``0`` (``Copyright 2009`` and ``2010`` are one path).
Paths are hashed to 64 bits (xxHash64) for the clustering; the strings are kept only for show.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np

from grist.dedup.minhash import element_hashes
from grist.document import Block, Document
from grist.errors import GristError
from grist.segment.blocks import DEFAULT_SKIP_TAGS

TEXT = "\t"  # separates a text step from its element path (whitespace is collapsed in texts)
STEP = ">"
_DIGITS = re.compile(r"\d+")
_TEXT_NODE = "-text"


def text_step(text: str, fold_digits: bool) -> str:
    """The text as a path step: whitespace collapsed, digit runs folded to ``0`` if asked."""
    text = " ".join(text.split())
    return _DIGITS.sub("0", text) if fold_digits else text


def node_paths(doc: Document, fold_digits: bool = False) -> list[str]:
    """The paper's path set of a parsed page: every element path and every text-node path
    (non-empty text only), in document order, each once; scripts, styles and the head are
    skipped as in segmentation."""
    if doc.dom is None or doc.dom.root is None:
        raise GristError("the page has no DOM to take paths from")
    seen: dict[str, None] = {}
    stack: list = [(doc.dom.root, "")]
    while stack:
        node, parent = stack.pop()
        tag = node.tag
        if tag == _TEXT_NODE:
            text = text_step(node.text_content or "", fold_digits)
            if text and parent:
                seen.setdefault(parent + TEXT + text)
            continue
        if tag is None or tag[0] in "-_!" or tag in DEFAULT_SKIP_TAGS:
            continue
        path = f"{parent}{STEP}{tag}" if parent else tag
        seen.setdefault(path)
        children = []
        child = node.child
        while child is not None:
            children.append((child, path))
            child = child.next
        stack.extend(reversed(children))
    return list(seen)


def block_key(block: Block, fold_digits: bool) -> str:
    """The path a block is looked up by: its element path and its text."""
    return block.path + TEXT + text_step(block.text, fold_digits)


def block_paths(blocks: Sequence[Block], fold_digits: bool = True) -> list[str]:
    """Path set of a segmented page: each block's text path and every prefix of its element path."""
    seen: dict[str, None] = {}
    for block in blocks:
        if not block.path:
            continue
        steps = block.path.split(STEP)
        for end in range(1, len(steps) + 1):
            seen.setdefault(STEP.join(steps[:end]))
        seen.setdefault(block_key(block, fold_digits))
    return list(seen)


def hash_paths(paths: Iterable[str]) -> np.ndarray:
    """Sorted distinct 64-bit hashes of paths."""
    return np.unique(element_hashes(paths))


def show_path(path: str) -> str:
    """A path for people: ``html>body>h1 "IT"``."""
    element, sep, text = path.partition(TEXT)
    return f'{element} "{text}"' if sep else element


def paper_notation(path: str) -> str:
    """A path written as in seed 002 Table 1: ``Document\\<html>\\<body>\\<h1>IT``."""
    element, _, text = path.partition(TEXT)
    return "Document" + "".join(f"\\<{tag}>" for tag in element.split(STEP)) + text
