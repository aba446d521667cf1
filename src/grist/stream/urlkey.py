"""URL keys (seed 003 §3): a nearly unique identifier of a document built from its URL.

1. the *response* URL (after redirects) is the starting point (the fetcher provides it);
2. ``_cid_`` = the 128-bit hash of the item's title is added to the query, the encoding is
   normalised (scheme and host lower-cased, default port and fragment dropped, percent-escapes
   of unreserved characters decoded and the others upper-cased) and the query parameters are
   sorted by name;
3. the query rules (``grist/data/url_rules.txt``, or the user's file) decide which query
   parameters survive: those named by every rule whose regex matches, none when no rule does.

Two documents with the same key are the same document: the stream processes it once.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from urllib.parse import quote, unquote, unquote_plus, urlsplit

from grist.clean.domains import registrable_domain
from grist.clean.lists import load_list
from grist.errors import ConfigError
from grist.stream.hashing import DEFAULT_HASH, title_hash

CID = "_cid_"
_DEFAULT_PORTS = {"http": 80, "https": 443}
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_PATH_SAFE = "/:@!$&'()*+,;=%"
_QUERY_SAFE = "/:@!$'()*,;"


@dataclass(frozen=True)
class UrlRule:
    """A query rule: where ``pattern`` matches the scheme-less URL, keep ``keep``'s parameters."""

    pattern: re.Pattern[str]
    keep: tuple[str, ...]


@dataclass(frozen=True)
class UrlRules:
    """The ordered rule list and where it came from (``origin``: a path or ``<bundled>``)."""

    rules: tuple[UrlRule, ...]
    origin: str = "<bundled>"

    @classmethod
    def parse(cls, text: str, origin: str) -> UrlRules:
        """Rules from the text of a rule file (``REGEX PARAM [PARAM ...]`` a line, ``#`` comments)."""
        rules = []
        for number, line in enumerate(text.splitlines(), start=1):
            fields = line.split()
            if not fields or fields[0].startswith("#"):
                continue
            if len(fields) < 2:
                raise ConfigError(f"{origin}:{number}: a rule is a regex followed by the query "
                                  f"parameters to keep; got {line.strip()!r}")
            try:
                pattern = re.compile(fields[0])
            except re.error as exc:
                raise ConfigError(f"{origin}:{number}: bad regular expression {fields[0]!r}: "
                                  f"{exc}") from None
            rules.append(UrlRule(pattern, tuple(fields[1:])))
        return cls(tuple(rules), origin)

    @classmethod
    def load(cls, path: str | Path | None = None) -> UrlRules:
        """The user's rule file, or the bundled one (the paper's Table 1) when ``path`` is None."""
        if path is None:
            return bundled_rules()
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read URL rules {path}: {exc}") from None
        return cls.parse(text, str(path))

    def text(self) -> str:
        """The rules as a rule file (for saving them with a model)."""
        return "".join(f"{r.pattern.pattern} {' '.join(r.keep)}\n" for r in self.rules)

    def kept(self, schemeless: str) -> set[str]:
        """The query parameters the rules keep for this scheme-less URL."""
        keep: set[str] = set()
        for rule in self.rules:
            if rule.pattern.match(schemeless):
                keep.update(rule.keep)
        return keep


@lru_cache(maxsize=1)
def bundled_rules() -> UrlRules:
    text = resources.files("grist").joinpath("data", "url_rules.txt").read_text(encoding="utf-8")
    return UrlRules.parse(text, "<bundled>")


def _fix_escapes(part: str, safe: str) -> str:
    """Decode escapes of unreserved characters, upper-case the rest, escape what must be."""
    decoded = _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)) if chr(int(m.group(1), 16))
                          in _UNRESERVED else "%" + m.group(1).upper(), part)
    return quote(decoded, safe=safe)


def _remove_dot_segments(path: str) -> str:
    out: list[str] = []
    for segment in path.split("/"):
        if segment == "..":
            if len(out) > 1:
                out.pop()
        elif segment != ".":
            out.append(segment)
    if path.endswith(("/.", "/..")):
        out.append("")
    return "/".join(out) or "/"


