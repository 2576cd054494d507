"""EmbeddedBackend: the default, server-less SearchBackend over an index directory."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from playscout.corpus.models import ClipRecord, DocumentRecord
from playscout.search.base import (
    ClipChannel,
    ClipFilter,
    ClipHit,
    DocFilter,
    DocHit,
    IndexOpenError,
    SearchError,
    SearchMode,
)
from playscout.search.embedded.clips import ClipIndex
from playscout.search.embedded.columns import Vocab
from playscout.search.embedded.docs import DocIndex
from playscout.search.embedded.layout import read_manifest
from playscout.search.embedded.spec import EMBEDDER_KEYS as EMBEDDER_KEYS
from playscout.search.embedded.spec import QueryEmbedder, check_embedders

# Embedder keys: one query embedder per vector channel.


def _empty(query: str | None) -> bool:
    return query is None or not query.strip()


class _Sport:
    def __init__(self, root: Path, embedders: Mapping[str, QueryEmbedder | None]) -> None:
        ent = json.loads((root / "entities.json").read_text())
        self.teams, self.players = Vocab(ent["teams"]), Vocab(ent["players"])
        self.docs = DocIndex(root / "docs", self.teams, self.players, embedders.get("documents"))
        self.clips = ClipIndex(root / "clips", self.teams, self.players, dict(embedders))


class EmbeddedBackend:
    """Reads an index built by playscout.search.embedded.build.build_index. Thread-compatible for reads."""

    def __init__(self, path: Path, embedders: Mapping[str, QueryEmbedder] | None = None) -> None:
        self.path = Path(path)
        self.manifest = read_manifest(self.path)
        given = dict(embedders or {})
        check_embedders(self.manifest, given)
        self._sports: dict[str, _Sport] = {}
        for sport in self.manifest["sports"]:
            try:
                self._sports[sport] = _Sport(self.path / sport, given)
            except (OSError, ValueError, KeyError) as exc:
                raise IndexOpenError(f"corrupt index at {self.path / sport}: {exc}") from exc
        self._exact = False

    # -- knobs -----------------------------------------------------------------
    @property
    def exact(self) -> bool:
        """Force exact vector search everywhere (benchmarks, recall tests)."""
        return self._exact

    @exact.setter
    def exact(self, value: bool) -> None:
        self._exact = value
        for s in self._sports.values():
            s.docs.exact = s.clips.exact = value

    def close(self) -> None:
        self._sports.clear()

    def _sport(self, sport: str) -> _Sport:
        s = self._sports.get(sport)
        if s is None:
            raise SearchError(f"unknown sport {sport!r}; this index has {self.sports()}")
        return s

    # -- SearchBackend ---------------------------------------------------------
    def sports(self) -> list[str]:
        return sorted(self.manifest["sports"])

    def channels(self, sport: str) -> list[ClipChannel]:
        return self._sport(sport).clips.channels()

    def entities(self, sport: str) -> tuple[list[str], list[str]]:
        s = self._sport(sport)
        return sorted(s.teams.items), sorted(s.players.items)

    def search_documents(
        self,
        sport: str,
        query: str | None,
        filters: DocFilter | None = None,
        top_k: int = 20,
        mode: SearchMode = "hybrid",
        window: int = 200,
    ) -> list[DocHit]:
        docs = self._sport(sport).docs
        _check_sizes(top_k, window)
        if _empty(query):
            if filters is None or filters.is_empty():
                raise SearchError("an empty query needs at least one filter")
            return docs.browse(filters, top_k)
        assert query is not None
        return docs.search(query, filters, top_k, mode, max(window, top_k))

    def search_clips(
        self,
        sport: str,
        query: str | None,
        filters: ClipFilter | None = None,
        top_k: int = 100,
        channel: ClipChannel = "visual",
        mode: SearchMode = "hybrid",
        window: int = 500,
    ) -> list[ClipHit]:
        clips = self._sport(sport).clips
        _check_sizes(top_k, window)
        if channel not in clips.channels():
            raise SearchError(
                f"clip channel {channel!r} is not in the {sport} index; have {clips.channels()}"
            )
        if _empty(query):
            if filters is None or filters.is_empty():
                raise SearchError("an empty query needs at least one filter")
            return clips.browse(filters, top_k, include_caption=channel == "caption")
        assert query is not None
        return clips.search(query, filters, top_k, channel, mode, max(window, top_k))

    def get_documents(self, sport: str, doc_ids: Sequence[str]) -> list[DocumentRecord | None]:
        docs = self._sport(sport).docs
        ords = [docs.ordinal.get(d) for d in doc_ids]
        found = iter(docs.get([o for o in ords if o is not None]))
        return [next(found) if o is not None else None for o in ords]

    def get_clips(
        self, sport: str, clip_ids: Sequence[str], include_caption: bool = False
    ) -> list[ClipRecord | None]:
        clips = self._sport(sport).clips
        rows = clips.rows_of(clip_ids)
        found = iter(clips.get([r for r in rows if r is not None], include_caption))
        return [next(found) if r is not None else None for r in rows]


def _check_sizes(top_k: int, window: int) -> None:
    if top_k <= 0 or window <= 0:
        raise SearchError(f"top_k and window must be positive (got {top_k}, {window})")


def open_index(path: Path | str, embedders: Mapping[str, Any] | None = None) -> EmbeddedBackend:
    """Open a built index without rebuilding. `embedders` maps "documents" / "caption" /
    "visual" to query embedders; each must match the spec recorded at build time."""
    return EmbeddedBackend(Path(path), embedders)
