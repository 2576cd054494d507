"""The release's node pickles are read without running their code (embed/release_nodes.py).

Pickles are written in the release's node shape by tests/release_layout.py (stand-in classes
registered under `llama_index.core.schema` while writing, gone when reading): they load as
plain records; a pickle naming any other class is refused with one line naming it, and the
refused code never runs."""

from __future__ import annotations

import builtins
import os
import pickle
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from playscout.embed.release import ReleaseCaptionVectors, release_identity
from playscout.embed.release_nodes import ReleaseFileError, load_nodes, node_embed_text
from playscout.search.core.units import ReferenceUnits
from tests.release_layout import (
    NodeRelationship,
    ObjectType,
    RelatedNodeInfo,
    TextNode,
    caption_nodes,
    vector_of,
    write_nodes,
)
from tests.synthdata import SPORT, copy_corpus


def _node(i: int, embedding: Any) -> TextNode:
    return TextNode(
        id_=f"n{i}",
        text=f"Sentence {i}.",
        embedding=embedding,
        metadata={"doc_id": "401738_espn_report", "teams": ["A", "B"], "window": "w"},
        excluded_embed_metadata_keys=["window"],
        start_char_idx=10 * i,
        end_char_idx=10 * i + 11,
        relationships={
            NodeRelationship.SOURCE: RelatedNodeInfo(
                node_id="401738_espn_report", node_type=ObjectType.DOCUMENT
            )
        },
    )


@pytest.mark.parametrize("protocol", [2, pickle.HIGHEST_PROTOCOL])
@pytest.mark.parametrize("as_array", [False, True])
def test_release_pickles_load_as_plain_records(
    tmp_path: Path, protocol: int, as_array: bool
) -> None:
    vec = [0.6, 0.8, 0.0]
    nodes = [_node(i, np.asarray(vec, np.float32) if as_array else vec) for i in range(3)]
    path = write_nodes(tmp_path / "all_nodes_embedded.pkl", nodes, protocol)
    assert "llama_index.core.schema" not in sys.modules  # nothing to import when reading
    with pytest.raises(ModuleNotFoundError):
        pickle.loads(path.read_bytes())  # the plain unpickler would need llama-index
    records = load_nodes(path)
    assert [r.id for r in records] == ["n0", "n1", "n2"]
    first = records[0]
    assert first.text == "Sentence 0." and first.source_id == "401738_espn_report"
    assert first.start_char_idx == 0 and first.end_char_idx == 11
    assert first.embedding is not None and first.embedding.tolist() == pytest.approx(vec)
    assert first.metadata == {"doc_id": "401738_espn_report", "teams": ["A", "B"], "window": "w"}
    # what the reference embedded: metadata lines (not the excluded ones), blank line, text
    assert node_embed_text(first) == (
        "doc_id: 401738_espn_report\nteams: ['A', 'B']\n\nSentence 0."
    )


class _Evil:
    def __init__(self, call: Any, *args: Any) -> None:
        self.call, self.args = call, args

    def __reduce__(self) -> tuple[Any, ...]:
        return (self.call, self.args)


class Unknown:
    """A class the allow-list does not name."""


@pytest.mark.parametrize(
    ("payload", "named"),
    [
        (lambda marker: [_Evil(os.system, f"touch {marker}")], "posix.system"),
        (lambda marker: [_Evil(builtins.eval, f"open({str(marker)!r}, 'w')")], "builtins.eval"),
        (lambda marker: [_Evil(Path.touch, marker)], "pathlib.Path"),
        (lambda marker: [Unknown()], "test_release_nodes.Unknown"),
    ],
)
def test_any_other_class_is_refused_before_it_runs(
    tmp_path: Path, payload: Any, named: str
) -> None:
    marker = tmp_path / "ran"
    path = tmp_path / "evil.pkl"
    path.write_bytes(pickle.dumps(payload(marker), protocol=pickle.HIGHEST_PROTOCOL))
    with pytest.raises(ReleaseFileError) as err:
        load_nodes(path)
    message = str(err.value)
    assert "\n" not in message and named in message and "refused to unpickle" in message
    assert not marker.exists()


def test_not_a_node_list_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "x.pkl").write_bytes(pickle.dumps({"a": 1}))
    with pytest.raises(ReleaseFileError, match="holds dict, not a list of nodes"):
        load_nodes(tmp_path / "x.pkl")
    (tmp_path / "y.pkl").write_bytes(b"not a pickle")
    with pytest.raises(ReleaseFileError, match="not a release node pickle"):
        load_nodes(tmp_path / "y.pkl")


def test_playscout_embeds_a_caption_exactly_as_the_reference_did(
    synth_corpus: Any, tmp_path: Path
) -> None:
    """Reference units: the text playscout embeds for a clip (ReferenceUnits.caption_text) is
    the text the reference's extractor embedded for it, metadata lines included."""
    nodes = caption_nodes(synth_corpus, SPORT, vector_of(8))
    path = write_nodes(tmp_path / SPORT / "all_nodes_embedded.pkl", nodes)
    records = {r.id: r for r in load_nodes(path)}
    clips = list(synth_corpus.iter_clips(SPORT))
    assert clips and set(records) == {c.clip_id for c in clips}
    for clip in clips:
        assert ReferenceUnits().caption_text(clip) == node_embed_text(records[clip.clip_id])
    assert "clip_id: " in ReferenceUnits().caption_text(clips[0])


def test_caption_vectors_by_clip_id_and_what_the_layout_says_made_them(
    synth_corpus: Any, tmp_path: Path
) -> None:
    corpus = copy_corpus(synth_corpus, tmp_path / "release")
    folder = corpus.root / "embeds" / "captions"
    write_nodes(
        folder / SPORT / "all_nodes_embedded.pkl", caption_nodes(corpus, SPORT, vector_of(1024))
    )
    store = ReleaseCaptionVectors(folder)
    ids = store.ids(SPORT)[:2]
    rows = store.vectors_for(SPORT, list(reversed(ids)))
    assert rows.shape == (2, 1024) and np.allclose(np.linalg.norm(rows, axis=1), 1.0)
    assert release_identity(folder, corpus.root, "captions", store.dim)["model"] == "bge-m3"
    # the same files anywhere else, whatever the folder is called, are of unknown origin
    other = tmp_path / "bge-m3-captions"
    other.mkdir()
    (other / SPORT).symlink_to(folder / SPORT)
    moved = release_identity(other, corpus.root, "captions", store.dim)
    assert moved["model"] is None and moved["how"] == "unknown"
    with pytest.raises(Exception, match="have no caption vector"):
        store.vectors_for(SPORT, ["nope_1"])
