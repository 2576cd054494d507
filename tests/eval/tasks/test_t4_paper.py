"""T4 (Table 8) under the paper preset, on the real qa.json slice: each question asks for 5
answers, a full-game video sends Table 8's frame count for the VLM (768 for Qwen3-VL-32B), a
reply without `Answer i:` lines scores 0 as in the reference, and k and the frame count are in
run.json and the report. The bodies are captured by FakeOpenAIServer (real HTTP), which stands
in for the VLM and the judge; the extended preset keeps k=1 and qa.frames_per_clip."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from playscout.config import EvalSettings, Settings
from playscout.eval import RunSpec, run_eval
from playscout.eval.results.report import write_report
from playscout.eval.storage.store import load_results
from tests.clients.fake_openai_server import FakeOpenAIServer, Reply, last_user_text
from tests.media.samples import scoreboard_clip

SLICE = Path(__file__).parents[1] / "published" / "svi_t4_qa.slice.json"
HOCKEY = "T4/hockey/videos/176319.mp4"  # the one hockey game of the slice
FIVE = "\n".join(f"Answer {i}: reading {i} of the play." for i in range(1, 6))


def images(body: dict[str, Any]) -> int:
    return sum(p["type"] == "image_url" for p in body["messages"][-1]["content"])


@pytest.fixture(scope="module")
def media(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("t4media")
    (root / HOCKEY).parent.mkdir(parents=True)
    scoreboard_clip(root / HOCKEY, seconds=1.0)
    return root


def video_frames(body: dict[str, Any]) -> int:
    """Frames of the one video a request sends (a data: URI MP4)."""
    import base64
    import io

    import av

    [part] = [p for p in body["messages"][-1]["content"] if p["type"] == "video_url"]
    data = base64.b64decode(part["video_url"]["url"].split(",", 1)[1])
    with av.open(io.BytesIO(data)) as container:
        return sum(1 for _ in container.decode(video=0))


def _run(
    media: Path, out: Path, reply: str, preset: str, vlm_model: str = "Qwen3-VL-32B-Instruct"
) -> tuple[list[Any], list[dict[str, Any]]]:
    with (
        FakeOpenAIServer(default=lambda body: Reply.chat(reply)) as vlm,
        FakeOpenAIServer(default=lambda body: Reply.chat('{"score": 3}')) as judge,
    ):
        settings = Settings(
            preset=preset,
            qa={"vlm": {"base_url": vlm.url, "model": vlm_model, "max_retries": 0}},
            eval=EvalSettings(
                cache_db=None, judge={"base_url": judge.url, "model": "deepseek-v3.2"}
            ),
        )
        spec = RunSpec(task="t4", data=SLICE, media=media, out_dir=out, sports=("hockey",),
                       policy="workflow")  # fmt: skip
        run_eval(spec, settings)
        return load_results(out), [r["body"] for r in vlm.requests]


def test_paper_t4_asks_for_five_answers_with_table_8_frames(media: Path, tmp_path: Path) -> None:
    rows, bodies = _run(media, tmp_path / "run", FIVE, "paper")
    (row,) = [r for r in rows if r.status == "answered"]
    (body,) = bodies
    assert "Respond with up to 5 answers" in last_user_text(body)
    # Table 8: Qwen3-VL-32B (768 frames), as the reference's qwen.py passes them: one video
    # input before the question, greedy, 1,024 tokens
    assert [p["type"] for p in body["messages"][-1]["content"]] == ["video_url", "text"]
    assert images(body) == 0 and video_frames(body) == 768
    assert (body["temperature"], body["max_tokens"]) == (0.0, 1024)
    assert len(row.candidates) == 5 and row.candidate_scores == [3.0] * 5 and row.score == 3.0
    meta = orjson.loads((tmp_path / "run" / "run.json").read_bytes())
    assert meta["best_of_k"] == 5 and meta["frame_policy"]["frames_per_game"] == 768
    assert meta["preset"]["deviations"] == []
    write_report([tmp_path / "run"], plots=False)
    report = (tmp_path / "run" / "report.md").read_text()
    assert "T4: best of k=5 candidates; a full-game video sends 768 frames" in report


def test_paper_t4_asks_gpt5_with_its_500_images_after_the_question(
    media: Path, tmp_path: Path
) -> None:
    """The reference's gpt.py: 500 JPEG frames after the text, no sampling settings of its own
    (the VLM endpoint's, which the paper preset sets to the QA models' 1.0 and 4,096)."""
    _, bodies = _run(media, tmp_path / "run", FIVE, "paper", vlm_model="gpt-5.2")
    (body,) = bodies
    types = [p["type"] for p in body["messages"][-1]["content"]]
    assert types[0] == "text" and images(body) == 500 and "video_url" not in types
    assert (body["temperature"], body["max_completion_tokens"]) == (1.0, 4096)


def test_paper_t4_scores_an_unnumbered_reply_zero(media: Path, tmp_path: Path) -> None:
    rows, _ = _run(media, tmp_path / "run", "The defence collapsed on the weak side.", "paper")
    (row,) = [r for r in rows if r.status == "answered"]
    assert row.candidates == [] and row.score == 0.0
    assert "scored 0 (as the reference)" in str(row.note)


def test_extended_t4_keeps_one_answer_and_clip_frames(media: Path, tmp_path: Path) -> None:
    rows, bodies = _run(media, tmp_path / "run", "The defence collapsed.", "extended")
    (row,) = [r for r in rows if r.status == "answered"]
    assert "Respond with up to 1 answers" in last_user_text(bodies[0])
    assert images(bodies[0]) == Settings().qa.frames_per_clip
    assert row.candidates == ["The defence collapsed."] and row.candidate_scores == [3.0]
