"""Per-sport writers. Records stream in (any order) to arrival-order temp files; `finish` sorts
them into storage order (docs by date then doc_id; clips by game then video start), so a game is
a contiguous row range and filter-only browsing is a scan in row order."""

from __future__ import annotations

import concurrent.futures as cf
import json
import shutil
from array import array
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from playscout.corpus.models import DOC_TYPES, ClipRecord, DocumentRecord, observed_text
from playscout.embed.keyed import caption_vectors, embed_distinct
from playscout.embed.precomputed import PrecomputedVectors
from playscout.search.core.build import (
    MISSING_DATE,
    Progress,
    check_record_sport,
    duplicate_clip,
    duplicate_doc,
    no_visual_vectors,
)
from playscout.search.core.spec import DocumentEmbedder
from playscout.search.core.units import DocUnits, PlayscoutUnits, Unit, unit_vectors
from playscout.search.embedded.blobs import BlobReader, BlobWriter, reorder_blob
from playscout.search.embedded.columns import (
    CsrBuilder,
    Vocab,
    date_to_int,
    permute_csr,
    save_columns,
)
from playscout.search.embedded.pipeline import (
    EmbedPipe,
    HandledClips,
    StageClock,
    embed_call_size,
    handle_clips,
)
from playscout.search.embedded.recall import AnnOptions, RowTexts, build_ann
from playscout.search.embedded.text import TextIndexWriter, build_text_index
from playscout.search.embedded.vectors import HEADER_BYTES, VectorWriter
from playscout.storage import ensure_free

# Records embedded per call: small enough that progress moves (and its ETA means something)
# every few seconds on a CPU, large enough that a GPU batch stays full.
BATCH = 256


def _arr(kind: str, values: Any) -> np.ndarray:
    return np.frombuffer(values, dtype=kind).copy() if len(values) else np.zeros(0, kind)


def reorder_vectors(src: Path, dst_dir: Path, perm: np.ndarray | None, dim: int) -> None:
    """Write dst_dir/vectors.npy with row i = src row perm[i] (None = same order, a rename)."""
    dst_dir.mkdir(parents=True, exist_ok=True)
    if perm is None:
        src.rename(dst_dir / "vectors.npy")
        return
    matrix = np.load(src, mmap_mode="r")
    ensure_free(dst_dir, matrix.nbytes + HEADER_BYTES, "vectors")
    writer = VectorWriter(dst_dir / "vectors.npy", dim)
    for s in range(0, len(perm), 65_536):
        writer.append(
            np.asarray(matrix[np.sort(perm[s : s + 65_536])])[
                np.argsort(np.argsort(perm[s : s + 65_536]))
            ]
        )
    writer.close()
    del matrix
    src.unlink()


def _identity_or(perm: np.ndarray) -> np.ndarray | None:
    return None if np.array_equal(perm, np.arange(len(perm))) else perm


def query_side(source: Any) -> DocumentEmbedder | None:
    """The model that embeds queries for a vector source, if it has one: an embedder or keyed
    vectors do, bare precomputed vectors do not. Build-time recall uses it for text queries."""
    if isinstance(source, PrecomputedVectors) or not callable(
        getattr(source, "embed_queries", None)
    ):
        return None
    return source


class _VectorChannel:
    """Arrival-order vector temp file for one channel."""

    def __init__(self, tmp: Path, dim: int) -> None:
        self.path = tmp
        self.dim = dim
        self.writer = VectorWriter(tmp, dim)

    def append(self, block: np.ndarray) -> None:
        norms = np.linalg.norm(block, axis=1)
        if block.shape[0] and not np.allclose(norms[norms > 0], 1.0, atol=1e-3):
            raise ValueError("embedder returned vectors that are not L2-normalised")
        self.writer.append(block)


