"""OpenAIChatClient against FakeOpenAIServer over real sockets: parsing, retries, errors."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from typing import Any

import pytest

from playscout.clients.chat import (
    ChatClient,
    ChatMessage,
    ChatParams,
    ImagePart,
    ModelBadResponse,
    ModelRejected,
    ModelTimeout,
    ModelUnavailable,
    TextPart,
    ToolCall,
)
from playscout.clients.openai_chat import OpenAIChatClient, chat_url
from playscout.clients.pool import shared_client
from playscout.config import ModelEndpoint
from tests.clients.fake_openai_server import FakeOpenAIServer, Reply

USER = [ChatMessage(role="user", content="What happened?")]


class SleepRecorder:
    """Records backoff waits instead of sleeping them, so retry tests are fast and exact."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def client(server: FakeOpenAIServer, **kw: Any) -> OpenAIChatClient:
    kw.setdefault("max_retries", 3)
    kw.setdefault("timeout_s", 5.0)
    return OpenAIChatClient(server.url, "fake-model", **kw)


def test_implements_the_protocol(server: FakeOpenAIServer) -> None:
    assert isinstance(client(server), ChatClient)


def test_parses_content_usage_finish_reason_and_latency(server: FakeOpenAIServer) -> None:
    server.push(
        Reply.chat("The Hornets won.", usage=(120, 9), finish_reason="length", delay_s=0.05)
    )
    resp = asyncio.run(client(server).chat(USER))
    assert resp.content == "The Hornets won."
    assert (resp.usage.prompt_tokens, resp.usage.completion_tokens) == (120, 9)
    assert resp.finish_reason == "length"
    assert resp.model == "fake-model"
    assert resp.reasoning is None and resp.tool_calls == []
    assert resp.latency_s >= 0.05  # the server's delay is inside it (load only adds)


def test_params_are_sent_as_given(server: FakeOpenAIServer) -> None:
    params = ChatParams(
        temperature=0.6, top_p=0.95, max_tokens=333, stop=["</answer>"], extra_body={"top_k": 20}
    )
    asyncio.run(client(server, api_key="sk-test").chat(USER, params=params))
    req = server.requests[0]
    body = req["body"]
    assert req["path"] == "/v1/chat/completions"
    assert req["auth"] == "Bearer sk-test"
    assert body["model"] == "fake-model"
    assert (body["temperature"], body["top_p"], body["max_tokens"]) == (0.6, 0.95, 333)
    assert body["stop"] == ["</answer>"] and body["top_k"] == 20
    assert body["messages"] == [{"role": "user", "content": "What happened?"}]
    assert "tools" not in body


def test_text_and_image_parts_on_the_wire(server: FakeOpenAIServer) -> None:
    parts: list[TextPart | ImagePart] = [TextPart(text="Describe.")]
    parts += [ImagePart(url=f"data:image/jpeg;base64,AAA{i}") for i in range(3)]
    asyncio.run(client(server).chat([ChatMessage(role="user", content=parts)]))
    content = server.requests[0]["body"]["messages"][0]["content"]
    assert content[0] == {"type": "text", "text": "Describe."}
    assert [c["image_url"]["url"] for c in content[1:]] == [
        f"data:image/jpeg;base64,AAA{i}" for i in range(3)
    ]


def test_native_tool_calls_round_trip(server: FakeOpenAIServer) -> None:
    server.push(
        Reply.chat(
            None,
            tool_calls=[
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "search_videos", "arguments": '{"query": "dunk"}'},
                },
                {  # some servers send arguments as an object
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "video_qa", "arguments": {"video_ids": ["1_2"]}},
                },
            ],
            finish_reason="tool_calls",
        )
    )
    tools = [{"type": "function", "function": {"name": "search_videos", "parameters": {}}}]
    history = [
        *USER,
        ChatMessage(
            role="assistant",
            tool_calls=[ToolCall(id="call_0", name="search_documents", arguments="{}")],
        ),
        ChatMessage(role="tool", tool_call_id="call_0", content="3 documents"),
    ]
    resp = asyncio.run(client(server).chat(history, tools=tools))
    assert resp.content == ""
    assert resp.finish_reason == "tool_calls"
    assert [(c.id, c.name) for c in resp.tool_calls] == [
        ("call_1", "search_videos"),
        ("call_2", "video_qa"),
    ]
    assert json.loads(resp.tool_calls[1].arguments) == {"video_ids": ["1_2"]}
    sent = server.requests[0]["body"]
    assert sent["tools"] == tools
    assert sent["messages"][1]["tool_calls"][0]["function"]["name"] == "search_documents"
    assert sent["messages"][2] == {
        "role": "tool",
        "content": "3 documents",
        "tool_call_id": "call_0",
    }


