"""The video query tower (qa.video_query, --video-query-url/--video-query-model): the text
tower that embeds default-mode clip queries into the release's InternVideo2 vectors.

Over an index of the release's own vectors (tests/release_layout.py): a default-mode run
without the tower does not start (one line, exit 2 on the CLI; a 400 over `POST /v1/runs`);
with the reference's text-tower server (ScriptedTextTower) every `search_videos` call of the
run succeeds; preflight refuses a tower in the reference's --mock mode; /readyz reports it.
The agent is a scripted OpenAI-compatible server (FakeOpenAIServer)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from playscout.agent.trajectory import Observation, ToolCallEvent, read_trajectory
from playscout.cli.main import app
from playscout.config import Settings
from playscout.corpus import Corpus
from playscout.serving.app import create_app
from playscout.serving.eval_service import EvalRunService
from tests.cli.test_exit_codes import one_error
from tests.clients.fake_openai_server import FakeOpenAIServer, Reply
from tests.doubles import text_call
from tests.embed.fake_server import Behaviour, FakeEmbeddingServer
from tests.embed.fake_tower import ScriptedTextTower
from tests.serving.conftest import api_error
from tests.synthdata import SPORT

runner = CliRunner()


@pytest.fixture(scope="module")
def release(release_t9: tuple[Corpus, Path]) -> tuple[Corpus, Path]:
    return release_t9


def _agent(clip_caption: str) -> Any:
    """A scripted agent: search_videos first, then an answer after the observation."""

    def reply(body: dict[str, Any]) -> Reply:
        seen = any("<tool_response>" in str(m.get("content")) for m in body["messages"])
        if seen:
            return Reply.chat("<answer>a pass</answer>")
        return Reply.chat(text_call("search_videos", query=clip_caption))

    return reply


def _run_args(release: tuple[Corpus, Path], out: Path, *more: str) -> list[str]:
    corpus, index = release
    return ["eval", "run", "--task", "t9", "--mode", "default", "--sport", SPORT, "--limit", "2",
            "--index", str(index), "--corpus", str(corpus.root), "--out", str(out),
            "--no-cache", *more]  # fmt: skip


def test_a_default_run_without_the_tower_does_not_start(
    release: tuple[Corpus, Path], tmp_path: Path
) -> None:
    out = tmp_path / "run"
    result = runner.invoke(app, _run_args(release, out, "--policy", "workflow"))
    assert result.exit_code == 2, result.output
    line = one_error(result)
    assert "the index's visual vectors for basketball have no query embedder" in line
    assert "--video-query-url" in line and not out.exists()


def test_post_runs_without_the_tower_is_refused(
    release: tuple[Corpus, Path], tmp_path: Path
) -> None:
    corpus, index = release
    settings = Settings.model_validate({
        "index": str(index), "corpus_dir": str(corpus.root),
        "eval": {"runs_dir": str(tmp_path / "runs"), "cache_db": None},
    })  # fmt: skip
    service = EvalRunService(settings, settings.eval)
    with TestClient(create_app(settings, run_service=service)) as c:
        r = c.post("/v1/runs", json={"task": "t9", "mode": "default", "policy": "workflow",
                                     "sport": SPORT, "limit": 1})  # fmt: skip
    assert "have no query embedder" in api_error(r, 400)["message"]
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_with_the_text_tower_every_search_videos_call_succeeds(
    release: tuple[Corpus, Path], tmp_path: Path
) -> None:
    corpus, _ = release
    clip = next(corpus.iter_clips(SPORT))
    out = tmp_path / "run"
    with (
        ScriptedTextTower() as tower,
        FakeOpenAIServer(_agent(clip.caption), models=["qwen3-32b", "llava-next-video"]) as llm,
    ):
        result = runner.invoke(app, _run_args(
            release, out, "--llm-url", llm.url, "--llm-model", "qwen3-32b",
            "--vlm-url", llm.url, "--vlm-model", "llava-next-video",
            "--video-query-url", tower.url, "--video-query-model", "internvideo2-text"))  # fmt: skip
        calls = tower.embed_calls
    assert result.exit_code == 0, result.output
    events = [e for p in sorted((out / "trajectories").glob("*.jsonl")) for e in read_trajectory(p)]
    searches = [e for e in events if isinstance(e, ToolCallEvent) and e.name == "search_videos"]
    seen = [e for e in events if isinstance(e, Observation) and e.name == "search_videos"]
    assert len(searches) == len(seen) == 2 and all(o.error is None for o in seen)
    assert all(clip.clip_id in o.text for o in seen)  # the clip whose captions were asked for
    assert [c["body"] for c in calls] == [{"texts": [clip.caption]}] * 2
    ran = json.loads((out / "run.json").read_text())
    assert ran["settings"]["qa"]["video_query"]["model"] == "internvideo2-text"


def test_preflight_refuses_a_tower_that_serves_random_vectors(
    release: tuple[Corpus, Path], tmp_path: Path
) -> None:
    with ScriptedTextTower(mock=True) as tower:
        result = runner.invoke(app, _run_args(
            release, tmp_path / "run", "--policy", "workflow", "--video-query-url", tower.url,
            "--video-query-model", "internvideo2-text"))  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "serves random vectors (started with --mock)" in one_error(result)
    assert "(--video-query-url/--video-query-model)" in one_error(result)


def test_readyz_reports_the_tower(release: tuple[Corpus, Path]) -> None:
    corpus, index = release
    with ScriptedTextTower() as tower:
        settings = Settings.model_validate({
            "index": str(index), "corpus_dir": str(corpus.root),
            "qa": {"video_query": {"base_url": tower.url, "model": "internvideo2-text"}},
        })  # fmt: skip
        with TestClient(create_app(settings)) as c:
            body = c.get("/readyz").json()
    assert body["models"]["video_query"]["status"] == "ok", body
    assert body["models"]["video_query"]["url"] == tower.url


def test_an_openai_compatible_tower_is_asked_at_v1_embeddings(
    release: tuple[Corpus, Path],
) -> None:
    """`qa.video_query.api: openai`: the same role over `/v1/embeddings` (a tower served by
    vLLM or TEI); the runtime opens the index with it."""
    from playscout.config import QueryTowerEndpoint
    from playscout.runtime import open_index

    corpus, index = release
    clip = next(corpus.iter_clips(SPORT))
    server = FakeEmbeddingServer(Behaviour(dim=512)).start()
    try:
        tower = QueryTowerEndpoint(
            base_url=server.base_url, model="internvideo2-text", api="openai"
        )
        backend = open_index(index, video_query=tower)
        hits = backend.search_clips(SPORT, clip.caption, top_k=3, channel="visual")
    finally:
        server.stop()
    assert hits and backend.unembedded(SPORT) == []
    assert [r["path"] for r in server.requests] == ["/v1/embeddings"]
    assert server.requests[0]["body"]["input"] == [clip.caption]
