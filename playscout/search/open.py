"""Opening an index of any registered kind (search/kinds.py) with the query embedders its
manifest records, so a query is never embedded by another model than the one that made the
vectors."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from playscout.embed import Embedder
from playscout.search.backend_api import IndexOpenError, SearchBackend
from playscout.search.elastic_kind import elastic_target
from playscout.search.kind import fill_embedders
from playscout.search.kinds import AUTO, get_kind, kind_for, kind_names

__all__ = ["elastic_target", "open_backend"]


def open_backend(
    target: Path | str,
    query_embedders: Mapping[str, dict[str, Any] | Embedder] | None = None,
    ann_probe: int | None = None,
    backend: str = AUTO,
    device: str = "cpu",
    embed_device: str | None = None,
    warm: bool = False,
) -> SearchBackend:
    """Open an index (a directory, an Elasticsearch `http(s)://host:port/prefix`, or another
    registered kind's target; `backend` forces a kind, see kinds.kind_for) with query
    embedders for its channels: text channels get the embedder recorded at build time; the
    visual channel needs its text tower configured, otherwise its dense search says so.
    `ann_probe` (SearchSettings.ann_probe) overrides the embedded index's recorded probe
    count; Elasticsearch has no such knob, so setting it there is an error, not a no-op.
    `device` (SearchSettings.device): an embedded index's vector channels are held and
    searched exactly on that GPU when there is one (search/embedded/device.py);
    `embed_device` (EmbedSettings.device): where the query embedders run; None = auto.
    `warm`: the caller is a long-lived process (serve, eval) that searches many times: query
    embedders that can, embed queries where their vectors were made on a GPU
    (`warm_for_queries`); a cold CLI search keeps its no-torch start."""
    kind, text = kind_for(target, backend), str(target)
    if ann_probe is not None and not kind.ann_probe:  # a no-op would be silent: say so
        takes = " or ".join(k for k in kind_names() if get_kind(k).ann_probe)
        raise IndexOpenError(
            f"ann_probe applies to the {takes} index only; {kind.name} sets its own search breadth"
        )
    embedders = fill_embedders(kind.manifest(text), dict(query_embedders or {}), embed_device)
    opened = kind.open(text, embedders, ann_probe)
    if warm:
        for embedder in embedders.values():
            warm_up = getattr(embedder, "warm_for_queries", None)
            if warm_up is not None:
                warm_up()
    if device != "cpu":
        from playscout.search.embedded.backend import EmbeddedBackend
        from playscout.search.embedded.device import place_channels

        if isinstance(opened, EmbeddedBackend):
            place_channels(opened, device)
    return opened
