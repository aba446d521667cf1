"""Site level (seed 002): pages as DOM path sets, MDL clustering by template (TEXT-MDL,
TEXT-HASH, LSH) and ``SiteModel``, the cross-page model extraction reads (docs/sites.md)."""

from grist.sites.model import SiteConfig, SiteModel

__all__ = ["SiteConfig", "SiteModel"]