class DocWriter:
    def __init__(
        self,
        root: Path,
        sport: str,
        teams: Vocab,
        players: Vocab,
        embedder: DocumentEmbedder | None,
        progress: Progress | None,
        ann: AnnOptions | None = None,
        total: int | None = None,
        units: DocUnits | None = None,
        clock: StageClock | None = None,
    ) -> None:
        """`total`: the documents expected, when the source knows (progress shows it);
        `units`: how documents are cut and what is embedded (search/core/units.py); `clock`:
        where the stages' seconds go (the sport's)."""
        self.root, self.sport, self.teams, self.players = root, sport, teams, players
        self.embedder, self.progress, self.ann = embedder, progress, ann
        self.total = total
        self.units: DocUnits = units or PlayscoutUnits()
        root.mkdir(parents=True)
        self.records = BlobWriter(root, "records.tmp")
        self.doc_ids: dict[str, int] = {}
        self.keys: list[tuple[str, str]] = []
        self.games = Vocab()
        self.game, self.dtype, self.season, self.date = (
            array("i"),
            array("b"),
            array("i"),
            array("i"),
        )
        self.team_csr, self.player_csr = CsrBuilder(), CsrBuilder()
        self.pass_count, self.pass_span = array("q"), array("q")
        self.dense = _VectorChannel(root / "dense.tmp.npy", embedder.dim) if embedder else None
        self._pending: list[Unit] = []
        self.clock = clock or StageClock()
        self.pipe = EmbedPipe(self.clock) if embedder is not None else None
        self.call = embed_call_size(embedder)
        if progress:  # the stage's clock starts with its work, not with its first result
            progress(f"{sport} documents", 0, total)

    def add(self, doc: DocumentRecord) -> None:
        check_record_sport("document", doc.doc_id, doc.sport, self.sport)
        if doc.doc_id in self.doc_ids:
            raise duplicate_doc(doc.doc_id, self.sport)
        self.doc_ids[doc.doc_id] = len(self.keys)
        self.keys.append((doc.date or MISSING_DATE, doc.doc_id))
        self.records.append(doc.model_dump(mode="json"))
        self.game.append(self.games.add(doc.game_id) if doc.game_id is not None else -1)
        self.dtype.append(DOC_TYPES.index(doc.doc_type))
        self.season.append(doc.season if doc.season is not None else -1)
        self.date.append(date_to_int(doc.date))
        self.team_csr.append(self.teams.add(t) for t in doc.teams)
        self.player_csr.append(self.players.add(p) for p in doc.players)
        units = self.units.units(doc)
        self.pass_count.append(len(units))
        for unit in units:
            self.pass_span.extend((unit.start, unit.end))
        self._pending += units
        if len(self._pending) >= self.call:
            self._flush()

    def _flush(self, final: bool = False) -> None:
        """Queue the pending passages' embedding; `final`: the last flush, which waits for
        every vector (the stage's count is then its total: it shows as finished)."""
        done = len(self.keys)
        embedder, pending = self.embedder, self._pending
        if self.pipe is not None and embedder is not None and pending:
            self.pipe.submit(
                len(pending),
                lambda: self._vectors(embedder, pending),
                lambda vectors: self._embedded(vectors, done),
            )
        elif self.progress and not final:
            self.progress(f"{self.sport} documents", done, self.total)
        self._pending = []
        if self.pipe is not None and final:
            self.pipe.drain()
        if self.progress and final:
            self.progress(f"{self.sport} documents", done, done)

    def _vectors(self, embedder: DocumentEmbedder, pending: list[Unit]) -> np.ndarray:
        """The release's own vectors of these units, else embedded here."""
        assert self.dense is not None
        given = unit_vectors(pending)
        if given is not None and given.shape[1] != self.dense.dim:
            raise ValueError(
                f"the release's document vectors are {given.shape[1]}-d but the query "
                f"model gives {self.dense.dim}-d: pass the model that made them"
            )
        return given if given is not None else embed_distinct(embedder, [u.embed for u in pending])

    def _embedded(self, vectors: np.ndarray, done: int) -> None:
        assert self.dense is not None
        self.dense.append(vectors)
        if self.progress:
            self.progress(f"{self.sport} documents", done, self.total)

    def close(self) -> None:
        """Stop the embedding thread (also after a failure)."""
        if self.pipe is not None:
            self.pipe.close()

    def finish(self) -> dict[str, Any]:
        """Columns, records and BM25 while the last passages are embedded, then the vectors."""
        self._flush()
        self.records.close()
        n = len(self.keys)
        perm = np.asarray(sorted(range(n), key=self.keys.__getitem__), dtype=np.int64)
        counts = _arr("q", self.pass_count)
        old_ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        team_ptr, team_idx = permute_csr(*self.team_csr.arrays(), perm)
        player_ptr, player_idx = permute_csr(*self.player_csr.arrays(), perm)
        pass_ptr, pass_rows = permute_csr(old_ptr, np.arange(old_ptr[-1], dtype=np.int64), perm)
        spans = _arr("q", self.pass_span).reshape(-1, 2)[pass_rows]
        pass_doc = np.repeat(np.arange(n, dtype=np.int32), np.diff(pass_ptr))
        cols = self.root / "cols"
        save_columns(
            cols,
            game=_arr("i", self.game)[perm],
            doc_type=_arr("b", self.dtype)[perm],
            season=_arr("i", self.season)[perm],
            date=_arr("i", self.date)[perm],
            team_ptr=team_ptr,
            team_idx=team_idx,
            player_ptr=player_ptr,
            player_idx=player_idx,
            pass_ptr=pass_ptr,
            pass_span=spans,
            pass_doc=pass_doc,
        )
        (self.root / "games.json").write_text(json.dumps(self.games.items))
        doc_ids = sorted(self.doc_ids, key=lambda d: self.keys[self.doc_ids[d]])
        (self.root / "doc_ids.json").write_text(json.dumps(doc_ids))
        reorder_blob(self.root, "records.tmp", "records", perm)
        for ext in ("bin", "off.npy"):
            (self.root / f"records.tmp.{ext}").unlink()
        with self.clock.timed("bm25", len(spans)):
            build_text_index(self.root / "bm25", _passage_texts(self.root, pass_ptr, spans))
        info: dict[str, Any] = {"documents": n, "passages": len(spans)}
        self._flush(final=True)
        self.close()
        if self.dense is not None:
            self.dense.writer.close()
            reorder_vectors(
                self.dense.path, self.root / "dense", _identity_or(pass_rows), self.dense.dim
            )
            texts = _passage_reader(self.root, pass_doc, spans)
            with self.clock.timed("ann"):
                info["dense_ann"] = build_ann(
                    self.root / "dense", self.ann, texts, self.embedder, self.progress
                )
        return info


