"""QA fan-out over real HTTP: 16 clips against FakeOpenAIServer with a fixed 200 ms latency."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from playscout.clients.openai_chat import OpenAIChatClient
from playscout.config import ModelEndpoint
from playscout.corpus.models import ClipRecord
from playscout.tools.qa import VideoQAArgs, video_qa
from playscout.tools.tool import ModelSet
from tests.clients.fake_openai_server import FakeOpenAIServer
from tests.synthdata import SynthIndex
from tests.tools.test_qa import clips, corpus_with_video, data, make_ctx  # noqa: F401

LATENCY_S = 0.2


@pytest.fixture
def slow_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(latency_s=LATENCY_S) as srv:
        yield srv


def timed(ctx: Any, ids: list[str]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    result = video_qa(ctx, VideoQAArgs(video_ids=ids, query="Who had the ball?"))
    return time.perf_counter() - t0, result


def oracle_ctx(synth_index: SynthIndex, server: FakeOpenAIServer, concurrency: int) -> Any:
    ep = ModelEndpoint(base_url=server.url, model="captions", timeout_s=5.0)
    client = OpenAIChatClient.from_endpoint(ep)
    return make_ctx(
        synth_index,
        mode="oracle",
        models=ModelSet(caption_llm=client),
        caption_llm=ep,
        max_concurrency=concurrency,
    )


def test_sixteen_clips_take_about_one_call(
    synth_index: SynthIndex,
    slow_server: FakeOpenAIServer,
) -> None:
    ids = [c.clip_id for c in clips(synth_index)[:16]]
    ctx = oracle_ctx(synth_index, slow_server, 16)
    timed(ctx, ids[:1])  # warm-up: loop, connection, tokenizer
    one, _ = timed(ctx, ids[:1])
    slow_server.max_in_flight = 0
    many, result = timed(ctx, ids)
    print(f"\nfan-out (oracle, HTTP): 1 clip {one * 1000:.0f} ms, 16 clips {many * 1000:.0f} ms")
    assert [i.id for i in data(result).items] == ids
    assert all(
        i.error is None and i.answer == "echo: Who had the ball?" for i in data(result).items
    )
    assert slow_server.max_in_flight == 16  # all sixteen in flight at once: one call's wait


def test_concurrency_bound_is_respected(
    synth_index: SynthIndex,
    slow_server: FakeOpenAIServer,
) -> None:
    ids = [c.clip_id for c in clips(synth_index)[:16]]
    wall, result = timed(oracle_ctx(synth_index, slow_server, 4), ids)
    print(f"\nfan-out (oracle, HTTP, max 4 in flight): 16 clips {wall * 1000:.0f} ms")
    assert slow_server.max_in_flight == 4
    assert wall >= 4 * LATENCY_S
    assert len(data(result).items) == 16


def test_default_mode_frames_over_http(
    synth_index: SynthIndex,
    corpus_with_video: tuple[Path, list[ClipRecord]],  # noqa: F811
    slow_server: FakeOpenAIServer,
) -> None:
    corpus_dir, chosen = corpus_with_video
    ep = ModelEndpoint(base_url=slow_server.url, model="vlm", timeout_s=10.0)
    ctx = make_ctx(
        synth_index,
        models=ModelSet(vlm=OpenAIChatClient.from_endpoint(ep)),
        vlm=ep,
        corpus=corpus_dir,
        max_concurrency=16,
    )
    ids = [c.clip_id for c in chosen]
    timed(ctx, ids[:1])
    one, _ = timed(ctx, ids[:1])
    many, result = timed(ctx, ids)
    print(
        f"\nfan-out (default, 16 frames/clip, HTTP): 1 clip {one * 1000:.0f} ms, 16 clips {many * 1000:.0f} ms"
    )
    assert all(i.error is None for i in data(result).items)
    body = slow_server.requests[-1]["body"]
    content = body["messages"][0]["content"]
    assert content[0]["type"] == "text" and len(content) == 17
    assert all(p["image_url"]["url"].startswith("data:image/jpeg;base64,") for p in content[1:])
    # The 16 model calls overlap (serial would be 16x one call); timings are printed, not asserted.
    assert slow_server.max_in_flight > 1
