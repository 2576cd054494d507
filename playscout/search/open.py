"""Opening an index, embedded or Elasticsearch, with the query embedders its manifest records,
so a query is never embedded by another model than the one that made the vectors."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from playscout.embed import Embedder, make_embedder
from playscout.search.backend_api import IndexOpenError, SearchBackend
from playscout.search.embedded import open_index
from playscout.search.embedded.layout import read_manifest


def elastic_target(target: Path | str) -> tuple[str, str] | None:
    """'http://host:9200/prefix' -> (url, prefix); a local path -> None."""
    text = str(target)
    if not text.startswith(("http://", "https://")):
        return None
    scheme, _, rest = text.partition("://")
    host, _, prefix = rest.partition("/")
    return f"{scheme}://{host}", prefix.strip("/") or "playscout"


def _recorded_specs(manifest: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Channel -> embedder spec as recorded at build time (the first sport that has it)."""
    specs: dict[str, dict[str, Any]] = {}
    for sport in manifest.get("sports", {}).values():
        for channel, info in sport.get("channels", {}).items():
            specs.setdefault(channel, info["spec"])
    return specs


def _query_embedders(
    specs: Mapping[str, dict[str, Any]], given: Mapping[str, dict[str, Any] | Embedder]
) -> dict[str, Embedder]:
    embedders: dict[str, Embedder] = {}
    for channel, spec in specs.items():
        chosen = given.get(channel)
        if chosen is None and spec.get("kind") == "precomputed":
            continue  # video vectors cannot embed a query: the text tower must be configured
        if chosen is None or isinstance(chosen, dict):
            embedders[channel] = make_embedder(chosen or spec)
        else:
            embedders[channel] = chosen
    return embedders


def open_backend(
    target: Path | str,
    query_embedders: Mapping[str, dict[str, Any] | Embedder] | None = None,
    ann_probe: int | None = None,
) -> SearchBackend:
    """Open an index (a directory, or an Elasticsearch `http(s)://host:port/prefix`) with
    query embedders for its channels: text channels get the embedder recorded at build time;
    the visual channel needs its text tower configured, otherwise its dense search says so.
    `ann_probe` (SearchSettings.ann_probe) overrides the embedded index's recorded probe
    count; Elasticsearch has no such knob, so setting it there is an error, not a no-op."""
    given = dict(query_embedders or {})
    es = elastic_target(target)
    if es is None:
        specs = _recorded_specs(read_manifest(Path(target)))
        backend = open_index(target, _query_embedders(specs, given))
        backend.ann_probe = ann_probe
        return backend
    if ann_probe is not None:
        raise IndexOpenError(
            "ann_probe applies to the embedded index only; Elasticsearch sets its own kNN "
            "num_candidates"
        )
    from playscout.search.elastic import make_client, open_elasticsearch
    from playscout.search.elastic.manifest import read_manifest as read_es_manifest
    from playscout.search.elastic.names import Names

    url, prefix = es
    client = make_client(url)
    specs = _recorded_specs(read_es_manifest(client, Names(prefix), url))
    return open_elasticsearch(url, prefix, _query_embedders(specs, given), client=client)
