"""The Elasticsearch backend's registry entry: `http(s)://host:port/prefix`. The client
package is imported only when such a target is used (it comes with the `elastic` extra)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from playscout.embed import Embedder
from playscout.search.backend_api import SearchBackend
from playscout.search.core.build import SportSource
from playscout.search.core.verify import VerifyProgress, VerifyReport
from playscout.search.kind import BackendKind, BuildOptions


def elastic_target(target: Path | str) -> tuple[str, str] | None:
    """'http://host:9200/prefix' -> (url, prefix); a local path -> None."""
    text = str(target)
    if not text.startswith(("http://", "https://")):
        return None
    scheme, _, rest = text.partition("://")
    host, _, prefix = rest.partition("/")
    return f"{scheme}://{host}", prefix.strip("/") or "playscout"


def _parts(target: str) -> tuple[str, str]:
    parts = elastic_target(target)
    assert parts is not None  # the registry only hands this kind its own targets
    return parts


def _manifest(target: str) -> Mapping[str, Any]:
    from playscout.search import elastic
    from playscout.search.elastic.manifest import read_manifest
    from playscout.search.elastic.names import Names

    url, prefix = _parts(target)
    client = elastic.make_client(url)
    try:
        return read_manifest(client, Names(prefix), url)
    finally:
        client.close()


def _open(target: str, embedders: Mapping[str, Embedder], _ann_probe: int | None) -> SearchBackend:
    from playscout.search import elastic

    url, prefix = _parts(target)
    return elastic.open_elasticsearch(url, prefix, embedders, client=elastic.make_client(url))


def _build(target: str, sources: Iterable[SportSource], o: BuildOptions) -> Any:
    from playscout.search import elastic

    url, prefix = _parts(target)
    client = elastic.make_client(url, request_timeout=120.0)  # bulk ingest: long requests
    try:
        embedders = (o.doc_embedder, o.caption_embedder, o.visual_vectors)
        return elastic.build_elasticsearch(
            url,
            sources,
            *embedders,
            prefix,
            o.progress,
            o.overwrite,
            o.index_options,
            client=client,
            units=o.units,
            identities=o.identities,
        )
    finally:
        client.close()


def _verify(target: str, progress: VerifyProgress | None) -> VerifyReport:
    from playscout.search import elastic
    from playscout.search.elastic.verify import verify_elasticsearch

    url, prefix = _parts(target)
    client = elastic.make_client(url)
    try:
        return verify_elasticsearch(client, url, prefix, progress)
    finally:
        client.close()


ELASTICSEARCH = BackendKind(
    name="elasticsearch",
    describes="http(s)://host:port/prefix",
    recognises=lambda target: elastic_target(target) is not None,
    present=lambda _target: True,  # a server: opening says what is missing
    manifest=_manifest,
    open=_open,
    build=_build,
    verify=_verify,
)
