"""What a site model knows of a page's blocks, and the paper's rule that reads it.

The page's cluster (``cluster``, its size M = ``pages``), how similar the page's paths are to
the cluster's template, and per block how many of the cluster's pages have the block's element
path (``path_pages``) and its path with its text (``text_pages``). A block whose path and text
are on more than half of the pages is a template block (CalcMDLval's rule). The rule stands
aside on a page where it would remove every block the page method kept: an empty page says the
page method missed the page's own text, not that the page is all template.

With the cluster's content slots (``grist.sites.slots``), the evidence also holds, per block,
what the page method did in the block's slot on the cluster's *other* pages, and how many other
pages have the block's path and text.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grist.sites.mdl import template_of
from grist.sites.slots import SlotVote


@dataclass(frozen=True)
class Evidence:
    """A page's cluster and, per block, the cluster's page counts."""

    cluster: int
    pages: int
    path_pages: np.ndarray
    text_pages: np.ndarray
    similarity: float = 1.0
    slots: SlotVote | None = None
    own: bool = False  # the page is one of the cluster's

    @property
    def text_elsewhere(self) -> np.ndarray:
        """How many of the cluster's *other* pages have the block's path and text."""
        return np.maximum(self.text_pages - int(self.own), 0)

    def template(self) -> np.ndarray:
        """Blocks whose path and text are a template path (on more than half of the pages)."""
        return template_of(self.text_pages, self.pages)

    def empties(self, kept: np.ndarray) -> bool:
        """Whether removing the template blocks would leave nothing of what the page kept."""
        return bool(kept.any()) and not (kept & ~self.template()).any()

    def reason(self, shared: int) -> str:
        return f"template path shared by {shared} of {self.pages} pages of cluster {self.cluster}"
