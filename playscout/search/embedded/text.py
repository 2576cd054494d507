"""BM25 over tantivy (en_stem analyser). Each tantivy document carries the `row` it stands for,
so hits map straight to vector rows and metadata columns; filtering is done by row sets that the
numpy columns resolved, never by tantivy stored fields."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import tantivy

from playscout.errors import PlayscoutError, displayable
from playscout.search.embedded.vectors import RowRange, RowSet

# Letters and digits only: tantivy splits on "_" too, and a split word becomes a phrase
# query, which this positions-free index cannot answer.
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
TERM_SET_MAX = 50_000  # above this, fetch more hits and post-filter instead


class PathNotUtf8(PlayscoutError, ValueError):
    """tantivy takes its folder as UTF-8 text, so a folder whose name is not cannot hold the
    BM25 half of an index."""


def tantivy_path(directory: Path) -> str:
    """`directory` as tantivy takes it, or one line saying why it cannot (checked before a
    build's slow work, and before an open is blamed on corruption)."""
    text = str(directory)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise PathNotUtf8(
            f"{displayable(text)}: an index's path must be UTF-8 (tantivy cannot use this "
            "name); rename or move it"
        ) from None
    return text


def _schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("text", stored=False, tokenizer_name="en_stem", index_option="freq")
    sb.add_unsigned_field("row", stored=False, indexed=True, fast=True)
    return sb.build()


class TextIndexWriter:
    """Adds (row, text) pairs as they come; tantivy indexes them in its own thread, so a build
    feeds it while records arrive instead of after every vector is embedded (issue 36)."""

    def __init__(self, directory: Path, heap: int = 200_000_000) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory
        index = tantivy.Index(_schema(), path=tantivy_path(directory))
        self._writer = index.writer(heap_size=heap, num_threads=1)

    def add(self, row: int, text: str) -> None:
        """Rows with empty text are skipped."""
        if not text:
            return
        doc = tantivy.Document()
        doc.add_text("text", text)
        doc.add_unsigned("row", int(row))
        self._writer.add_document(doc)

    def restart(self) -> None:
        """Drop every row added so far (nothing was committed)."""
        self._writer.rollback()

    def commit(self) -> None:
        self._writer.commit()
        self._writer.wait_merging_threads()


def build_text_index(directory: Path, texts: Iterable[tuple[int, str]], heap: int = 200_000_000):
    """Index (row, text) pairs; rows with empty text are skipped."""
    writer = TextIndexWriter(directory, heap)
    for row, text in texts:
        writer.add(row, text)
    writer.commit()


def query_text(query: str) -> str:
    """Words only, lowercased: user text must never be read as query syntax (AND, -, field:)."""
    return " ".join(w.lower() for w in _WORD.findall(query))


class TextIndex:
    def __init__(self, directory: Path) -> None:
        try:
            self.index = tantivy.Index.open(tantivy_path(directory))
        except BaseException as exc:
            # A corrupt segment file makes tantivy panic, and pyo3 raises its panics as a
            # BaseException (PanicException) that would pass every `except Exception`.
            if type(exc).__name__ != "PanicException":
                raise
            raise ValueError(f"tantivy cannot read {directory.name}/ ({exc})") from None
        self.schema = self.index.schema
        self.searcher = self.index.searcher()

    def search(self, query: str, k: int, rows: RowSet = None) -> tuple[np.ndarray, np.ndarray]:
        """Top-k (rows, bm25 scores) restricted to `rows`; ties broken by row."""
        text = query_text(query)
        if not text or k <= 0 or (rows is not None and len(rows) == 0):
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        parsed = self.index.parse_query(text, ["text"])
        restrict: tantivy.Query | None = None
        if isinstance(rows, RowRange):
            restrict = tantivy.Query.range_query(
                self.schema, "row", tantivy.FieldType.Unsigned, rows.start, rows.stop - 1
            )
        elif rows is not None and len(rows) <= TERM_SET_MAX:
            restrict = tantivy.Query.term_set_query(self.schema, "row", [int(r) for r in rows])
        if restrict is not None:
            parsed = tantivy.Query.boolean_query(
                [
                    (tantivy.Occur.Must, parsed),
                    (tantivy.Occur.Must, tantivy.Query.const_score_query(restrict, 0.0)),
                ]
            )
            return self._collect(parsed, k, None)
        assert not isinstance(rows, RowRange)
        return self._collect(parsed, k, rows)

    def _collect(
        self, query: tantivy.Query, k: int, post: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        limit = k if post is None else k * 4
        while True:
            # one extra hit so ties at the cut can be ordered by row
            res = self.searcher.search(query, limit + 1, count=False)
            hits = res.hits
            rows = np.asarray(
                self.searcher.fast_field_values("row", [a for _, a in hits]), dtype=np.int64
            )
            scores = np.asarray([s for s, _ in hits], dtype=np.float32)
            exhausted = len(hits) <= limit
            if post is not None:
                pos = np.searchsorted(post, rows)
                pos[pos >= len(post)] = 0
                keep = post[pos] == rows
                rows, scores = rows[keep], scores[keep]
            if exhausted or len(rows) > k:
                order = np.lexsort((rows, -scores))[:k]
                return rows[order], scores[order]
            limit *= 4
