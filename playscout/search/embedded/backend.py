"""EmbeddedBackend: the default, server-less SearchBackend over an index directory.

The search methods are BackendCore's; this module answers its engine calls from the sport's
DocIndex/ClipIndex (numpy filter columns, tantivy BM25, memory-mapped vectors)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from playscout.corpus.models import ClipRecord, DocumentRecord
from playscout.search.backend_api import ClipChannel, ClipFilter, DocFilter, IndexOpenError
from playscout.search.core import rules
from playscout.search.core.backend import BackendCore
from playscout.search.core.fusion import Candidate
from playscout.search.core.spec import EMBEDDER_KEYS as EMBEDDER_KEYS
from playscout.search.core.spec import QueryEmbedder
from playscout.search.embedded.clips import ClipIndex
from playscout.search.embedded.columns import Vocab
from playscout.search.embedded.docs import DocIndex
from playscout.search.embedded.integrity import check_sizes
from playscout.search.embedded.layout import read_manifest
from playscout.search.embedded.text import tantivy_path
from playscout.search.embedded.vectors import RowSet, VectorStore

# (sport, channel, store, query, rows, k, served scores) of one dense clip search
DenseObserver = Callable[[str, str, VectorStore, np.ndarray, RowSet, int, np.ndarray], None]


class _Sport:
    def __init__(self, root: Path) -> None:
        ent = json.loads((root / "entities.json").read_text())
        self.teams, self.players = Vocab(ent["teams"]), Vocab(ent["players"])
        self.docs = DocIndex(root / "docs", self.teams, self.players)
        self.clips = ClipIndex(root / "clips", self.teams, self.players)


class EmbeddedBackend(BackendCore):
    """Reads an index built by playscout.search.embedded.build.build_index. Thread-compatible for reads."""

    def __init__(self, path: Path, embedders: Mapping[str, QueryEmbedder] | None = None) -> None:
        self.path = Path(path)
        tantivy_path(self.path)  # not UTF-8: say so, rather than blame corruption
        super().__init__(read_manifest(self.path), embedders)
        check_sizes(self.path, self.manifest)
        self._sports: dict[str, _Sport] = {}
        for sport in self.manifest["sports"]:
            try:
                self._sports[sport] = _Sport(self.path / sport)
            except (OSError, ValueError, KeyError) as exc:
                # Free what opened before the fault now, not when the exception is collected:
                # a live tantivy reader watches its folder and writes lock files into it, so a
                # caller that removes the bad index would race it. The cause keeps its message
                # but not its frames (which hold the half-opened sport).
                self._sports.clear()
                message = f"corrupt index at {self.path / sport}: {exc}"
                raise IndexOpenError(message) from exc.with_traceback(None)
        # Knobs for every dense search through this backend: `exact` forces exact search
        # (benchmarks, recall checks); `ann_probe` overrides the probe count each channel
        # recorded at build (0 = exact; None = the recorded setting; SearchSettings.ann_probe).
        self.exact = False
        self.ann_probe: int | None = None
        # Called after every dense clip search with what it served (serve's live recall
        # check, live_recall.RecallSampler.offer); must return at once.
        self.on_dense_clips: DenseObserver | None = None

    def close(self) -> None:
        self._sports.clear()

    def _sport(self, sport: str) -> _Sport:
        s = self._sports.get(sport)
        if s is None:
            raise rules.unknown_sport(sport, self.sports())
        return s

    # -- SearchBackend reads -----------------------------------------------------
    def channels(self, sport: str) -> list[ClipChannel]:
        return self._sport(sport).clips.channels()

    def entities(self, sport: str) -> tuple[list[str], list[str]]:
        s = self._sport(sport)
        return sorted(s.teams.items), sorted(s.players.items)

    def periods(self, sport: str) -> list[int]:
        return self._sport(sport).clips.periods()

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

    # -- engine calls for BackendCore ----------------------------------------------
    def _doc_scope(self, sport: str, filters: DocFilter | None) -> np.ndarray | None:
        return self._sport(sport).docs.passage_rows(filters)

    def _doc_bm25(
        self, sport: str, query: str, scope: np.ndarray | None, k: int
    ) -> list[Candidate]:
        docs = self._sport(sport).docs
        return docs.candidates(docs.bm25.search(query, k, scope))

    def _doc_dense(
        self, sport: str, vector: np.ndarray, scope: np.ndarray | None, k: int
    ) -> list[Candidate]:
        docs = self._sport(sport).docs
        assert docs.dense is not None
        return docs.candidates(
            docs.dense.search(vector, k, scope, exact=self.exact, probe=self.ann_probe)
        )

    def _has_doc_vectors(self, sport: str) -> bool:
        return self._sport(sport).docs.dense is not None

    def _passage_text(self, sport: str, record: DocumentRecord, payload: Any) -> str:
        return self._sport(sport).docs.passage_text(record, payload)

    def _browse_documents(self, sport: str, filters: DocFilter, top_k: int) -> list[DocumentRecord]:
        return self._sport(sport).docs.browse(filters, top_k)

    def _clip_scope(self, sport: str, filters: ClipFilter | None) -> RowSet:
        if filters is None or filters.is_empty():
            return None
        return self._sport(sport).clips.resolve(filters)

    def _clip_bm25(
        self, sport: str, channel: ClipChannel, query: str, scope: RowSet, k: int
    ) -> list[Candidate]:
        clips = self._sport(sport).clips
        return clips.candidates(clips.bm25[channel].search(query, k, scope))

    def _clip_dense(
        self, sport: str, channel: ClipChannel, vector: np.ndarray, scope: RowSet, k: int
    ) -> list[Candidate]:
        clips = self._sport(sport).clips
        dense = clips.dense[channel]
        found = dense.search(vector, k, scope, exact=self.exact, probe=self.ann_probe)
        if self.on_dense_clips is not None:
            self.on_dense_clips(sport, channel, dense, vector, scope, k, found[1])
        return clips.candidates(found)

    def recall_k(self, sport: str, channel: str) -> int | None:
        """The k a clip channel's recall was measured at by the build (manifest)."""
        entry = self.manifest["sports"].get(sport, {}).get("channels", {}).get(channel, {})
        k = (entry.get("ann") or {}).get("k")
        return int(k) if k is not None else None

    def target_recall(self, sport: str, channel: str) -> float | None:
        """The recall the build tuned a clip channel's ANN setting to reach (manifest)."""
        entry = self.manifest["sports"].get(sport, {}).get("channels", {}).get(channel, {})
        target = (entry.get("ann") or {}).get("target_recall")
        return float(target) if target is not None else None

    def _visual_sides(self, sport: str) -> tuple[bool, bool]:
        clips = self._sport(sport).clips
        return "visual" in clips.bm25, "visual" in clips.dense

    def _clip_records(
        self, sport: str, payloads: Sequence[Any], include_caption: bool
    ) -> list[ClipRecord]:
        return self._sport(sport).clips.get(payloads, include_caption)

    def _browse_clips(
        self, sport: str, filters: ClipFilter, top_k: int, include_caption: bool
    ) -> list[ClipRecord]:
        return self._sport(sport).clips.browse(filters, top_k, include_caption)


def open_index(path: Path | str, embedders: Mapping[str, Any] | None = None) -> EmbeddedBackend:
    """Open a built index without rebuilding. `embedders` maps "documents" / "caption" /
    "visual" to query embedders; each must match the spec recorded at build time."""
    return EmbeddedBackend(Path(path), embedders)
