"""The manifest lives in the meta index (doc "manifest"), beside one "entities:<sport>" doc per
sport; it is read once at open and checked like the embedded index manifest."""

from __future__ import annotations

from typing import Any

from elasticsearch import ApiError, Elasticsearch, NotFoundError, TransportError

from playscout.config import package_versions as config_versions
from playscout.search.backend_api import IndexOpenError
from playscout.search.core.build import check_schema_version
from playscout.search.elastic.names import Names

FORMAT = "playscout-elasticsearch-index"
SCHEMA_VERSION = 1
MANIFEST_ID = "manifest"


def entities_id(sport: str) -> str:
    return f"entities:{sport}"


def package_versions() -> dict[str, str]:
    return config_versions(
        ("playscout", "elasticsearch", "elastic-transport", "numpy", "pydantic"), missing="unknown"
    )


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
    return check_schema_version(manifest, SCHEMA_VERSION, where)
