"""Index directory layout and manifest (one place, so writer and reader cannot drift).

<index>/manifest.json
<index>/<sport>/entities.json            canonical teams + players (vocabulary order)
<index>/<sport>/docs/records.{bin,off.npy} DocumentRecord JSON by doc ordinal (date, doc_id order)
<index>/<sport>/docs/cols/*.npy           game, doc_type, season, date, teams/players CSR,
                                          pass_ptr (doc -> passage rows), pass_span (char offsets)
<index>/<sport>/docs/bm25/                tantivy index over passages (row = passage ordinal)
<index>/<sport>/docs/dense/vectors.npy    passage vectors [+ ann.faiss, ann.json]
<index>/<sport>/clips/records.{bin,off.npy}  ClipRecord JSON without caption, by row
<index>/<sport>/clips/captions.{bin,off.npy} captions by row (oracle only)
<index>/<sport>/clips/cols/*.npy          game, index, period, vstart, vend, teams/players CSR
<index>/<sport>/clips/games.json          game ids in storage order; cols/game_ptr.npy ranges
<index>/<sport>/clips/caption/{bm25,dense}/  caption channel
<index>/<sport>/clips/visual/dense/       visual channel (precomputed video vectors)
<index>/<sport>/clips/visual/bm25/        visual channel: tantivy over observed text (transcript +
                                          audio events), present when any clip has some
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playscout.config import package_versions as config_versions
from playscout.search.backend_api import IndexOpenError
from playscout.search.core.build import check_schema_version

SCHEMA_VERSION = 1
FORMAT = "playscout-embedded-index"
MANIFEST = "manifest.json"


def package_versions() -> dict[str, str]:
    return config_versions(
        ("playscout", "numpy", "tantivy", "faiss-cpu", "orjson", "pydantic"), missing="unknown"
    )


def read_manifest(path: Path) -> dict[str, Any]:
    """The manifest of an index directory, or IndexOpenError with a one-line reason."""
    if not path.is_dir():
        raise IndexOpenError(f"no index at {path}: directory does not exist")
    mf = path / MANIFEST
    if not mf.is_file():
        raise IndexOpenError(f"no index at {path}: {MANIFEST} is missing (incomplete build?)")
    try:
        manifest = json.loads(mf.read_text())
    except (OSError, ValueError) as exc:
        raise IndexOpenError(f"corrupt index at {path}: {MANIFEST} unreadable ({exc})") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise IndexOpenError(f"{path} is not a {FORMAT} directory")
    return check_schema_version(manifest, SCHEMA_VERSION, str(path))
