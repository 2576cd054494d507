"""`verify_index(target)`: the full integrity check of an index, embedded or Elasticsearch
(`playscout index verify`, `serve --verify`)."""

from __future__ import annotations

from pathlib import Path

from playscout.search.core.verify import VerifyProgress, VerifyReport
from playscout.search.embedded.integrity import verify_embedded
from playscout.search.open import elastic_target


def verify_index(target: Path | str, progress: VerifyProgress | None = None) -> VerifyReport:
    """Every file's checksum (a directory) or every alias and count (Elasticsearch) against
    what the build recorded. An index that cannot be opened at all raises IndexOpenError."""
    es = elastic_target(target)
    if es is None:
        return verify_embedded(Path(target), progress)
    from playscout.search.elastic import make_client
    from playscout.search.elastic.verify import verify_elasticsearch

    url, prefix = es
    client = make_client(url)
    try:
        return verify_elasticsearch(client, url, prefix, progress)
    finally:
        client.close()