class ClipWriter:
    def __init__(
        self,
        root: Path,
        sport: str,
        teams: Vocab,
        players: Vocab,
        caption_embedder: DocumentEmbedder | None,
        visual: Any | None,
        progress: Progress | None,
        ann: AnnOptions | None = None,
        total: int | None = None,
        units: DocUnits | None = None,
        clock: StageClock | None = None,
        defer: Defer | None = None,
    ) -> None:
        """`total`: the clips expected, when the source knows (progress shows it); `units`:
        what text of a clip is embedded (search/core/units.py); `clock`: where the stages'
        seconds go (the sport's); `defer`: runs each vector channel's ANN measurement (at
        once by default; the build may run it in the background), so `finish` returns the
        channels' entries as futures."""
        self.defer: Defer = defer or _at_once
        self.units: DocUnits = units or PlayscoutUnits()
        self.root, self.sport, self.teams, self.players = root, sport, teams, players
        self.caption_embedder, self.visual, self.progress = caption_embedder, visual, progress
        self.ann, self.total = ann, total
        root.mkdir(parents=True)
        self.records = BlobWriter(root, "records.tmp")
        self.captions = BlobWriter(root, "captions.tmp")
        self.games = Vocab()
        self.game_date: dict[int, str] = {}
        self.game, self.index, self.period = array("i"), array("q"), array("h")
        self.vstart, self.vend = array("d"), array("d")
        self.team_csr, self.player_csr = CsrBuilder(), CsrBuilder()
        self.caption_dense: _VectorChannel | None = None
        self.visual_dense: _VectorChannel | None = None
        self._batch: list[ClipRecord] = []
        self.count = 0
        self.embedded = 0  # clips whose caption vectors are written
        self.observed = 0  # clips with transcript or audio-event text
        self.clock = clock or StageClock()
        self.pipe: EmbedPipe | None = None
        self.call = embed_call_size(caption_embedder)
        self._captions: tuple[list[str], list[str]] = ([], [])  # ids, texts not yet submitted
        # BM25 over the captions, fed in arrival order as records come (rows = arrival order,
        # which is storage order when the source yields clips by game in date order)
        self.caption_bm25: TextIndexWriter | None = None
        if caption_embedder is not None:
            self.pipe = EmbedPipe(self.clock)
            self.caption_bm25 = TextIndexWriter(root / "caption" / "bm25")
        if progress:
            progress(f"{sport} clips", 0, total)
            if caption_embedder is not None:
                progress(f"{sport} caption vectors", 0, total)

    def add(self, clip: ClipRecord) -> None:
        self._batch.append(clip)
        if len(self._batch) >= BATCH:
            self.flush()

    def flush(self) -> None:
        """Handle the clips added but not yet handled."""
        batch, self._batch = self._batch, []
        if batch:
            caption_text = None if self.units.style == "playscout" else self.units.caption_text
            self.add_handled(handle_clips(self.sport, batch, caption_text))

    def add_handled(self, h: HandledClips) -> None:
        """Clips handled by `handle_clips` (here or in a worker process), in source order."""
        first = self.count
        for i, game_id in enumerate(h.game_ids):
            g = self.games.add(game_id)
            date = h.dates[i]
            if date:
                self.game_date.setdefault(g, date)
            self.game.append(g)
            self.team_csr.append(self.teams.add(t) for t in h.teams[i])
            self.player_csr.append(self.players.add(p) for p in h.players[i])
        self.index.extend(h.index)
        self.period.extend(h.period)
        self.vstart.extend(h.vstart)
        self.vend.extend(h.vend)
        for record, caption in zip(h.records, h.captions, strict=True):
            self.records.append_bytes(record)
            self.captions.append(caption)
        self.observed += h.observed
        self.count += len(h)
        if self.caption_bm25 is not None:
            with self.clock.timed("bm25", len(h)):
                for row, caption in enumerate(h.captions, first):
                    self.caption_bm25.add(row, caption)
        if self.pipe is not None:
            ids, texts = self._captions
            ids.extend(h.clip_ids)
            texts.extend(h.captions if h.embed_texts is None else h.embed_texts)
            while len(texts) >= self.call:
                self._submit()
                ids, texts = self._captions
            self.pipe.collect()
        if self.visual is not None:
            vecs = np.asarray(self.visual.vectors_for(self.sport, h.clip_ids))
            if vecs.shape[0] != len(h):
                raise ValueError(f"visual source gave {vecs.shape[0]} vectors for {len(h)} clips")
            if self.visual_dense is None:
                self.visual_dense = _VectorChannel(self.root / "visual.tmp.npy", vecs.shape[1])
            self.visual_dense.append(vecs)
        if self.progress:
            self.progress(f"{self.sport} clips", self.count, self.total)

    def _submit(self) -> None:
        """Queue the next call of at most `call` captions: calls of one size whatever the
        shards' (a call's batches, and so the vectors' rounding, depend on its texts)."""
        assert self.pipe is not None
        pending_ids, pending = self._captions
        embedder = self.caption_embedder
        if pending and embedder is not None:
            ids, texts = pending_ids[: self.call], pending[: self.call]
            self._captions = (pending_ids[self.call :], pending[self.call :])
            self.pipe.submit(
                len(texts),
                lambda: caption_vectors(embedder, self.sport, ids, texts),
                self._embedded,
            )

    def _embedded(self, vecs: np.ndarray) -> None:
        if self.caption_dense is None:
            self.caption_dense = _VectorChannel(self.root / "caption.tmp.npy", vecs.shape[1])
        self.caption_dense.append(vecs)
        self.embedded += len(vecs)
        if self.progress:
            self.progress(f"{self.sport} caption vectors", self.embedded, self.total)

    def close(self) -> None:
        """Stop the embedding thread (also after a failure)."""
        if self.pipe is not None:
            self.pipe.close()

    def finish(self) -> dict[str, Any]:
        """Columns, records and the captions' BM25 while the last captions are embedded,
        then the vectors and their ANN setting."""
        self.flush()
        while self.pipe is not None and self._captions[1]:
            self._submit()
        if self.progress and self.total != self.count:  # else the last batch finished it
            self.progress(f"{self.sport} clips", self.count, self.count)
        self.records.close()
        self.captions.close()
        n = self.count
        game = _arr("i", self.game)
        index = _arr("q", self.index)
        vstart = _arr("d", self.vstart)
        order = sorted(
            range(len(self.games.items)),
            key=lambda g: (self.game_date.get(g, "9999"), self.games.items[g]),
        )
        rank = np.empty(len(order), dtype=np.int32)
        rank[np.asarray(order, dtype=np.int64)] = np.arange(len(order), dtype=np.int32)
        new_game = rank[game] if n else game
        perm = np.lexsort((index, vstart, new_game)).astype(np.int64)
        sgame, sindex = new_game[perm], index[perm]
        dup = np.flatnonzero((sgame[1:] == sgame[:-1]) & (sindex[1:] == sindex[:-1]))
        if len(dup):
            gid = self.games.items[order[int(sgame[dup[0]])]]
            raise duplicate_clip(f"{gid}_{int(sindex[dup[0]])}", self.sport)
        game_ptr = np.searchsorted(sgame, np.arange(len(order) + 1)).astype(np.int64)
        team_ptr, team_idx = permute_csr(*self.team_csr.arrays(), perm)
        player_ptr, player_idx = permute_csr(*self.player_csr.arrays(), perm)
        save_columns(
            self.root / "cols",
            game=sgame,
            index=sindex,
            period=_arr("h", self.period)[perm],
            vstart=vstart[perm].astype(np.float64),
            vend=_arr("d", self.vend)[perm],
            team_ptr=team_ptr,
            team_idx=team_idx,
            player_ptr=player_ptr,
            player_idx=player_idx,
            game_ptr=game_ptr,
        )
        (self.root / "games.json").write_text(json.dumps([self.games.items[g] for g in order]))
        same = _identity_or(perm)
        for name in ("records", "captions"):
            if same is None:
                for ext in ("bin", "off.npy"):
                    (self.root / f"{name}.tmp.{ext}").rename(self.root / f"{name}.{ext}")
            else:
                reorder_blob(self.root, f"{name}.tmp", name, perm)
                for ext in ("bin", "off.npy"):
                    (self.root / f"{name}.tmp.{ext}").unlink()
        info: dict[str, Any] = {"clips": n, "games": len(order)}
        caps = BlobReader(self.root, "captions")

        def captions(rows: Sequence[int]) -> list[str]:
            return [caps.get(int(r)) for r in rows]

        if self.caption_bm25 is not None:
            with self.clock.timed("bm25"):
                if same is not None:  # fed in arrival order: index it again in storage order
                    self.caption_bm25.restart()
                    for i in range(n):
                        self.caption_bm25.add(i, caps.get(i))
                self.caption_bm25.commit()
        if self.pipe is not None:
            self.pipe.drain()
            self.close()
        if self.caption_embedder is not None:
            if self.caption_dense is None:  # no clips at all
                self.caption_dense = _VectorChannel(
                    self.root / "caption.tmp.npy", self.caption_embedder.dim
                )
            info["caption_ann"] = self._finish_dense(
                self.caption_dense, "caption", same, captions, self.caption_embedder
            )
        if self.observed:  # BM25 side of the visual channel: what was heard, never captions
            recs = BlobReader(self.root, "records")
            build_text_index(
                self.root / "visual" / "bm25",
                ((i, observed_text(**_heard(recs.get(i)))) for i in range(n)),
            )
        info["observed_clips"] = self.observed
        if self.visual is not None:
            if self.visual_dense is None:
                raise no_visual_vectors(self.sport)
            info["visual_ann"] = self._finish_dense(
                self.visual_dense, "visual", same, captions, self.visual
            )
        return info

    def _finish_dense(
        self,
        channel: _VectorChannel,
        name: str,
        perm: np.ndarray | None,
        texts: RowTexts,
        source: Any,
    ) -> cf.Future[dict[str, Any]]:
        """Write the channel's vectors in clip order, then measure and record its ANN setting
        (queries: `texts` of rows through `source`'s query side); returns the manifest entry,
        when `defer` has run the measurement."""
        channel.writer.close()
        dst = self.root / name / "dense"
        reorder_vectors(channel.path, dst, perm, channel.dim)

        def measure() -> dict[str, Any]:
            with self.clock.timed("ann"):
                return build_ann(dst, self.ann, texts, query_side(source), self.progress)

        return self.defer(measure)