@pytest.mark.parametrize("key", ["reasoning_content", "reasoning"])
def test_reasoning_channel_is_separate(server: FakeOpenAIServer, key: str) -> None:
    server.push(Reply.chat("42", reasoning="Let me count...", reasoning_key=key))
    resp = asyncio.run(client(server).chat(USER))
    assert resp.content == "42"
    assert resp.reasoning == "Let me count..."


def test_retries_503_then_succeeds(server: FakeOpenAIServer) -> None:
    server.push(Reply.error(503), Reply.error(503), Reply.chat("fine"))
    sleep = SleepRecorder()
    resp = asyncio.run(client(server, sleep=sleep, backoff_base_s=0.5).chat(USER))
    assert resp.content == "fine"
    assert len(server.requests) == 3
    assert len(sleep.waits) == 2
    assert 0.25 <= sleep.waits[0] <= 0.5 and 0.5 <= sleep.waits[1] <= 1.0  # exponential, jittered


def test_gives_up_after_max_retries_with_one_line_message(server: FakeOpenAIServer) -> None:
    server.push(*[Reply.error(503, "server\noverloaded")] * 5)
    c = client(server, max_retries=2, sleep=SleepRecorder())
    with pytest.raises(ModelUnavailable) as info:
        asyncio.run(c.chat(USER))
    msg = str(info.value)
    assert len(server.requests) == 3
    assert "\n" not in msg
    assert c.url in msg and "HTTP 503" in msg and "server overloaded" in msg
    assert "gave up after 3 attempts" in msg


def test_429_honours_retry_after(server: FakeOpenAIServer) -> None:
    server.push(Reply.error(429, "rate limited", Retry_After="2.5"), Reply.chat("ok"))
    sleep = SleepRecorder()
    resp = asyncio.run(client(server, sleep=sleep, backoff_base_s=0.01).chat(USER))
    assert resp.content == "ok"
    assert len(server.requests) == 2
    assert sleep.waits == [2.5]


def test_429_retry_after_really_waits(server: FakeOpenAIServer) -> None:
    server.push(Reply.error(429, "rate limited", Retry_After="0.4"), Reply.chat("ok"))
    t0 = time.perf_counter()
    asyncio.run(client(server, backoff_base_s=0.01).chat(USER))
    assert time.perf_counter() - t0 >= 0.4


def test_context_overflow_is_never_retried(server: FakeOpenAIServer) -> None:
    server.push(Reply.context_overflow(), Reply.chat("should not be reached"))
    sleep = SleepRecorder()
    with pytest.raises(ModelRejected) as info:
        asyncio.run(client(server, sleep=sleep).chat(USER))
    assert len(server.requests) == 1 and sleep.waits == []
    assert "HTTP 400" in str(info.value) and "maximum context length" in str(info.value)
    assert not info.value.retryable


@pytest.mark.parametrize("status", [401, 404, 422])
def test_other_4xx_are_rejected_at_once(server: FakeOpenAIServer, status: int) -> None:
    server.push(Reply.error(status, "nope"))
    with pytest.raises(ModelRejected):
        asyncio.run(client(server, sleep=SleepRecorder()).chat(USER))
    assert len(server.requests) == 1


@pytest.mark.parametrize("status", [408, 500, 502, 504])
def test_retryable_statuses(server: FakeOpenAIServer, status: int) -> None:
    server.push(Reply.error(status), Reply.chat("ok"))
    assert asyncio.run(client(server, sleep=SleepRecorder()).chat(USER)).content == "ok"
    assert len(server.requests) == 2


def test_hanging_server_times_out_and_retries(server: FakeOpenAIServer) -> None:
    server.push(Reply.hanging(), Reply.hanging())
    c = client(server, timeout_s=0.3, max_retries=1, sleep=SleepRecorder())
    t0 = time.perf_counter()
    with pytest.raises(ModelTimeout) as info:
        asyncio.run(c.chat(USER))
    elapsed = time.perf_counter() - t0
    assert len(server.requests) == 2
    assert elapsed >= 0.55  # two 0.3 s timeouts were waited out; a hang would never raise
    assert "timed out after 0.3s" in str(info.value) and c.url in str(info.value)


