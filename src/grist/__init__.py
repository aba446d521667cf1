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
    "Verdict",
    "available_methods",
    "extract",
    "register_method",
    "__version__",
]
