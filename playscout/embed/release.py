"""The SVI-Bench T9 release's own vectors, read as they are, and what the release layout says
made them.

- `embeds/videos/{sport}/`: InternVideo2 clip vectors (`.npy`, flat or bucketed with
  `_bucket_mapping.json`), read by `PrecomputedVectors`;
- `embeds/documents/{sport}/all_nodes_embedded.pkl`: BGE-M3 vectors of the documents' sentence
  units (`ReleaseDocumentNodes`);
- `embeds/captions/{sport}/all_nodes_embedded.pkl`: BGE-M3 vectors of each clip's captions with
  its metadata lines (`ReleaseCaptionVectors`).

The pickles are read by the restricted unpickler of release_nodes.py. Which model made a set of
vectors is never read from a folder's name: `release_identity` names it only for the corpus'
own `embeds/<what>` folder with the layout's dimension (the reference's ingest and paths
configs fix what each folder holds); anywhere else the vectors are of unknown origin unless an
`embedder.json` declares them (and the manifest then says "declared")."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from playscout.embed.embedder import EmbeddingError, normalize_rows
from playscout.embed.release_nodes import NODES_FILE, NodeRecord, load_nodes

# What each release folder holds, by the reference's layout (configs/paths.yaml, scripts/ingest.py:
# video_index_*_video_internvideo2_all, document_index_*_m3_all, video_index_*_caption_m3_all).
RELEASE_FOLDERS: dict[str, tuple[str, int]] = {
    "videos": ("internvideo2", 512),
    "documents": ("bge-m3", 1024),
    "captions": ("bge-m3", 1024),
}
EMBEDS = "embeds"


def identity(model: str | None, how: str, **more: Any) -> dict[str, Any]:
    """How a vector channel's model is known, as the index manifest records it: `release` (the
    release layout names it), `built` (playscout ran the model), `declared` (an embedder.json or
    a server's model name says so, unchecked), `unknown`."""
    return {"model": model, "how": how, **more}


def release_identity(
    directory: Path | str, corpus_root: Path | str | None, what: str, dim: int
) -> dict[str, Any]:
    """The identity of vectors in `directory` given to a build of `corpus_root`: the release's
    model when `directory` is the corpus' own `embeds/<what>` with the layout's dimension;
    otherwise unknown, saying why."""
    model, want_dim = RELEASE_FOLDERS[what]
    where = Path(directory).resolve()
    own = Path(corpus_root).resolve() / EMBEDS / what if corpus_root is not None else None
    if own is None or where != own:
        return identity(
            None,
            "unknown",
            why=f"{where} is not the corpus' own {EMBEDS}/{what} (the release layout names "
            f"the model of that folder only; an embedder.json beside the vectors declares one)",
        )
    if dim != want_dim:
        return identity(
            None, "unknown", why=f"{where} holds {dim}-d vectors, not the release's {want_dim}-d"
        )
    return identity(model, "release", where=f"{EMBEDS}/{what}", dim=dim)


def has_release_nodes(directory: Path | str) -> bool:
    """Whether `directory` holds release node pickles (`{sport}/all_nodes_embedded.pkl`)."""
    root = Path(directory)
    return root.is_dir() and any((p / NODES_FILE).is_file() for p in root.iterdir() if p.is_dir())


class _NodeFolder:
    """`root/{sport}/all_nodes_embedded.pkl`, one sport in memory at a time (a build goes
    sport by sport; a sport's pickle of the full release is gigabytes), loaded on first use."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        if not has_release_nodes(self.root):
            raise EmbeddingError(f"{self.root}: no {{sport}}/{NODES_FILE} release node files")
        self._lock = threading.Lock()
        self._sport: str | None = None
        self._nodes: list[NodeRecord] = []
        self._dim: int | None = None

    def nodes(self, sport: str) -> list[NodeRecord]:
        with self._lock:
            if sport != self._sport:
                path = self.root / sport / NODES_FILE
                if not path.is_file():
                    raise EmbeddingError(f"no release nodes for sport {sport!r}: {path} is missing")
                self._sport, self._nodes = None, []  # the previous sport goes first
                nodes = load_nodes(path)
                self._check(nodes, path)
                self._sport, self._nodes = sport, nodes
                self._loaded(sport, nodes)
            return self._nodes

    def _check(self, nodes: list[NodeRecord], path: Path) -> None:
        """Every node has a vector, all of one width (the first sport's)."""
        if not nodes:
            raise EmbeddingError(f"{path} holds no nodes")
        for node in nodes:
            if node.embedding is None:
                raise EmbeddingError(f"{path}: node {node.id} has no embedding")
            if self._dim is None:
                self._dim = int(node.embedding.shape[0])
            if node.embedding.shape[0] != self._dim:
                raise EmbeddingError(
                    f"{path}: node {node.id} is {node.embedding.shape[0]}-d, others {self._dim}-d"
                )

    def _loaded(self, sport: str, nodes: list[NodeRecord]) -> None:
        """A subclass's index of a newly loaded sport."""

    def sports(self) -> list[str]:
        return sorted(p.name for p in self.root.iterdir() if (p / NODES_FILE).is_file())

    @property
    def dim(self) -> int:
        """The vectors' width (the first sport is loaded to read it)."""
        if self._dim is None:
            self.nodes(self.sports()[0])
        assert self._dim is not None
        return self._dim


class ReleaseCaptionVectors(_NodeFolder):
    """The release's caption vectors (one node per clip: its id is the clip id), looked up by
    clip id like `PrecomputedVectors`; queries need the model that made them (BGE-M3)."""

    def __init__(self, root: Path | str) -> None:
        super().__init__(root)
        self._by_clip: dict[str, np.ndarray] = {}

    def _loaded(self, sport: str, nodes: list[NodeRecord]) -> None:
        self._by_clip = {str(n.metadata.get("clip_id") or n.id): n.embedding for n in nodes}  # type: ignore[misc]

    def _table(self, sport: str) -> dict[str, np.ndarray]:
        self.nodes(sport)
        return self._by_clip

    def ids(self, sport: str) -> list[str]:
        return list(self._table(sport))

    def vectors_for(self, sport: str, ids: Sequence[str]) -> np.ndarray:
        table = self._table(sport)
        missing = [cid for cid in ids if cid not in table]
        if missing:
            raise EmbeddingError(
                f"{len(missing)} clip id(s) have no caption vector in "
                f"{self.root / sport / NODES_FILE}: {', '.join(map(repr, missing[:5]))}"
            )
        rows = np.stack([table[cid] for cid in ids]) if ids else np.zeros((0, self.dim), np.float32)
        return normalize_rows(rows.astype(np.float32), rows.shape[1], f"caption vectors of {sport}")


class ReleaseDocumentNodes(_NodeFolder):
    """The release's document units: each document's sentence nodes in document order, with
    their vectors (search/core/units.py places them in the corpus' text)."""

    def __init__(self, root: Path | str) -> None:
        super().__init__(root)
        self._by_doc: dict[str, list[NodeRecord]] = {}

    def _loaded(self, sport: str, nodes: list[NodeRecord]) -> None:
        grouped: dict[str, list[NodeRecord]] = {}
        for node in nodes:
            grouped.setdefault(str(node.metadata.get("doc_id") or node.source_id or ""), []).append(
                node
            )
        for units in grouped.values():  # document order (stable: file order without offsets)
            units.sort(key=lambda n: n.start_char_idx if n.start_char_idx is not None else -1)
        self._by_doc = grouped

    def for_doc(self, sport: str, doc_id: str) -> list[NodeRecord]:
        self.nodes(sport)
        return self._by_doc.get(doc_id, [])
