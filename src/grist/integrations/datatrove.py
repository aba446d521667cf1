"""A datatrove extractor step that runs grist, usable wherever datatrove's ``Trafilatura`` step is.

    from datatrove.pipeline.readers import WarcReader
    from grist.integrations.datatrove import GristExtractor
    pipeline = [WarcReader("crawl/"), GristExtractor(), JsonlWriter("out/")]

Like datatrove's own extractors it runs each document in a sandboxed subprocess with a timeout
(datatrove's ``ExtractorSandbox``). The step's options are checked when it is made, by building
its grist ``Extractor`` (a wrong method, model or format fails there, not once per document);
the step builds it again, if it came pickled to a datatrove worker, before its first document,
and the sandbox process inherits it, so no document's timeout pays for the model. The
document's URL goes with its HTML (links, hosts); its text becomes the main content, its
metadata gains ``title``; a document that gives no text is dropped and counted by why in the
step's stats (``error:not-html``, ``error:no-text``, ... for grist's reasons, ``clean_error``
for any other exception, as datatrove's extractors count it, ``timeout``, ``broken_process``).

Importing this module also makes warcio's ``br`` decoding, that of datatrove's ``WarcReader``,
work with the brotli package (see ``_WarcioBrotli``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from grist.api import Extractor
from grist.checks import check_seconds
from grist.errors import GristError
from grist.limits import Limits
from grist.methods import method_config
from grist.optional import require

_base = require("datatrove.pipeline.extractors.base", "datatrove", "the datatrove step")
_hints = require("datatrove.utils.typeshelper", "datatrove", "the datatrove step")
_logging = require("datatrove.utils.logging", "datatrove", "the datatrove step")

_WARMUP = ("<p>warm up</p>", None)  # (html, url): the page each sandbox process extracts first


class GristExtractor(_base.BaseExtractor):
    """grist's extraction as a datatrove pipeline step.

    method:      a grist method name (default ``auto``); ``model`` a model file for it.
    timeout:     seconds per document before the sandbox process is killed and replaced.
    text_format: the grist output format of the document's new text (``text``, ``markdown``, ...).
    """

    name = "🌾 grist"
    _requires_dependencies = ["selectolax"]

    def __init__(self, method: str = "auto", model: str | None = None, timeout: float = 5.0,
                 text_format: str = "text") -> None:
        super().__init__(timeout)
        self.method, self.model, self.text_format = method, model, text_format
        check_seconds(self, "timeout", above_zero=True)
        self._warned_error = False  # (the first exception's message is logged, once)
        self._extractor: Extractor | None = self._build()

    def _build(self) -> Extractor:
        """The grist Extractor of the step's options (reading the model file), or their error."""
        return Extractor(method=self.method, config=method_config(self.method, self.model),
                         limits=Limits(time_budget=self.timeout), output=self.text_format)

    def __getstate__(self) -> dict[str, Any]:
        """The step without its Extractor, which pickle cannot carry (dill makes it 6 MB of the
        ``auto`` model): a datatrove worker that unpickles the step builds its own in ``run``."""
        return {**self.__dict__, "_extractor": None}

    def extract(self, html: str, url: str | None = None) -> dict[str, Any]:
        """Runs inside the sandbox: the page's text and title, or the stat of why there is none
        and the message (an exception that escaped would kill the sandbox process)."""
        if self._extractor is None:  # once per process: only a sandbox not forked from run's
            self._extractor = self._build()
        try:
            result = self._extractor(html, url)
            return {"text": result.render(), "title": result.title}
        except Exception as exc:
            return _failure(f"error:{exc.reason}" if isinstance(exc, GristError) else "clean_error",
                            exc)

    def run(self, data: Any, rank: int = 0, world_size: int = 1) -> Iterator[Any]:
        """Extract every document in its sandbox; keep the ones with text, count the others."""
        self.extract(*_WARMUP)  # builds and warms the Extractor before any document's clock
        with _base.ExtractorSandbox(timeout=self.timeout, warmup_text=_WARMUP) as sandbox:
            for doc in data:
                self.stat_update(_hints.StatHints.total)
                with self.track_time():
                    found = self._extract_in(sandbox, doc)
                if "error" in found or not found["text"]:
                    self._drop(found)
                    continue
                doc.text = found["text"]
                doc.metadata["title"] = found["title"]
                self.stat_update("extracted", _hints.StatHints.forwarded)
                self.update_doc_stats(doc)
                yield doc

    def _extract_in(self, sandbox: Any, doc: Any) -> dict[str, Any]:
        """``extract``'s answer for ``doc`` from the sandbox, or why the sandbox gave none."""
        try:
            return sandbox.process_document((doc.text, doc.metadata.get("url")), self.extract)
        except TimeoutError:
            return {"error": "timeout"}
        except EOFError:  # the sandbox process died (out of memory); a new one takes the next
            return {"error": "broken_process"}
        except Exception as exc:  # in this process: the document could not be sent to it
            return _failure("clean_error", exc)

    def _drop(self, found: dict[str, Any]) -> None:
        """Count a document without text by why, and log the first exception's message."""
        self.stat_update(found.get("error", "error:empty"), _hints.StatHints.dropped)
        if found.get("error") == "clean_error" and not self._warned_error:
            _logging.logger.warning(f"grist: {found['message']}; documents with an exception are "
                                    "dropped and counted as clean_error (said once)")
            self._warned_error = True


def _failure(stat: str, exc: Exception) -> dict[str, str]:
    """A document's failure: the stat it is counted under, and the exception's message."""
    return {"error": stat, "message": f"{type(exc).__name__}: {exc}"}


class _WarcioBrotli:
    """brotli's Decompressor with the face warcio's readers use (zlib's ``decompress`` and
    ``unused_data``). warcio's own ``br`` decompressor sets ``unused_data`` on brotli's, which
    only brotlipy's (warcio's ``all`` extra; it cannot be installed beside FastWARC's brotli,
    both being the module ``brotli``) allows: with brotli 1.0.9 to 1.2.1 every br-encoded
    record raised AttributeError in datatrove's WarcReader and ended the task."""

    unused_data = b""  # a br body is one stream: no next member after it

    def __init__(self) -> None:
        import brotli

        self._decompressor = brotli.Decompressor()

    def decompress(self, data: bytes) -> bytes:
        """What ``data`` decodes to, following what came before it."""
        return self._decompressor.process(data)


def _mend_warcio_brotli() -> None:
    """Put ``_WarcioBrotli`` in warcio's decompressors where warcio's own cannot be built."""
    try:
        from warcio.bufferedreaders import BufferedReader
    except ImportError:  # no warcio, no WarcReader
        return
    make = BufferedReader.DECOMPRESSORS.get("br")  # there when brotli is
    if make is None:
        return
    try:
        make()
    except AttributeError:
        BufferedReader.DECOMPRESSORS["br"] = _WarcioBrotli


_mend_warcio_brotli()
