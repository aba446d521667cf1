"""Methods that misbehave on purpose, for the fuzz runner's own tests (imported by its workers).

Each reads the page and fails in one way when it holds the word ``boom`` (a crash, a hang, a
memory hog, a dead process) and otherwise keeps every block, so shrinking can find ``boom``.
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass

from grist.document import CONTENT, Document
from grist.methods import Labelled, Method, PageContext
from grist.segment.blocks import segment


@dataclass(frozen=True)
class Config:
    """No settings."""


def _blocks(doc: Document) -> list:
    blocks = segment(doc)
    for block in blocks:
        block.label, block.reason = CONTENT, "kept"
    return blocks


def _crash(doc: Document, config: Config, ctx: PageContext) -> Labelled:
    if "boom" in doc.html:
        raise ValueError("boom went the page")
    return Labelled(_blocks(doc))


def _hang(doc: Document, config: Config, ctx: PageContext) -> Labelled:
    if "boom" in doc.html:
        time.sleep(600)
    return Labelled(_blocks(doc))


def _hog(doc: Document, config: Config, ctx: PageContext) -> Labelled:
    if "boom" in doc.html:
        bytearray(4 << 30)  # 4 GiB, past the worker's memory cap: refused at once
    return Labelled(_blocks(doc))


def _die(doc: Document, config: Config, ctx: PageContext) -> Labelled:
    if "boom" in doc.html:
        os.kill(os.getpid(), signal.SIGSEGV)
    return Labelled(_blocks(doc))


CRASH = Method("crash", "raises ValueError on 'boom'", Config, _crash)
HANG = Method("hang", "sleeps on 'boom'", Config, _hang)
HOG = Method("hog", "allocates 4 GiB on 'boom'", Config, _hog)
DIE = Method("die", "kills its process on 'boom'", Config, _die)
REGISTER = {"crash": "fuzz_methods:CRASH", "hang": "fuzz_methods:HANG",
            "hog": "fuzz_methods:HOG", "die": "fuzz_methods:DIE"}
