"""Release-format artifacts written the way the SVI-Bench T9 reference writes them, for tests.

The release ships pickled llama-index TextNodes (`tools/extract_doc_embeddings.py`,
`extract_caption_embeddings.py`) and InternVideo2 `.npy` clip vectors. No llama-index is
installed here, so `fake_llama_index()` registers STAND-IN classes under the real module path
(`llama_index.core.schema`: pydantic models with TextNode's fields, the NodeRelationship and
ObjectType enums) while a pickle is written, and removes them afterwards: the file then names
exactly the classes a real release pickle names, and nothing can import them when it is read.

The vectors are deterministic stand-ins (`fake_vector` of the text the reference embedded), so
a query embedder that maps text the same way (tests/embed/fake_server.FakeEmbeddingServer)
finds the unit whose text it was given."""

from __future__ import annotations

import contextlib
import json
import pickle
import sys
import types
from collections.abc import Callable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from playscout.corpus import Corpus
from tests.embed.fake_server import fake_vector

SCHEMA = "llama_index.core.schema"
Embed = Callable[[str], list[float]]


class NodeRelationship(StrEnum):
    SOURCE = "1"
    PREVIOUS = "2"
    NEXT = "3"


class ObjectType(StrEnum):
    TEXT = "1"
    DOCUMENT = "4"


class RelatedNodeInfo(BaseModel):
    node_id: str
    node_type: ObjectType | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    hash: str | None = None


class TextNode(BaseModel):
    """TEST STAND-IN for llama_index.core.schema.TextNode: the fields it pickles."""

    id_: str
    embedding: list[float] | Any | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    excluded_embed_metadata_keys: list[str] = Field(default_factory=list)
    excluded_llm_metadata_keys: list[str] = Field(default_factory=list)
    relationships: dict[NodeRelationship, RelatedNodeInfo] = Field(default_factory=dict)
    metadata_template: str = "{key}: {value}"
    metadata_seperator: str = "\n"  # sic: llama-index's spelling
    text: str = ""
    mimetype: str = "text/plain"
    start_char_idx: int | None = None
    end_char_idx: int | None = None
    text_template: str = "{metadata_str}\n\n{content}"

    model_config = {"arbitrary_types_allowed": True}

    def embed_content(self) -> str:
        """llama-index's get_content(MetadataMode.EMBED), written out for the stand-in."""
        meta = self.metadata_seperator.join(
            self.metadata_template.format(key=k, value=str(v))
            for k, v in self.metadata.items()
            if k not in self.excluded_embed_metadata_keys
        )
        return (
            self.text_template.format(metadata_str=meta, content=self.text) if meta else self.text
        )


_CLASSES = (NodeRelationship, ObjectType, RelatedNodeInfo, TextNode)


@contextlib.contextmanager
def fake_llama_index() -> Iterator[None]:
    """The stand-in classes under their real module path, for the time a pickle is written."""
    names = ("llama_index", "llama_index.core", SCHEMA)
    saved = {n: sys.modules.get(n) for n in names}
    module = types.ModuleType(SCHEMA)
    for cls in _CLASSES:
        cls.__module__ = SCHEMA
        setattr(module, cls.__name__, cls)
    sys.modules.update({"llama_index": types.ModuleType("llama_index"),
                        "llama_index.core": types.ModuleType("llama_index.core"), SCHEMA: module})  # fmt: skip
    try:
        yield
    finally:
        for cls in _CLASSES:
            cls.__module__ = __name__
        for name, old in saved.items():
            if old is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = old


def write_nodes(path: Path, nodes: list[Any], protocol: int = pickle.HIGHEST_PROTOCOL) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with fake_llama_index():
        path.write_bytes(pickle.dumps(nodes, protocol=protocol))
    return path


def _sport_files(corpus: Corpus, sport: str) -> dict[str, dict[str, str]]:
    root = corpus.root / "data" / sport
    meta: dict[str, dict[str, str]] = json.loads((root / "metadata.json").read_text())
    return {g: {k: str(root / v) for k, v in files.items()} for g, files in meta.items()}


def document_nodes(corpus: Corpus, sport: str, embed: Embed) -> list[TextNode]:
    """Game documents cut as the reference cuts them: the text with every newline turned into
    '. \\n', one node per line piece (a stand-in for Punkt sentences), with the reference's
    metadata; each node's vector is `embed` of its embedded text."""
    nodes = []
    for doc in corpus.iter_documents(sport):
        ref = doc.text.replace("\n", ". \n")
        meta = {"game_id": doc.game_id, "sport": sport, "doc_type": doc.doc_type,
                "doc_id": doc.doc_id, "teams": list(doc.teams)}  # fmt: skip
        if doc.game_id is None:  # a season document: its entity instead of a game
            meta = {"doc_id": doc.doc_id, "sport": sport, "doc_type": doc.doc_type,
                    "entity_type": doc.entity_type, "entity_id": doc.entity_id}  # fmt: skip
        start = 0
        for piece in ref.split("\n"):
            text = piece.strip()
            at = ref.find(text, start) if text else -1
            if text.strip(". "):
                node = TextNode(
                    id_=f"{doc.doc_id}-{at}", text=text, start_char_idx=at,
                    end_char_idx=at + len(text), metadata={**meta, "window": text,
                                                          "original_text": text},
                    excluded_embed_metadata_keys=["window", "original_text"],
                    relationships={NodeRelationship.SOURCE: RelatedNodeInfo(
                        node_id=doc.doc_id, node_type=ObjectType.DOCUMENT)},
                )  # fmt: skip
                node.embedding = embed(node.embed_content())
                nodes.append(node)
            start += len(piece) + 1
    return nodes


