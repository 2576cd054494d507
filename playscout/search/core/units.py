"""The text units an index ranks and embeds, chosen per build (`index build --units`):

- `playscout`: documents as passages of up to ~64 words (passages.py), captions as bare text;
- `reference`: the reference's units (SVI-Bench T9 `tools/extract_doc_embeddings.py` and
  `extract_caption_embeddings.py`): a document's sentences (its text with every newline turned
  into '. \\n', as the reference loads it), each embedded with the document's metadata as
  `key: value` lines, and a clip's captions embedded with its metadata lines;
- `release`: the release's own sentence nodes and vectors (`embeds/documents`), placed in the
  corpus' text; nothing is embedded.

Both index builders read a document's units from here, so both rank the same units. Spans are
character offsets into the corpus' own text (highlights and `document_qa` read that text)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import numpy as np

from playscout.corpus.models import ClipRecord, DocumentRecord
from playscout.embed.embedder import EmbeddingError, normalize_rows
from playscout.embed.release import ReleaseDocumentNodes
from playscout.embed.release_nodes import embed_text
from playscout.search.core.passages import split_passages

UnitStyle = Literal["playscout", "reference", "release"]
UNIT_STYLES: tuple[UnitStyle, ...] = ("playscout", "reference", "release")
# A sentence ends at . ! or ? followed by whitespace (nltk's Punkt, which the reference's
# SentenceWindowNodeParser uses, also knows abbreviations; the release's own units are exact).
_SENTENCE_END = re.compile(r"[.!?]+(?=\s)|[.!?]+$")
_WORDY = re.compile(r"\w")
# The caption metadata the reference leaves out of the embedded text (events_json, clip_path,
# teams, players), so only these lines are embedded with a clip's captions, in its order.
CAPTION_EMBED_KEYS = (
    "game_id", "sport", "clip_id", "period", "time_remaining_max", "time_remaining_min",
    "time_elapsed_max", "time_elapsed_min", "video_window_start", "video_window_end",
)  # fmt: skip


@dataclass(frozen=True)
class Unit:
    """One ranked unit of a document: its span in the document's text, the text a model embeds
    for it, and its vector when the release gave one."""

    start: int
    end: int
    embed: str
    vector: np.ndarray | None = None


class DocUnits(Protocol):
    style: UnitStyle

    def units(self, doc: DocumentRecord) -> list[Unit]: ...

    def caption_text(self, clip: ClipRecord) -> str: ...


def reference_text(text: str) -> tuple[str, list[int]]:
    """The text as the reference loads it (every newline becomes '. \\n') and, for each of its
    characters, the offset of the corpus character it comes from."""
    out: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        if ch == "\n":
            out.append(". \n")
            origin += [i, i, i]
        else:
            out.append(ch)
            origin.append(i)
    return "".join(out), origin


def _back(text: str, origin: list[int], start: int, end: int) -> tuple[int, int]:
    """A span of the reference's text as a span of the corpus text, without edge whitespace."""
    s, e = origin[start], origin[end - 1] + 1
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return s, e


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentences of `text` (no edge whitespace); pieces without a word character are dropped."""
    spans, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        spans.append((start, m.end()))
        start = m.end()
    spans.append((start, len(text)))
    out = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if _WORDY.search(text[s:e]):
            out.append((s, e))
    return out


def reference_doc_metadata(doc: DocumentRecord) -> dict[str, Any]:
    """A document's metadata as the reference's `load_documents` writes it, in its order."""
    if doc.entity_type is not None:
        meta: dict[str, Any] = {
            "doc_id": doc.doc_id,
            "sport": doc.sport,
            "doc_type": doc.doc_type,
            "entity_type": doc.entity_type,
            "entity_id": doc.entity_id,
            "entity_name": doc.entity_name,
            "season": doc.season,
            "teams": list(doc.teams),
        }
        if doc.entity_type == "player":
            meta["players"] = list(doc.players)
        return meta
    meta = {
        "game_id": doc.game_id,
        "sport": doc.sport,
        "doc_type": doc.doc_type,
        "doc_id": doc.doc_id,
        "teams": list(doc.teams),
    }
    if doc.doc_type != "game_stat_team":
        meta["players"] = list(doc.players)
    if doc.doc_type in ("game_stat_player", "game_stat_team"):
        meta |= {
            "date": doc.date,
            "season": doc.season,
            "season_type": doc.season_type,
            "home_team": doc.home_team,
            "away_team": doc.away_team,
        }
    return meta


def reference_clip_metadata(clip: ClipRecord) -> dict[str, Any]:
    """The embedded part of a caption node's metadata (`extract_caption_embeddings.py`)."""
    rem = (clip.clock_remaining_start, clip.clock_remaining_end)
    ela = (clip.clock_elapsed_start, clip.clock_elapsed_end)
    return {
        "game_id": clip.game_id,
        "sport": clip.sport,
        "clip_id": clip.clip_id,
        "period": int(clip.period),
        "time_remaining_max": max(rem),
        "time_remaining_min": min(rem),
        "time_elapsed_max": max(ela),
        "time_elapsed_min": min(ela),
        "video_window_start": clip.video_start,
        "video_window_end": clip.video_end,
    }


