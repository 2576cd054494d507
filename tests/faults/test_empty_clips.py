"""A clip file that is there but empty (a copy that failed, a placeholder): `corpus validate`
names it (a failure with --strict) and counts it apart from usable clip files, and the clip
route answers 422 with the reason. Before, it was counted as present and never named, and the
route served it as a 200 with 0 bytes."""

from __future__ import annotations

import subprocess
import sys

from fastapi.testclient import TestClient

from playscout.corpus import Corpus
from playscout.corpus.validate import validate_corpus
from playscout.serving.app import create_app
from tests.serving.conftest import make_settings
from tests.serving.test_api import one_line_error
from tests.synthdata import copy_corpus


def test_an_empty_clip_file_is_named_and_never_served(tmp_path, synth_index, media_corpus):
    corpus = copy_corpus(media_corpus.corpus, tmp_path / "corpus")
    sport, clip_id = media_corpus.sport, media_corpus.board
    before = validate_corpus(corpus.root).counts[sport]["clip_files"]
    path = corpus.clip_path(sport, clip_id)
    assert path is not None and path.stat().st_size > 0
    path.write_bytes(b"")
    report = validate_corpus(corpus.root)
    assert report.counts[sport]["clip_files"] == before - 1
    [empty] = [w for w in report.warnings if "empty (0 bytes)" in w]
    assert "1 of " in empty and corpus.rel(path) in empty
    strict = subprocess.run(
        [sys.executable, "-m", "playscout", "corpus", "validate", str(corpus.root), "--strict"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert strict.returncode == 1 and corpus.rel(path) in strict.stdout + strict.stderr
    settings = make_settings(tmp_path, synth_index, corpus_dir=Corpus(corpus.root).root)
    with TestClient(create_app(settings, backend=synth_index.backend)) as c:
        for route in ("", "/thumbnail"):
            why = one_line_error(c.get(f"/v1/clips/{clip_id}{route}"), 422)
            assert clip_id in why and "empty (0 bytes)" in why
        assert c.get(f"/v1/clips/{media_corpus.speech}").status_code == 200  # others still play
