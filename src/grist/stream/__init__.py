"""The stream level (seed 003): feeds, URL keys, block hashes, the URL Tree, state and the runner.

``UrlTree`` is the cross-page model (``grist.crosspage``) that learns, per site and URL prefix,
which text blocks repeat; ``grist stream`` (``grist.cli.stream``) runs the whole pipeline.
"""

from grist.stream.urltree import UrlTree

__all__ = ["UrlTree"]
