"""grist: extract the main content of web pages and remove the noise around it."""

from grist.api import Extractor, extract
from grist.document import BOILERPLATE, CONTENT, Block, Document
from grist.errors import GristError
from grist.limits import Limits
from grist.methods import available_methods
from grist.result import Result

__version__ = "0.1.0"

__all__ = [
    "BOILERPLATE",
    "CONTENT",
    "Block",
    "Document",
    "Extractor",
    "GristError",
    "Limits",
    "Result",
    "available_methods",
    "extract",
    "__version__",
]
