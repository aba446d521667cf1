"""grist: extract the main content of web pages and remove the noise around it."""

from grist.api import Extractor, extract
from grist.crosspage import CrossPageModel, Verdict
from grist.document import BOILERPLATE, CONTENT, ROLES, Block, Document, RawPage
from grist.errors import GristError
from grist.limits import Limits
from grist.metadata import Metadata
from grist.methods import available_methods, register_method
from grist.render import RenderOptions
from grist.result import Result

__version__ = "0.1.0"
_LAZY = {"SiteConfig": "grist.sites", "SiteModel": "grist.sites"}


def __getattr__(name: str) -> object:
    """Site models are imported when first used (they bring MinHash, LSH and their deps)."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'grist' has no attribute {name!r}")

__all__ = [
    "BOILERPLATE",
    "CONTENT",
    "ROLES",
    "Block",
    "CrossPageModel",
    "Document",
    "Extractor",
    "GristError",
    "Limits",
    "Metadata",
    "RawPage",
    "RenderOptions",
    "Result",
    "SiteConfig",
    "SiteModel",
    "Verdict",
    "available_methods",
    "extract",
    "register_method",
    "__version__",
]
