"""Leakage guards: a read-only view of a search backend that hides documents and clips a task
must not see (T4/T6: the target game's report; T5: everything after the forecast cutoff).
Hidden items are filtered out of searches (over-fetching so top_k still fills) and look unknown
to direct lookups, so a tool cannot tell hidden from absent."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from playscout.corpus.models import ClipRecord, DocumentRecord


@dataclass
class BackendView:
    hide_doc_ids: set[str] = field(default_factory=set)
    hide_doc: Callable[[DocumentRecord], bool] | None = None
    hide_clip: Callable[[ClipRecord], bool] | None = None

    def doc_hidden(self, rec: DocumentRecord) -> bool:
        return rec.doc_id in self.hide_doc_ids or bool(self.hide_doc and self.hide_doc(rec))

    def clip_hidden(self, rec: ClipRecord) -> bool:
        return bool(self.hide_clip and self.hide_clip(rec))

    def wrap(self, backend: Any) -> GuardedBackend:
        return GuardedBackend(backend, self)


class GuardedBackend:
    OVERFETCH = 4

    def __init__(self, inner: Any, view: BackendView) -> None:
        self.inner = inner
        self.view = view

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def search_documents(
        self, sport: str, query: str | None, filters: Any = None, top_k: int = 20, **kw: Any
    ) -> list[Any]:
        hits = self.inner.search_documents(sport, query, filters, top_k * self.OVERFETCH + 50, **kw)
        return [h for h in hits if not self.view.doc_hidden(h.record)][:top_k]

    def search_clips(
        self, sport: str, query: str | None, filters: Any = None, top_k: int = 100, **kw: Any
    ) -> list[Any]:
        hits = self.inner.search_clips(sport, query, filters, top_k * self.OVERFETCH + 50, **kw)
        return [h for h in hits if not self.view.clip_hidden(h.record)][:top_k]

    def get_documents(self, sport: str, doc_ids: Sequence[str]) -> list[DocumentRecord | None]:
        return [
            None if r is None or self.view.doc_hidden(r) else r
            for r in self.inner.get_documents(sport, doc_ids)
        ]

    def get_clips(
        self, sport: str, clip_ids: Sequence[str], include_caption: bool = False
    ) -> list[ClipRecord | None]:
        return [
            None if r is None or self.view.clip_hidden(r) else r
            for r in self.inner.get_clips(sport, clip_ids, include_caption=include_caption)
        ]