def _host(netloc_host: str) -> str:
    host = netloc_host.lower().rstrip(".")
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return quote(host, safe=".-:[]")


def split_query(query: str) -> list[tuple[str, str]]:
    """The query's (name, value) pairs, decoded (``+`` is a space), blanks and order kept."""
    pairs = []
    for item in query.split("&"):
        if not item:
            continue
        name, _, value = item.partition("=")
        pairs.append((unquote_plus(name), unquote_plus(value)))
    return pairs


def normalise_url(url: str, extra: Sequence[tuple[str, str]] = ()) -> tuple[str, str, list]:
    """Step 2 without the title: ``(scheme://host[:port], path, sorted query pairs)``.

    Raises ValueError for a URL without an http(s) scheme and a host.
    """
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:  # a bracketed host left open, a port out of range
        raise ValueError(f"not a valid URL: {url!r} ({exc})") from None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        raise ValueError(f"not an http(s) URL: {url!r}")
    host = _host(parts.hostname)
    origin = f"{scheme}://{host}" + (f":{port}" if port and port != _DEFAULT_PORTS[scheme] else "")
    path = _remove_dot_segments(_fix_escapes(parts.path or "/", _PATH_SAFE))
    pairs = sorted([*split_query(parts.query), *extra], key=lambda pair: pair[0])
    return origin, path, pairs


def _join_query(pairs: Sequence[tuple[str, str]]) -> str:
    return "&".join(f"{quote(n, safe=_QUERY_SAFE)}={quote(v, safe=_QUERY_SAFE)}" for n, v in pairs)


def url_key(response_url: str, title: str | None = None, rules: UrlRules | None = None,
            hash_name: str = DEFAULT_HASH) -> str:
    """The URL key of a document at ``response_url`` whose item title is ``title`` (§3).

    Without a title no ``_cid_`` is added (a rule keeping ``_cid_`` then keeps nothing).
    Raises ValueError for a URL that is not http(s).
    """
    rules = rules or bundled_rules()
    extra = [(CID, title_hash(title, hash_name))] if title is not None and title.strip() else []
    origin, path, pairs = normalise_url(response_url, extra)
    full = origin + path + ("?" + _join_query(pairs) if pairs else "")
    keep = rules.kept(full.split("://", 1)[1])
    kept = [(n, v) for n, v in pairs if n in keep]
    return origin + path + ("?" + _join_query(kept) if kept else "")


@lru_cache(maxsize=1)
def _suffixes() -> frozenset[str]:
    return frozenset(load_list("public_suffixes"))


def domain_of(host: str) -> str:
    """The paper's *domain* of a host: its registrable domain (``news.bbc.co.uk`` -> ``bbc.co.uk``)."""
    return registrable_domain(host, _suffixes())


def branch(key: str) -> tuple[str, ...]:
    """The URL Tree branch of a URL key: domain, host (when not the domain itself), each path
    segment, then the query.

    ``http://news.ex.com/a/b.html?id=3`` -> ``("ex.com", "news.ex.com", "a", "b.html", "?id=3")``.
    The scheme is left out: the same page over http and https is one document of one branch.
    """
    rest = key.split("://", 1)[-1]
    location, _, query = rest.partition("?")
    host, _, path = location.partition("/")
    domain = domain_of(host.split(":")[0])
    parts = [domain, *([host] if host != domain else []), *path.split("/")]
    if query:
        parts.append("?" + query)
    return tuple(parts)


def node_label(path: Sequence[str]) -> str:
    """A branch prefix as people read it: ``www.ex.com/news/`` (``ex.com`` for the domain)."""
    if len(path) == 1:
        return path[0]
    rest = list(path[1:])
    if not ("." in rest[0] and rest[0].split(":")[0].endswith(path[0])):  # no host part: the host is the domain
        rest.insert(0, path[0])
    return unquote("/".join(rest)) + "/"
