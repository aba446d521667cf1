"""Site models in a folder, one file per site: found by name, loaded, updated, saved atomically.

A site model is any grist cross-page model class (``grist.crosspage``: ``update``, ``save``,
classmethod ``load``, a constructor without arguments). ``update_site`` holds an exclusive
``flock`` on the site's lock file while it loads, updates and saves, so concurrent updates (from
several workers or several service processes) never lose one another; the new file is written
beside the old one, flushed to disk and renamed over it, so a reader, or a restart after
``kill -9``, sees the old model or the new one, never half of one.
"""

from __future__ import annotations

import fcntl
import importlib
import os
import re
from pathlib import Path
from typing import Any

from grist.crosspage import CrossPageModel
from grist.document import RawPage
from grist.errors import GristError, ModelError
from grist.io.atomic import temporary_beside

SUFFIX = ".json.gz"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


class UnknownSiteError(GristError):
    """No site model of that name exists in the service's folder."""

    reason = "unknown-site"


class SiteNameError(GristError):
    """A site name that is not a plain file name (a bad field of the request)."""

    reason = "invalid-request"


def model_path(sites_dir: Path, name: str) -> Path:
    """Where site ``name``'s model lives; SiteNameError for a name that is not a plain file name."""
    if not _NAME.fullmatch(name) or ".." in name:
        raise SiteNameError(f"a site name is letters, digits, '.', '_' and '-' (at most 128), "
                            f"starting with a letter or digit, without '..', not {name!r}")
    return sites_dir / f"{name}{SUFFIX}"


def model_class(spec: str) -> type:
    """The class a ``module:Class`` spec names; ModelError saying what to set if it is missing."""
    module_name, _, attribute = spec.partition(":")
    try:
        cls = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError, ValueError):
        raise ModelError(f"site model class {spec!r} cannot be imported; name one with "
                         "--site-model module:Class") from None
    missing = [m for m in ("update", "save", "load", "relabel") if not hasattr(cls, m)]
    if missing:
        raise ModelError(f"{spec} is not a cross-page model (no {', '.join(missing)})")
    return cls


def load_site(sites_dir: Path, name: str, cls: type) -> CrossPageModel:
    """Site ``name``'s saved model; UnknownSiteError when it has none yet."""
    path = model_path(sites_dir, name)
    if not path.is_file():
        raise UnknownSiteError(f"no site model named {name!r} (POST /sites/{name}/update "
                               "creates it)")
    return cls.load(path)


def save_atomically(model: Any, path: Path) -> None:
    """``model.save`` into a temporary file beside ``path`` (a site model class may be anyone's,
    its ``save`` writing in place), flushed to disk, renamed over it, the folder flushed too."""
    temporary = temporary_beside(path, SUFFIX)
    try:
        model.save(temporary)
        with open(temporary, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, path)
        directory = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
    finally:
        temporary.unlink(missing_ok=True)


def update_site(sites_dir: Path, name: str, cls: type, page: RawPage) -> dict[str, Any]:
    """Load site ``name``'s model (a new one if it has none), update it with ``page``, save it."""
    path = model_path(sites_dir, name)
    with open(path.with_name(f".{path.name}.lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        created = not path.is_file()
        model = cls() if created else cls.load(path)
        model.update(page)
        save_atomically(model, path)
    return {"site": name, "created": created, "model": f"{cls.__module__}.{cls.__qualname__}"}
