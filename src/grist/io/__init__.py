"""Where pages come from and where results go: sources, sinks, datasets with gold text, fetching."""


def is_url(source: str) -> bool:
    """True when ``source`` is an http(s) URL rather than a path (here, not in ``fetch``: the
    page loader asks it too, and ``fetch`` is not loaded with ``grist``)."""
    return source.lower().startswith(("http://", "https://"))
