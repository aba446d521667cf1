"""Validation splits that keep whole sites out of training: site-grouped folds.

Pages of one site share templates, so a model that saw a site's navigation and footer on
training pages scores too well on its other pages. Cross-validation here groups pages by site —
the registrable domain (``news.bbc.co.uk`` and ``bbc.co.uk`` are one site) — across every
dataset, so no site has pages in both the training and the test part of a fold. A page whose
site is unknown is grouped by the domain most of its absolute links point to (its own site, as
a rule), else it is a group of its own.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from grist.clean.domains import host_of, registrable_domain
from grist.clean.lists import load_list

_HREF = re.compile(r"""<a\s[^>]*?href\s*=\s*["']?(https?://[^"'\s>]+)""", re.I)


def _suffixes() -> frozenset[str]:
    return frozenset(load_list("public_suffixes"))


def site_group(site: str | None, url: str | None, html: str, fallback: str,
               suffixes: frozenset[str] | None = None) -> str:
    """The group a page belongs to: the registrable domain of its site (or URL), else of the
    host most of its absolute links point to, else ``fallback`` (the page's own key)."""
    suffixes = _suffixes() if suffixes is None else suffixes
    host = (site or "").lower() or host_of(url or "")
    if not host:
        hosts = Counter(host_of(u) for u in _HREF.findall(html))
        hosts.pop("", None)
        if hosts:
            host = hosts.most_common(1)[0][0]
    if not host:
        return fallback
    return registrable_domain(host.removeprefix("www."), suffixes)


def grouped_folds(groups: Sequence[str], folds: int = 5) -> list[int]:
    """A fold number (0 .. folds-1) for every item, items of one group always in one fold.

    Groups are placed largest first, each in the fold with the fewest items so far (ties: the
    lowest fold number), so the folds come out about equal in size; the result depends only on
    the groups, not on their order.
    """
    sizes = Counter(groups)
    load = [0] * folds
    fold_of: dict[str, int] = {}
    for group, size in sorted(sizes.items(), key=lambda item: (-item[1], item[0])):
        target = min(range(folds), key=lambda f: (load[f], f))
        fold_of[group] = target
        load[target] += size
    return [fold_of[g] for g in groups]


def fold_table(keys: Iterable[str], groups: Iterable[str], folds: int = 5) -> dict[str, int]:
    """``{page key: fold}`` for pages given by key and group (see ``grouped_folds``)."""
    keys, groups = list(keys), list(groups)
    return dict(zip(keys, grouped_folds(groups, folds), strict=True))
