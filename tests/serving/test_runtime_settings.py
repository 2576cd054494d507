"""Settings reach every tool however a run starts: an ask over HTTP builds its tool context
through the same Runtime as the CLI and eval, so `perception.max_clips` is the server's value,
not the tool's default (8)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from playscout.eval.tasks.routes import tool_subset
from tests.doubles import ScriptedChatModel, text_call
from tests.synthdata import SynthIndex


def three_clip_ids(index: SynthIndex) -> list[str]:
    clips = index.corpus.iter_clips(index.sport)
    return [next(clips).clip_id for _ in range(3)]


def test_api_ask_applies_the_servers_perception_limit(app_factory, synth_index: SynthIndex) -> None:
    ids = three_clip_ids(synth_index)
    model = ScriptedChatModel(
        [text_call("extract_scene_text", video_ids=ids), "<answer>unknown</answer>"]
    )
    app = app_factory(  # the one tool: the shared index has no default-mode clip search
        llm_client=model,
        tools=tool_subset(["extract_scene_text"]),
        settings={"perception": {"max_clips": 2}, "corpus_dir": synth_index.corpus_dir},
    )
    with TestClient(app) as client:
        r = client.post(
            "/v1/ask", json={"question": synth_index.question, "policy": "llm", "mode": "default"}
        )
    assert r.status_code == 200, r.text
    observation = model.requests[1].messages[-1].content
    assert "3 video ids given; at most 2 per call" in str(observation)