class PlayscoutUnits:
    style: UnitStyle = "playscout"

    def units(self, doc: DocumentRecord) -> list[Unit]:
        return [Unit(s, e, doc.text[s:e]) for s, e in split_passages(doc.text)]

    def caption_text(self, clip: ClipRecord) -> str:
        return clip.caption


class ReferenceUnits:
    """The reference's units, embedded by playscout's model (`index build --units reference`)."""

    style: UnitStyle = "reference"

    def units(self, doc: DocumentRecord) -> list[Unit]:
        ref, origin = reference_text(doc.text)
        meta = reference_doc_metadata(doc)
        out = []
        for s, e in sentence_spans(ref):
            start, end = _back(doc.text, origin, s, e)
            if start < end:
                out.append(Unit(start, end, embed_text(ref[s:e], meta)))
        return out

    def caption_text(self, clip: ClipRecord) -> str:
        return embed_text(clip.caption, reference_clip_metadata(clip))


class ReleaseUnits(ReferenceUnits):
    """The release's own sentence nodes and their BGE-M3 vectors (`embeds/documents`)."""

    style: UnitStyle = "release"

    def __init__(self, nodes: ReleaseDocumentNodes) -> None:
        self.nodes = nodes

    def units(self, doc: DocumentRecord) -> list[Unit]:
        nodes = self.nodes.for_doc(doc.sport, doc.doc_id)
        if not nodes:
            raise EmbeddingError(
                f"document {doc.doc_id} has no units in the release's "
                f"{self.nodes.root / doc.sport}: the vectors are not of this corpus"
            )
        ref, origin = reference_text(doc.text)
        out, cursor = [], 0
        for node in nodes:
            s = node.start_char_idx
            if s is None or ref[s : node.end_char_idx] != node.text:
                s = ref.find(node.text, cursor)
            if s < 0 or not node.text:
                raise EmbeddingError(
                    f"release unit {node.id} of document {doc.doc_id} is not in the corpus' "
                    "text of that document: the vectors are not of this corpus"
                )
            e = s + len(node.text)
            cursor = e
            start, end = _back(doc.text, origin, s, e) if e > s else (0, 0)
            if start < end:
                out.append(Unit(start, end, node.text, node.embedding))
        return out


def doc_units(style: UnitStyle, release: ReleaseDocumentNodes | None = None) -> DocUnits:
    if style == "release":
        if release is None:
            raise EmbeddingError("release units need the release's embeds/documents folder")
        return ReleaseUnits(release)
    return ReferenceUnits() if style == "reference" else PlayscoutUnits()


def unit_vectors(units: Sequence[Unit]) -> np.ndarray | None:
    """The release's vectors of these units (L2-normalised, as the index stores every vector),
    or None when they are to be embedded."""
    vecs = [u.vector for u in units]
    if not vecs or any(v is None for v in vecs):
        return None
    rows = np.stack(vecs).astype(np.float32)  # type: ignore[arg-type]
    return normalize_rows(rows, rows.shape[1], "the release's document vectors")