# Runs a job now or later; its future holds the job's result.
Defer = Callable[[Callable[[], dict[str, Any]]], "cf.Future[dict[str, Any]]"]


def _at_once(job: Callable[[], dict[str, Any]]) -> cf.Future[dict[str, Any]]:
    done: cf.Future[dict[str, Any]] = cf.Future()
    done.set_result(job())
    return done


def _heard(record: dict[str, Any]) -> dict[str, Any]:
    return {
        "transcript": record.get("transcript", ""),
        "audio_events": record.get("audio_events", []),
    }


def write_entities(root: Path, teams: Vocab, players: Vocab) -> None:
    (root / "entities.json").write_text(
        json.dumps({"teams": teams.items, "players": players.items}, ensure_ascii=False)
    )


def remove_tree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def _passage_reader(root: Path, pass_doc: np.ndarray, spans: np.ndarray) -> RowTexts:
    """The texts of passage rows, read back from the stored records."""
    reader = BlobReader(root, "records")

    def texts(rows: Sequence[int]) -> list[str]:
        out = []
        for row in rows:
            start, end = spans[row]
            out.append(reader.get(int(pass_doc[row]))["text"][int(start) : int(end)])
        return out

    return texts


def _passage_texts(
    root: Path, pass_ptr: np.ndarray, spans: np.ndarray
) -> Iterator[tuple[int, str]]:
    reader = BlobReader(root, "records")
    for doc in range(len(pass_ptr) - 1):
        text = reader.get(doc)["text"]
        for row in range(int(pass_ptr[doc]), int(pass_ptr[doc + 1])):
            yield row, text[int(spans[row, 0]) : int(spans[row, 1])]
