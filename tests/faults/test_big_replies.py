"""A model server that ignores max_tokens and answers 20 MB (FakeOpenAIServer: a real HTTP
server sending a real 20 MB body; no model can be made to do this on purpose).

Before: the 20 MB completion was accepted, streamed to the client and written twice into a
40 MB trajectory (the model call's content and the final answer), and the server's memory grew
with it. Now a reply is bounded by the role's max_tokens (32 bytes a token) and
`max_reply_bytes`: the client stops reading past the bound, keeps the start of the text, and
the model call records the cut (`cut_from_bytes`, finish_reason `length`); the trajectory
holds the kept text once."""

from __future__ import annotations

import asyncio
import json
import tracemalloc
from typing import Any

import httpx
import pytest

from playscout.agent import read_trajectory
from playscout.agent.trajectory import FinalAnswer, ModelCall
from playscout.clients.chat import ChatMessage, ChatParams
from playscout.clients.openai_chat import OpenAIChatClient
from playscout.clients.pool import close_shared_clients
from playscout.serving.app import create_app
from tests.clients.fake_openai_server import FakeOpenAIServer, Reply
from tests.serving.conftest import live_server

from .conftest import llm_settings

pytestmark = pytest.mark.slow
MB = 1_000_000
CAP = 1024 * 32  # the default max_tokens (1024) at 32 bytes a token


def twenty_megabytes(body: dict[str, Any]) -> Reply:
    return Reply.chat("<answer>" + "x" * (20 * MB) + "</answer>", usage=(11, 5 * MB))


def as_bytes(reply: Reply) -> Reply:
    """The same reply with its body encoded once, up front: the server thread then sends
    bytes it already has, and what the test measures is the client's memory alone."""
    return Reply(body=json.dumps(reply.body).encode())


def test_a_20_mb_reply_is_cut_recorded_and_written_once(tmp_path, synth_index) -> None:
    with FakeOpenAIServer(twenty_megabytes) as model:
        settings = llm_settings(tmp_path, synth_index, model.url)
        app = create_app(settings, backend=synth_index.backend)
        body = {"question": "who won?", "policy": "llm", "mode": "oracle"}
        with live_server(app) as srv, httpx.Client(base_url=srv.url, timeout=120) as c:
            r = c.post("/v1/ask", json=body)
            assert r.status_code == 200, r.text[:500]
            assert len(r.content) < 4 * CAP, len(r.content)  # not 20 MB to the client
            with c.stream("POST", "/v1/ask/stream", json=body) as s:
                streamed = sum(len(chunk) for chunk in s.iter_bytes())
            assert streamed < 8 * CAP, streamed
    for path in sorted((tmp_path / "traj").glob("*.jsonl")):
        assert path.stat().st_size < 2 * CAP, (path, path.stat().st_size)  # the text once
        assert path.read_text().count("x" * 1000) <= CAP // 1000 + 1
        events = read_trajectory(path)
        [call] = [e for e in events if isinstance(e, ModelCall)]
        assert call.finish_reason == "length" and call.cut_from_bytes, call.cut_from_bytes
        assert call.cut_from_bytes > CAP and len(call.content.encode()) <= CAP
        [final] = [e for e in events if isinstance(e, FinalAnswer)]
        assert final.answer and set(final.answer) == {"x"}  # read back whole from its span
        assert final.answer in call.content


def test_reading_a_20_mb_reply_takes_bounded_memory() -> None:
    async def ask(client: OpenAIChatClient) -> Any:
        try:
            return await client.chat(
                [ChatMessage(role="user", content="hi")], params=ChatParams(max_tokens=1024)
            )
        finally:
            await close_shared_clients()

    sent = as_bytes(twenty_megabytes({}))
    with FakeOpenAIServer(lambda _: sent) as model:
        client = OpenAIChatClient(model.url, "fake-model", max_retries=0)
        tracemalloc.start()
        try:
            reply = asyncio.run(ask(client))
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert reply.finish_reason == "length" and reply.cut_from_bytes >= 16 * CAP
    assert set(reply.content) <= set("<answer>x") and len(reply.content.encode()) <= CAP
    # less than the reply itself (before: 286 MB); what is left is the HTTP stack's buffers
    assert peak < 20 * MB, f"peak {peak / MB:.1f} MB while reading a 20 MB reply"
