"""The real graph and the real search tools over a real index; only the LLM is scripted."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from playscout.agent import Agent
from playscout.agent.graph import recursion_limit
from playscout.agent.trajectory import ContextEvent, ErrorEvent, FinalAnswer, ModelCall, Observation
from playscout.clients.chat import ChatMessage, ChatResponse, ModelBadResponse, ModelUnavailable
from playscout.config import AgentSettings
from playscout.tools.registry import SEARCH_TOOLS
from playscout.tools.tool import Tool, ToolArgs, ToolResult
from tests.doubles import ScriptedChatModel, native_call, text_call

Q = "Who assisted on the first made field goal of the 4th quarter?"


def run(agent: Agent, question: str = Q, **kw: Any) -> Any:
    return asyncio.run(agent.run(question, **kw))


def events(result: Any, kind: type) -> list[Any]:
    return [e for e in result.events if isinstance(e, kind)]


def agent_for(
    synth_index: Any,
    model: ScriptedChatModel,
    mode: str = "oracle",
    tools: Any = SEARCH_TOOLS,
    **settings: Any,
) -> Agent:
    s = AgentSettings(tool_protocol=settings.pop("protocol", "text"), **settings)
    return Agent(synth_index.ctx(mode), client=model, tools=tools, settings=s)


def test_budget_exhaustion_forces_final_answer_on_last_call(synth_index: Any) -> None:
    model = ScriptedChatModel(
        [text_call("search_documents", query="Hornets win")] * 2
        + ["<answer>Aaron Chambers</answer>"]
    )
    result = run(agent_for(synth_index, model, max_llm_calls=3, protocol="native"))
    assert len(model.requests) == 3
    last = model.requests[-1]
    assert last.tools is None  # no tools offered on the forced call
    assert "Final step" in str(last.messages[-1].content) and last.messages[-1].role == "user"
    assert model.requests[1].tools is not None
    assert result.answer == "Aaron Chambers" and result.status == "answered"
    assert result.forced_final == "max_calls"
    assert events(result, ModelCall)[-1].forced_final == "max_calls"


def test_budget_exhausted_without_answer(synth_index: Any) -> None:
    model = ScriptedChatModel([text_call("search_documents", query="Hornets")])
    result = run(agent_for(synth_index, model, max_llm_calls=4))
    assert result.status == "budget_exhausted" and result.answer is None
    assert len(model.requests) == 4 and result.turns == 4
    # the forced-final user message is not kept in the history
    assert sum("Final step" in str(m.content) for m in model.requests[-1].messages) == 1


def test_recursion_limit_comes_from_budget(synth_index: Any) -> None:
    assert recursion_limit(30) == 64
    model = ScriptedChatModel([text_call("search_documents", query="x")])
    result = run(agent_for(synth_index, model, max_llm_calls=30))
    assert result.status == "budget_exhausted" and len(model.requests) == 30


def test_answer_extraction_last_outside_think(synth_index: Any) -> None:
    reply = "<think>I guess <answer>wrong</answer></think> <answer>early</answer> text <answer>Jack Ashford</answer>"
    model = ScriptedChatModel([text_call("search_documents", query="Hornets"), reply])
    result = run(agent_for(synth_index, model))
    assert result.answer == "Jack Ashford" and result.status == "answered"


def test_answer_inside_think_only_gets_corrective(synth_index: Any) -> None:
    model = ScriptedChatModel(["<think><answer>x</answer></think>", "<answer>y</answer>"])
    result = run(agent_for(synth_index, model))
    assert result.answer == "y" and result.turns == 2
    assert "did not contain a valid tool call" in str(model.requests[1].messages[-1].content)
    assert any(e.kind == "protocol" for e in events(result, ErrorEvent))


@pytest.mark.parametrize(
    "error",
    [ModelUnavailable("server 127.0.0.1:9 is down"), ModelBadResponse("not a chat completion")],
)
def test_model_errors_end_run_with_error_never_as_answer(
    synth_index: Any, error: Exception
) -> None:
    model = ScriptedChatModel([text_call("search_documents", query="Hornets"), error])
    result = run(agent_for(synth_index, model))
    assert result.status == "error" and result.answer is None
    fatal = [e for e in events(result, ErrorEvent) if e.fatal]
    assert len(fatal) == 1 and fatal[0].kind == "model" and str(error) in fatal[0].message
    final = events(result, FinalAnswer)[-1]
    assert final.status == "error" and final.answer is None


def test_garbage_output_is_recorded_and_run_continues_to_budget(synth_index: Any) -> None:
    model = ScriptedChatModel(["\x00\x01 <tool_call>{garbage", "}}}{{{"])
    result = run(agent_for(synth_index, model, max_llm_calls=3))
    assert result.status == "budget_exhausted" and result.answer is None
    assert len([e for e in events(result, ErrorEvent) if e.kind == "protocol"]) == 3


class _Args(ToolArgs):
    query: str = ""


def _boom(ctx: Any, args: Any) -> ToolResult:
    raise RuntimeError("disk on fire")


def test_tool_raising_becomes_error_observation_and_agent_continues(synth_index: Any) -> None:
    tools = (*SEARCH_TOOLS, Tool("broken", "always fails", _Args, _boom))
    model = ScriptedChatModel(
        [
            text_call("broken", query="x"),
            text_call("search_documents", query="Hornets"),
            "<answer>ok</answer>",
        ]
    )
    result = run(agent_for(synth_index, model, tools=tools))
    obs = events(result, Observation)
    assert obs[0].error and "disk on fire" in obs[0].text
    assert obs[1].error is None and result.answer == "ok"
    assert "disk on fire" in str(model.requests[1].messages[-1].content)


def test_unknown_tool(synth_index: Any) -> None:
    model = ScriptedChatModel([text_call("teleport", where="court"), "<answer>a</answer>"])
    result = run(agent_for(synth_index, model))
    obs = events(result, Observation)[0]
    assert obs.error and "unknown tool 'teleport'" in obs.text
    assert "search_documents" in obs.text  # says what exists


def test_extra_text_calls_ignored_with_notice(synth_index: Any) -> None:
    reply = (
        text_call("search_documents", query="Hornets")
        + text_call("search_videos", query="dunk")
        + text_call("search_videos", query="x")
    )
    model = ScriptedChatModel([reply, "<answer>a</answer>"])
    result = run(agent_for(synth_index, model))
    obs = events(result, Observation)
    assert len(obs) == 1 and obs[0].name == "search_documents"
    assert "2 more tool calls were ignored: one call per turn" in obs[0].text
    sent_assistant = model.requests[1].messages[-2]
    assert sent_assistant.role == "assistant" and "search_videos" not in str(sent_assistant.content)


def test_extra_native_calls_ignored_and_history_keeps_one(synth_index: Any) -> None:
    reply = native_call(
        ("search_documents", {"query": "Hornets"}), ("search_videos", {"query": "dunk"})
    )
    model = ScriptedChatModel([reply, "<answer>a</answer>"], supports_native_tools=True)
    result = run(agent_for(synth_index, model, protocol="auto"))
    assistant, tool_msg = model.requests[1].messages[-2:]
    assert assistant.tool_calls is not None and len(assistant.tool_calls) == 1
    assert tool_msg.role == "tool" and tool_msg.tool_call_id == "call_0"
    assert "1 more tool call was ignored" in str(tool_msg.content)
    assert result.answer == "a"


def test_oversized_observation_is_cut_in_tokens(synth_index: Any) -> None:
    model = ScriptedChatModel([text_call("search_videos", query="made shot"), "<answer>a</answer>"])
    agent = agent_for(synth_index, model, observation_tokens=128)
    result = run(agent)
    obs = events(result, Observation)[0]
    assert obs.cut_from_tokens is not None and obs.cut_from_tokens > 128
    assert "[observation cut: 128 of" in obs.text
    body = obs.text.split("\n[observation cut")[0]
    assert agent.tokenizer.count(body) <= 128


def test_oracle_and_default_routing_reach_search_videos(synth_index: Any) -> None:
    call = text_call("search_videos", query="three-point jump shot")
    oracle = ScriptedChatModel([call, "<answer>a</answer>"])
    obs = events(run(agent_for(synth_index, oracle, mode="oracle")), Observation)[0]
    assert (
        obs.error is None and "ground-truth captions (oracle)" in obs.text and obs.data["clip_ids"]
    )
    default = ScriptedChatModel([call, "<answer>a</answer>"])
    obs = events(run(agent_for(synth_index, default, mode="default")), Observation)[0]
    assert obs.error is not None
    assert obs.text in str(default.requests[1].messages[-1].content)  # the model sees it


def test_text_protocol_wire_format(synth_index: Any) -> None:
    model = ScriptedChatModel(
        [text_call("search_documents", query="Hornets"), "<answer>a</answer>"]
    )
    run(agent_for(synth_index, model, protocol="text"))
    first = model.requests[0]
    assert first.tools is None and "<tools>" in str(first.messages[0].content)
    assert first.params is not None and first.params.stop and "<tool_response>" in first.params.stop
    obs = model.requests[1].messages[-1]
    assert obs.role == "user" and str(obs.content).startswith("<tool_response>")


def test_native_protocol_wire_format(synth_index: Any) -> None:
    model = ScriptedChatModel(
        [native_call(("search_documents", {"query": "Hornets"})), "<answer>a</answer>"]
    )
    result = run(agent_for(synth_index, model, protocol="native"))
    first = model.requests[0]
    assert first.tools and {t["function"]["name"] for t in first.tools} == {
        "search_documents",
        "search_videos",
    }
    assert "<tools>" not in str(first.messages[0].content)
    assert model.requests[1].messages[-1].role == "tool"
    assert result.evidence["doc_ids"]


def test_auto_protocol_probes_once_when_client_does_not_say(synth_index: Any) -> None:
    probe_reply = native_call(("ping", {}))
    model = ScriptedChatModel([probe_reply, "<answer>a</answer>"], supports_native_tools=None)
    agent = agent_for(synth_index, model, protocol="auto")
    result = run(agent)
    assert model.requests[0].tools and model.requests[0].tools[0]["function"]["name"] == "ping"
    start = result.events[0]
    assert start.tool_protocol == "native (probe)"


def test_system_prompt_env_desc_is_filled(synth_index: Any) -> None:
    model = ScriptedChatModel(["<answer>a</answer>"])
    run(agent_for(synth_index, model))
    system = str(model.requests[0].messages[0].content)
    assert "{{env_desc}}" not in system and "no description file" not in system
    assert "Charlotte Hornets" in system and "Boston Celtics" in system  # canonical teams
    assert "[espn_report]" in system and "[videos]" in system and "search_videos(" in system


def test_no_bookkeeping_sent(synth_index: Any) -> None:
    model = ScriptedChatModel(
        [text_call("search_documents", query="Hornets"), "<answer>a</answer>"]
    )
    run(agent_for(synth_index, model))
    for m in model.requests[-1].messages:
        assert isinstance(m, ChatMessage)
        assert set(m.model_dump(exclude_none=True)) <= {
            "role",
            "content",
            "tool_calls",
            "tool_call_id",
            "name",
        }


def test_context_drops_oldest_turns_keeps_system_and_question(synth_index: Any) -> None:
    replies = [text_call("search_videos", query=f"shot {i}") for i in range(6)] + [
        "<answer>a</answer>"
    ]
    model = ScriptedChatModel(replies)
    llm = {"max_tokens": 64}
    result = run(
        agent_for(synth_index, model, max_context_tokens=5000, observation_tokens=600, llm=llm)
    )
    assert events(result, ContextEvent), "expected pruning"
    last = model.requests[-1].messages
    assert last[0].role == "system" and last[1].content == Q
    assert "earlier tool turn(s) were removed" in str(last[2].content)
    assert result.answer == "a"


def test_context_too_small_forces_final(synth_index: Any) -> None:
    model = ScriptedChatModel([text_call("search_videos", query="shot"), "<answer>a</answer>"])
    llm = {"max_tokens": 64}
    result = run(
        agent_for(synth_index, model, max_context_tokens=1500, observation_tokens=4000, llm=llm)
    )
    assert result.forced_final == "context"
    assert model.requests[-1].tools is None and "Final step" in str(
        model.requests[-1].messages[-1].content
    )


def test_stream_yields_events_live(synth_index: Any) -> None:
    model = ScriptedChatModel(
        [text_call("search_documents", query="Hornets"), "<answer>a</answer>"]
    )
    agent = agent_for(synth_index, model)

    async def collect() -> list[Any]:
        return [e async for e in agent.stream(Q)]

    seen = asyncio.run(collect())
    kinds = [e.type for e in seen]
    assert kinds[0] == "run_start" and kinds[-1] == "final_answer"
    assert kinds.count("model_call") == 2 and "observation" in kinds
    assert [e.seq for e in seen] == list(range(1, len(seen) + 1))


def test_scripted_usage_is_recorded(synth_index: Any) -> None:
    model = ScriptedChatModel(
        [ChatResponse(content="<answer>a</answer>", finish_reason="stop", reasoning="because")]
    )
    result = run(agent_for(synth_index, model))
    call = events(result, ModelCall)[0]
    assert call.finish_reason == "stop" and call.reasoning == "because" and call.context_tokens > 0
