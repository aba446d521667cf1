"""A datatrove extractor step that runs grist, usable wherever datatrove's ``Trafilatura`` step is.

    from datatrove.pipeline.readers import WarcReader
    from grist.integrations.datatrove import GristExtractor
    pipeline = [WarcReader("crawl/"), GristExtractor(), JsonlWriter("out/")]

Like datatrove's own extractors it runs each document in a sandboxed subprocess with a timeout
(datatrove's ``ExtractorSandbox``), where the grist ``Extractor`` is built once and reused. The
document's URL goes with its HTML (links, hosts); its text becomes the main content, its
metadata gains ``title``; a document grist cannot extract is dropped and counted by reason in
the step's stats (``error:not-html``, ``error:no-text``, ...), as datatrove counts its drops.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from grist.optional import require

_base = require("datatrove.pipeline.extractors.base", "datatrove", "the datatrove step")
_hints = require("datatrove.utils.typeshelper", "datatrove", "the datatrove step")


class GristExtractor(_base.BaseExtractor):
    """grist's extraction as a datatrove pipeline step.

    method:      a grist method name (default ``auto``); ``model`` a model file for it.
    timeout:     seconds per document before the sandbox process is killed and replaced.
    text_format: ``text`` or ``markdown`` for the document's new text.
    """

    name = "🌾 grist"
    _requires_dependencies = ["selectolax"]

    def __init__(self, method: str = "auto", model: str | None = None, timeout: float = 5.0,
                 text_format: str = "text") -> None:
        super().__init__(timeout)
        self.method, self.model, self.text_format = method, model, text_format
        self._extractor: Any = None

    def extract(self, html: str, url: str | None = None) -> dict[str, Any]:
        """Runs inside the sandbox: the page's text and title, or the grist error's reason."""
        from grist.api import Extractor
        from grist.errors import GristError
        from grist.limits import Limits
        from grist.methods import method_config

        if self._extractor is None:  # once per sandbox process
            self._extractor = Extractor(method=self.method,
                                        config=method_config(self.method, self.model),
                                        limits=Limits(time_budget=self.timeout))
        try:
            result = self._extractor(html, url)
        except GristError as exc:
            return {"error": exc.reason}
        return {"text": result.render(self.text_format), "title": result.title}

    def run(self, data: Any, rank: int = 0, world_size: int = 1) -> Iterator[Any]:
        """Extract every document in its sandbox; keep the ones with text."""
        with _base.ExtractorSandbox(timeout=self.timeout, warmup_text=("<p>warm up</p>", None)) \
                as sandbox:
            for doc in data:
                self.stat_update(_hints.StatHints.total)
                with self.track_time():
                    try:
                        found = sandbox.process_document((doc.text, doc.metadata.get("url")),
                                                         self.extract)
                    except TimeoutError:
                        self.stat_update("timeout")
                        continue
                    except EOFError:  # the sandbox process died; a new one takes the next page
                        self.stat_update("broken_process")
                        continue
                if "error" in found or not found["text"]:
                    self.stat_update(f"error:{found.get('error', 'empty')}")
                    self.stat_update(_hints.StatHints.dropped)
                    continue
                doc.text = found["text"]
                doc.metadata["title"] = found["title"]
                self.stat_update("extracted", _hints.StatHints.forwarded)
                self.update_doc_stats(doc)
                yield doc
