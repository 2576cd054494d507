"""Wire format, retry policy and the sync bridge."""

from __future__ import annotations

import asyncio
import email.utils
import threading
import time

import pytest

from playscout.clients.chat import ChatMessage, ChatParams, ImagePart, TextPart
from playscout.clients.retry import backoff_s, is_retryable_status, parse_retry_after
from playscout.clients.sync import run_sync
from playscout.clients.wire import WireError, parse_response, request_body


def test_request_body_has_no_internal_fields_and_extra_body_wins() -> None:
    msg = ChatMessage(role="user", content=[TextPart(text="hi"), ImagePart(url="data:x")])
    body = request_body(
        "m", [msg], None, ChatParams(temperature=0.3, extra_body={"temperature": 1.0})
    )
    assert body["temperature"] == 1.0
    assert body["messages"][0] == {
        "role": "user",
        "content": [
            {"type": "text", "text": "hi"},
            {"type": "image_url", "image_url": {"url": "data:x"}},
        ],
    }
    assert "stop" not in body and "tools" not in body


def test_parse_response_content_parts_and_missing_usage() -> None:
    raw = b'{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}]}'
    resp = parse_response(raw, 0.1, "asked")
    assert resp.content == "ab" and resp.model == "asked" and resp.usage.prompt_tokens == 0
    with pytest.raises(WireError, match="no choices"):
        parse_response(b'{"choices": null}', 0.0, "m")
    with pytest.raises(WireError, match="tool_calls"):
        parse_response(b'{"choices":[{"message":{"content":"","tool_calls":[{}]}}]}', 0.0, "m")


def test_retryable_statuses() -> None:
    assert [s for s in (400, 401, 404, 408, 413, 422, 429, 500, 503) if is_retryable_status(s)] == [
        408,
        429,
        500,
        503,
    ]


def test_retry_after_seconds_and_http_date() -> None:
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after("junk") is None and parse_retry_after(None) is None
    now = time.time()
    date = email.utils.formatdate(now + 10, usegmt=True)
    assert 8.5 <= (parse_retry_after(date, now=now) or 0) <= 10.5


def test_backoff_grows_caps_and_respects_retry_after() -> None:
    for attempt, ceiling in [(1, 0.5), (2, 1.0), (3, 2.0), (10, 8.0)]:
        for _ in range(20):
            assert ceiling / 2 <= backoff_s(attempt, 0.5, 8.0) <= ceiling
    assert backoff_s(1, 0.5, 8.0, retry_after_s=5.0) == 5.0
    assert backoff_s(1, 0.5, 8.0, retry_after_s=3600, retry_after_cap_s=60) == 60


async def _work(x: int) -> tuple[int, str]:
    await asyncio.sleep(0.01)
    return x * 2, threading.current_thread().name


def test_run_sync_without_and_inside_a_running_loop() -> None:
    value, thread = run_sync(_work(2))
    assert value == 4 and thread == "playscout-async"

    async def caller() -> int:
        # A sync tool called from async code (e.g. an agent graph node) must not deadlock.
        return run_sync(_work(5))[0]

    assert asyncio.run(caller()) == 10


def test_run_sync_propagates_exceptions() -> None:
    async def boom() -> None:
        raise KeyError("nope")

    with pytest.raises(KeyError):
        run_sync(boom())
