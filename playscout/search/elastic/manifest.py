"""The manifest lives in the meta index (doc "manifest"), beside one "entities:<sport>" doc per
sport; it is read once at open and checked like the embedded index manifest."""

from __future__ import annotations

from importlib import metadata
from typing import Any

from elasticsearch import ApiError, Elasticsearch, NotFoundError, TransportError

from playscout.search.base import IndexOpenError
from playscout.search.elastic.names import Names
from playscout.search.embedded.spec import check_embedders as check_embedders

FORMAT = "playscout-elasticsearch-index"
SCHEMA_VERSION = 1
MANIFEST_ID = "manifest"


def entities_id(sport: str) -> str:
    return f"entities:{sport}"


def package_versions() -> dict[str, str]:
    out = {}
    for name in ("playscout", "elasticsearch", "elastic-transport", "numpy", "pydantic"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "unknown"
    return out


def read_manifest_or_none(es: Elasticsearch, names: Names) -> dict[str, Any] | None:
    try:
        doc = es.get(index=names.meta(), id=MANIFEST_ID)
    except NotFoundError:
        return None
    return dict(doc["_source"])


def read_manifest(es: Elasticsearch, names: Names, url: str) -> dict[str, Any]:
    """The manifest, or IndexOpenError with a one-line reason."""
    where = f"{url} (prefix {names.prefix!r})"
    try:
        manifest = read_manifest_or_none(es, names)
    except (ApiError, TransportError) as exc:
        raise IndexOpenError(f"cannot read the index manifest at {where}: {exc}") from exc
    if manifest is None:
        raise IndexOpenError(
            f"no index at {where}: {names.meta()} has no manifest (never built, or build failed)"
        )
    if manifest.get("format") != FORMAT:
        raise IndexOpenError(f"{names.meta()} at {url} is not a {FORMAT} index")
    version = manifest.get("schema_version")
    if version != SCHEMA_VERSION:
        raise IndexOpenError(
            f"index at {where} has schema version {version}, this code reads {SCHEMA_VERSION}: "
            "rebuild it"
        )
    return manifest
