"""Host names and registrable domains, with a compact public-suffix rule (no network, no PSL).

The registrable domain is the last two labels of the host, or the last three when the last two
form a multi-label public suffix of ``grist/data/public_suffixes.txt`` (bbc.co.uk, not co.uk).
"""

from __future__ import annotations

from collections.abc import Collection
from urllib.parse import urljoin, urlsplit


def host_of(url: str, base: str | None = None) -> str:
    """Lower-cased host of ``url`` resolved against ``base``; '' when it has none (or is invalid)."""
    try:
        full = urljoin(base, url.strip()) if base else url.strip()
        host = urlsplit(full).hostname or ""
    except ValueError:
        return ""
    return host.rstrip(".")


def registrable_domain(host: str, multi_label_suffixes: Collection[str]) -> str:
    """``news.bbc.co.uk`` -> ``bbc.co.uk``, ``a.b.example.com`` -> ``example.com``; IPs unchanged."""
    labels = host.lower().rstrip(".").split(".")
    if len(labels) <= 2 or labels[-1].isdigit():
        return host.lower()
    keep = 3 if ".".join(labels[-2:]) in multi_label_suffixes else 2
    return ".".join(labels[-keep:])


def host_matches(host: str, domains: Collection[str]) -> str | None:
    """The entry of ``domains`` that ``host`` equals or is a subdomain of, else None."""
    labels = host.split(".")
    for i in range(len(labels) - 1):
        candidate = ".".join(labels[i:])
        if candidate in domains:
            return candidate
    return None
