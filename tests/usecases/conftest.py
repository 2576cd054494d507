"""A corpus whose clips were heard: a copy of the shared corpus where every basketball and
hockey clip carries a transcript (what an ASR pass writes), so default mode searches clips by
BM25 over what was said, with no embedder to load; its hockey questions file is empty (a sport
whose games have no clips gets none). Indexed without vectors, so it builds in a second."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from playscout.corpus import Corpus
from tests.synthdata import SynthIndex, copy_corpus, index_corpus

HEARD = ["basketball", "hockey"]


@pytest.fixture(scope="session")
def heard(synth_corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SynthIndex]:
    root = tmp_path_factory.mktemp("heard")
    corpus = copy_corpus(synth_corpus, root / "corpus")
    for sport in HEARD:
        for game_id in corpus.games(sport):
            path = corpus.game_path(sport, game_id, "clips_metadata")
            assert path is not None
            data = json.loads(path.read_text())
            for window in data["windows"].values():
                events = window["metadata"].get("events", {}).values()
                window["metadata"]["transcript"] = " ".join(e["caption"] for e in events)
            path.write_text(json.dumps(data))
    (corpus.root / "questions" / "hockey.json").write_text("[]")
    index_dir = root / "index"
    backend = index_corpus(
        corpus.root, index_dir, sports=HEARD, doc_embedder=None, caption_embedder=None
    )
    yield SynthIndex(corpus.root, index_dir, backend)
