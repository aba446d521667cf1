"""A plugin module the batch tests pass to workers (``--plugin batch_plugin``): it registers a
method that behaves like the test stand-in, except that it hangs on a page containing HANG and
kills its own process on a page containing CRASH; a page containing SLOW takes 10 ms more."""

from __future__ import annotations

import os
import signal
import time

import grist
from grist.methods import Method
from standin_method import METHOD, StandinConfig

NAME = "fragile"


def _run(doc, config, ctx):
    if "HANG" in doc.html:
        while True:  # a loop the in-process time budget never gets to interrupt
            time.sleep(0.05)
    if "SLOW" in doc.html:
        time.sleep(0.01)
    if "CRASH" in doc.html:
        os.kill(os.getpid(), signal.SIGSEGV)
    return METHOD.run(doc, config, ctx)


grist.register_method(NAME, Method(NAME, "stand-in that hangs or crashes on cue", StandinConfig,
                                   _run), replace=True)