def caption_nodes(corpus: Corpus, sport: str, embed: Embed) -> list[TextNode]:
    """One node per clip, built from the raw clip windows as `extract_caption_embeddings.py`
    builds it: the captions joined, the metadata it writes, the keys it leaves out of the
    embedded text."""

    def seconds(text: str | None) -> float:
        if not text or ":" not in text:
            return -1.0
        m, s = text.split(":")[:2]
        return float(m) * 60 + float(s)

    nodes = []
    for game_id, files in _sport_files(corpus, sport).items():
        if "clips_metadata" not in files:
            continue
        data = json.loads(Path(files["clips_metadata"]).read_text())
        for window in data["windows"].values():
            m = window.get("metadata", {})
            clock = m.get("game_clock_window", {})
            rem = [seconds(clock.get("start_remaining")), seconds(clock.get("end_remaining"))]
            ela = [seconds(clock.get("start_elapsed")), seconds(clock.get("end_elapsed"))]
            meta = {
                "game_id": game_id, "sport": sport, "clip_id": window["window_id"],
                "clip_path": f"clips/{window['window_id']}.mp4", "period": int(window.get("period", 0)),
                "teams": list(m.get("teams", {}).values()), "players": list(m.get("players", {}).values()),
                "time_remaining_max": max(rem), "time_remaining_min": min(rem),
                "time_elapsed_max": max(ela), "time_elapsed_min": min(ela),
                "video_window_start": window.get("video_window", {}).get("start", -1.0),
                "video_window_end": window.get("video_window", {}).get("end", -1.0),
                "events_json": json.dumps(m.get("events", {})),
            }  # fmt: skip
            captions = [
                e.get("caption", "") for e in m.get("events", {}).values() if e.get("caption")
            ]
            node = TextNode(id_=window["window_id"], text=" ".join(captions), metadata=meta,
                            excluded_embed_metadata_keys=["events_json", "clip_path", "teams", "players"],
                            excluded_llm_metadata_keys=["events_json"])  # fmt: skip
            node.embedding = embed(node.embed_content())
            nodes.append(node)
    return nodes


def vector_of(dim: int) -> Embed:
    return lambda text: fake_vector(text, dim).tolist()


def write_video_vectors(
    root: Path, sport: str, vectors: dict[str, np.ndarray], bucketed: bool = True
) -> Path:
    """`root/{sport}/` as the release ships clip vectors: `NN/<clip_id>.npy` with
    `_bucket_mapping.json` (bucketed), or `<clip_id>.npy` (flat)."""
    sport_dir = root / sport
    sport_dir.mkdir(parents=True, exist_ok=True)
    mapping = {}
    for i, (clip_id, vec) in enumerate(sorted(vectors.items())):
        bucket = f"{i % 3:02d}"
        target = sport_dir / bucket if bucketed else sport_dir
        target.mkdir(exist_ok=True)
        np.save(target / f"{clip_id}.npy", np.asarray(vec, dtype=np.float32))
        mapping[f"{clip_id}.npy"] = bucket
    if bucketed:
        (sport_dir / "_bucket_mapping.json").write_text(json.dumps(mapping))
    return root


def write_release_embeds(
    corpus: Corpus, sport: str, *, text_dim: int = 1024, video_dim: int = 512
) -> dict[str, Path]:
    """The release's `embeds/` beside the corpus' data: documents and captions as node
    pickles (BGE-M3-sized stand-in vectors of the embedded text), videos as bucketed .npy
    (stand-in vectors of each clip's captions, in the text tower's stand-in space)."""
    embeds = corpus.root / "embeds"
    docs = write_nodes(embeds / "documents" / sport / "all_nodes_embedded.pkl",
                       document_nodes(corpus, sport, vector_of(text_dim)))  # fmt: skip
    caps = write_nodes(embeds / "captions" / sport / "all_nodes_embedded.pkl",
                       caption_nodes(corpus, sport, vector_of(text_dim)))  # fmt: skip
    vids = {c.clip_id: fake_vector(c.caption, video_dim) for c in corpus.iter_clips(sport)}
    write_video_vectors(
        embeds / "videos", sport, {k: v / np.linalg.norm(v) for k, v in vids.items()}
    )
    return {"documents": docs.parent.parent, "captions": caps.parent.parent,
            "videos": embeds / "videos"}  # fmt: skip


def release_copy(corpus: Corpus, dest: Path, sport: str) -> Corpus:
    """A copy of a generated corpus shaped as the release: no simulator manifest, and the
    release's embeds/ (write_release_embeds)."""
    from playscout.synthetic.writer import SYNTH_MANIFEST
    from tests.synthdata import copy_corpus

    copy = copy_corpus(corpus, dest)
    (copy.root / SYNTH_MANIFEST).unlink()
    write_release_embeds(copy, sport)
    return copy


def build_release_index(corpus: Corpus, out: Path, sport: str, bge_url: str) -> Path:
    """An index of the release's own vectors (documents, captions, videos), queries to the
    text channels by the BGE-M3 stand-in served at `bge_url` (an OpenAI /v1 root)."""
    from playscout.indexer.build import build_from_corpus

    embeds, bge = corpus.root / "embeds", f"openai:{bge_url}#bge-m3"
    build_from_corpus(corpus.root, out, sports=[sport], doc_embedder=bge, caption_embedder=bge,
                      doc_vectors=embeds / "documents", caption_vectors=embeds / "captions",
                      video_vectors=embeds / "videos")  # fmt: skip
    return out