def test_explicit_params_timeout_overrides_client_default(server: FakeOpenAIServer) -> None:
    server.push(Reply.hanging())
    c = client(server, timeout_s=30.0, max_retries=0)
    t0 = time.perf_counter()
    with pytest.raises(ModelTimeout, match=r"timed out after 0\.2s"):  # not the 30 s default
        asyncio.run(c.chat(USER, params=ChatParams(timeout_s=0.2)))
    assert time.perf_counter() - t0 >= 0.2


def test_garbage_body_is_retried_then_reported(server: FakeOpenAIServer) -> None:
    server.push(Reply.garbage(), Reply.chat("recovered"))
    assert asyncio.run(client(server, sleep=SleepRecorder()).chat(USER)).content == "recovered"
    assert len(server.requests) == 2

    server.push(*[Reply.garbage()] * 3)
    with pytest.raises(ModelBadResponse) as info:
        asyncio.run(client(server, max_retries=2, sleep=SleepRecorder()).chat(USER))
    assert "malformed reply" in str(info.value) and "not JSON" in str(info.value)


@pytest.mark.parametrize(
    "body", [{"choices": []}, {"object": "error"}, [1, 2], {"choices": [{"message": "x"}]}]
)
def test_wrong_shape_is_a_bad_response(server: FakeOpenAIServer, body: Any) -> None:
    server.push(Reply(body=body))
    with pytest.raises(ModelBadResponse):
        asyncio.run(client(server, max_retries=0).chat(USER))


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_server_down_is_unavailable_with_url() -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    c = OpenAIChatClient(url, "m", max_retries=1, sleep=SleepRecorder())
    with pytest.raises(ModelUnavailable) as info:
        asyncio.run(c.chat(USER))
    msg = str(info.value)
    assert f"{url}/chat/completions" in msg and "connection error" in msg and "\n" not in msg
    assert "gave up after 2 attempts" in msg


def test_from_endpoint_reads_key_from_env_and_applies_settings(
    server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_QA_KEY", "sk-env")
    ep = ModelEndpoint(
        base_url=server.url,
        model="qa-model",
        api_key_env="MY_QA_KEY",
        temperature=0.7,
        max_tokens=77,
    )
    c = OpenAIChatClient.from_endpoint(ep)
    asyncio.run(c.chat(USER))
    req = server.requests[0]
    assert req["auth"] == "Bearer sk-env"
    assert (req["body"]["model"], req["body"]["temperature"], req["body"]["max_tokens"]) == (
        "qa-model",
        0.7,
        77,
    )
    with pytest.raises(ValueError):
        OpenAIChatClient.from_endpoint(ModelEndpoint())


def test_supports_tools_probe(server: FakeOpenAIServer) -> None:
    c = client(server, sleep=SleepRecorder())
    server.push(Reply.error(400, '"auto" tool choice requires --enable-auto-tool-choice'))
    assert asyncio.run(c.supports_tools()) is False
    server.push(Reply.chat("ok"))
    assert asyncio.run(c.supports_tools()) is True
    assert "tools" in server.requests[-1]["body"]


def test_pool_one_client_per_loop_and_usable_across_loops(server: FakeOpenAIServer) -> None:
    c = client(server)

    async def same_loop() -> tuple[Any, Any]:
        return shared_client(server.url, None), shared_client(server.url, None)

    a, b = asyncio.run(same_loop())
    assert a is b
    c2, _ = asyncio.run(same_loop())
    assert c2 is not a
    # The same chat client keeps working from fresh loops (the reference shared one across loops).
    for _ in range(3):
        assert asyncio.run(c.chat(USER)).content.startswith("<answer>")


def test_bad_base_url_is_rejected() -> None:
    with pytest.raises(ValueError, match="http"):
        OpenAIChatClient("127.0.0.1:8000", "m")
    assert chat_url("http://h:1/v1/") == "http://h:1/v1/chat/completions"
    assert chat_url("http://h:1/v1/chat/completions") == "http://h:1/v1/chat/completions"
