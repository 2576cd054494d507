"""Clip media over HTTP, on real mp4 files (tests/media/samples.py): the file with range
requests, thumbnails, and the frames a video_qa call sent, fetched back byte for byte from
what the trajectory recorded (times and JPEG settings, never the pixels). The agent and the
VLM are ScriptedChatModel (a test double: no VLM can be served here); the tool, the frame
sampling, the trajectory and the HTTP path are real."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from playscout.clients.chat import ImagePart
from playscout.eval.tasks.routes import tool_subset
from playscout.serving.app import create_app
from playscout.tools.tool import ModelSet
from tests.doubles import ScriptedChatModel, text_call
from tests.serving.conftest import make_settings
from tests.serving.test_api import one_line_error

SPORT = "basketball"


@pytest.fixture
def media_app(tmp_path, synth_index, media_corpus):
    def make(**kwargs):
        settings = make_settings(tmp_path, synth_index, corpus_dir=media_corpus.corpus.root)
        return create_app(settings, backend=synth_index.backend, **kwargs)

    return make


def clip_file(media_corpus, clip_id: str) -> Path:
    path = media_corpus.corpus.clip_path(SPORT, clip_id)
    assert path is not None
    return path


def test_the_frames_video_qa_sent_are_served_back_exactly(media_app, media_corpus):
    board = media_corpus.board
    agent = ScriptedChatModel(
        [text_call("video_qa", video_ids=[board], query="what is the score?"), "<answer>x</answer>"]
    )
    vlm = ScriptedChatModel()
    # video_qa alone: the shared index has no default-mode clip search, which the ask's
    # preflight would refuse if search_videos were offered
    app = media_app(llm_client=agent, models=ModelSet(vlm=vlm), tools=tool_subset(["video_qa"]))
    with TestClient(app) as c:
        r = c.post("/v1/ask", json={"question": "What is the score?", "mode": "default"})
        assert r.status_code == 200, r.text
        tid = r.json()["trajectory_id"]
        events = c.get(f"/v1/trajectories/{tid}").json()["events"]
        obs = next(e for e in events if e["type"] == "observation" and e["name"] == "video_qa")
        answer = obs["data"]["answers"][0]
        frames = answer["frames"]
        assert answer["id"] == board and len(frames["times"]) == 16
        assert frames["long_side"] == 336 and frames["quality"] == 90
        sent = [
            base64.b64decode(p.url.split(",", 1)[1])
            for p in vlm.requests[0].messages[-1].content
            if isinstance(p, ImagePart)
        ]
        assert len(sent) == 16
        for t, jpeg in zip(frames["times"], sent, strict=True):
            got = c.get(
                f"/v1/clips/{board}/frames",
                params={"t": t, "sport": SPORT, "long_side": 336, "quality": 90},
            )
            assert got.status_code == 200 and got.headers["content-type"] == "image/jpeg"
            assert got.content == jpeg, f"frame at {t} s differs from what the VLM got"
            assert float(got.headers["x-frame-time"]) == pytest.approx(t, abs=1e-3)
    log = (Path(c.app.state.serving.settings.agent.trajectory_dir) / f"{tid}.jsonl").read_text()
    assert "base64" not in log and len(log) < 20_000  # frames by reference, never pixels


def test_a_clip_file_is_served_with_range_requests(media_app, media_corpus):
    board = media_corpus.board
    data = clip_file(media_corpus, board).read_bytes()
    with TestClient(media_app()) as c:
        full = c.get(f"/v1/clips/{board}", params={"sport": SPORT})
        assert full.status_code == 200 and full.content == data
        assert full.headers["content-type"] == "video/mp4"
        assert full.headers["accept-ranges"] == "bytes"
        part = c.get(f"/v1/clips/{board}", headers={"Range": "bytes=100-299"})  # sport optional
        assert part.status_code == 206 and part.content == data[100:300]
        assert part.headers["content-range"] == f"bytes 100-299/{len(data)}"
        tail = c.get(f"/v1/clips/{board}", headers={"Range": f"bytes={len(data) - 10}-"})
        assert tail.status_code == 206 and tail.content == data[-10:]
        assert c.head(f"/v1/clips/{board}").headers["content-length"] == str(len(data))
        thumb = c.get(f"/v1/clips/{board}/thumbnail")
        assert thumb.status_code == 200 and thumb.content[:2] == b"\xff\xd8"  # a JPEG


@pytest.mark.parametrize(
    "clip_id",
    ["nope_1", "..%2F..%2Fetc%2Fpasswd", "%2E%2E", "a.b", "no-index-part", "x" * 150, "-lead_1"],
)
def test_unknown_or_hostile_clip_ids_are_404(media_app, clip_id):
    with TestClient(media_app()) as c:
        for suffix in ("", "/thumbnail", "/frames?t=1"):
            r = c.get(f"/v1/clips/{clip_id}{suffix}")
            assert r.status_code in (404, 422), (clip_id, suffix, r.status_code)
            assert set(r.json()) == {"error"}


def test_listed_but_missing_or_broken_clips_say_why(media_app, media_corpus):
    with TestClient(media_app()) as c:
        assert "media file" in one_line_error(c.get(f"/v1/clips/{media_corpus.missing}"), 404)
        assert "no sport 'curling'" in one_line_error(
            c.get(f"/v1/clips/{media_corpus.board}?sport=curling"), 404
        )
        broken = one_line_error(c.get(f"/v1/clips/{media_corpus.broken}/thumbnail"), 404)
        assert media_corpus.broken in broken and "decode" in broken
        assert one_line_error(c.get(f"/v1/clips/{media_corpus.board}/frames?t=-1"), 422)


def test_no_corpus_configured_is_a_clear_404(client):
    assert "no corpus configured" in one_line_error(client.get("/v1/clips/g1_1"), 404)


def test_media_takes_the_key_as_a_cookie_and_nothing_else_does(media_app, media_corpus):
    board = media_corpus.board
    with TestClient(media_app(api_key="s3cret")) as c:
        assert c.get(f"/v1/clips/{board}").status_code == 401
        c.cookies.set("playscout_media_key", "s3cret")
        assert c.get(f"/v1/clips/{board}").status_code == 200
        assert c.get(f"/v1/clips/{board}/thumbnail").status_code == 200
        assert c.get("/v1/runs").status_code == 401  # the cookie opens media only
        c.cookies.set("playscout_media_key", "wrong")
        assert c.get(f"/v1/clips/{board}").status_code == 401
