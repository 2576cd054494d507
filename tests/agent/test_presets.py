"""Presets as data: loading and its one-line errors, the settings they fill (and the
deviations they record), the tools they offer (oracle isolation), and the protocol behaviours
they switch (forced-final raw text, no pruning, structured tool choice). The real graph, tools
and index; only the model is scripted."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import orjson
import pytest

from playscout.agent import Agent
from playscout.agent.trajectory import ModelCall
from playscout.clients.chat import ChatParams
from playscout.clients.wire import request_body
from playscout.config import AgentSettings, Settings
from playscout.config.presets import PresetError, apply_preset, load_preset, preset_names
from playscout.tools.errors import ToolSpecError
from playscout.tools.offer import offered_tools
from playscout.tools.registry import REGISTRY, call_tool
from tests.doubles import ScriptedChatModel, native_call, text_call

Q = "Who assisted on the first made field goal of the 4th quarter?"
MEDIA_READERS = {"extract_scene_text", "transcribe_speech", "detect_audio_events"}


def run(agent: Agent) -> Any:
    return asyncio.run(agent.run(Q))


def test_packaged_presets() -> None:
    assert {"extended", "paper"} <= set(preset_names())
    paper, extended = load_preset("paper"), load_preset("extended")
    assert paper.paper_comparable and not extended.paper_comparable
    assert [t.name for t in paper.tools] == [
        "search_documents", "document_qa", "video_qa", "search_videos"
    ]  # fmt: skip
    assert paper.profile("gpt-5.2").name == "gpt-5"
    assert paper.profile("Qwen/Qwen3-235B").name == "open-weights"


def test_bad_presets_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(PresetError, match=r"unknown preset 'papr'; use one of extended, paper"):
        load_preset("papr")
    bad = tmp_path / "bad.yaml"
    bad.write_text((Path(__file__).parents[2] / "playscout/presets/extended.yaml").read_text()
                   + "\ntemperature: 0.3\n")  # fmt: skip
    with pytest.raises(PresetError, match=r"bad.yaml: temperature: unknown field$"):
        load_preset(str(bad))
    bad.write_text(bad.read_text().replace("temperature: 0.3", "settings: {agent: {max_llm: 3}}"))
    with pytest.raises(PresetError, match=r"settings.agent.max_llm: unknown field"):
        load_preset(str(bad))
    with pytest.raises(ToolSpecError, match=r"^unknown tool 'no_such_tool'; known:"):
        offered_tools(
            [load_preset("paper").tools[0].model_copy(update={"name": "no_such_tool"})],
            "default",
            Settings().search,
            Settings().qa,
        )


def test_preset_fills_unset_settings_and_records_explicit_ones() -> None:
    paper = load_preset("paper")
    mine = Settings.model_validate(
        {"agent": {"llm": {"model": "smollm2", "max_tokens": 512}, "max_llm_calls": 30}}
    )
    applied, deviations = apply_preset(mine, paper)
    assert applied.agent.max_context_tokens == 40960 - 4096 and not applied.agent.prune_context
    assert applied.agent.llm.temperature == 0.6 and applied.agent.llm.top_p == 0.95
    assert applied.agent.llm.max_tokens == 512  # the user's, kept ...
    assert deviations == ["agent.llm.max_tokens=512 (preset 4096)"]  # ... and recorded
    assert applied.search.caption_search == "dense" and applied.qa.vlm.max_tokens == 4096
    gpt, _ = apply_preset(Settings.model_validate({"agent": {"llm": {"model": "gpt-5.2"}}}), paper)
    assert (gpt.agent.llm.temperature, gpt.agent.llm.reasoning_effort) == (1.0, "medium")


@pytest.mark.parametrize(
    ("model", "window"),
    [
        ("Qwen/Qwen3-235B-A22B-Thinking-2507-FP8", 40960),  # App. E: the Qwen agents, 40K
        ("qwen3-omni-30b", 40960),
        ("Qwen/Qwen3-30B-A3B", 40960),
        ("MiniMaxAI/MiniMax-M2.5", 131072),  # App. E: MiniMax, 128K
        ("gpt-5.2", None),  # its native context: the reference's 150K hard limit
    ],
)
def test_each_agent_gets_the_context_window_app_e_gives_it(model: str, window: int | None) -> None:
    """The limit is the window less the reply budget, so every request fits the served
    context; setting it yourself is a deviation only when it differs."""
    paper = load_preset("paper")
    applied, deviations = apply_preset(
        Settings.model_validate({"agent": {"llm": {"model": model}}}), paper
    )
    want = window - 4096 if window else 150000
    assert applied.agent.max_context_tokens == want and deviations == []
    same = {"agent": {"llm": {"model": model}, "max_context_tokens": want}}
    assert apply_preset(Settings.model_validate(same), paper)[1] == []


@pytest.mark.parametrize("name", ["paper", "extended"])
def test_oracle_never_offers_a_pixel_or_audio_reader(name: str) -> None:
    s = Settings()
    preset = load_preset(name)
    default = {t.name for t in offered_tools(preset.offered("default"), "default", s.search, s.qa)}
    oracle = {t.name for t in offered_tools(preset.offered("oracle"), "oracle", s.search, s.qa)}
    assert not oracle & MEDIA_READERS
    assert default >= (MEDIA_READERS if name == "extended" else set())
    assert ("video_qa_oracle" in oracle) == (name == "paper")


def test_agent_in_oracle_mode_drops_media_readers_even_when_handed_them(synth_index: Any) -> None:
    agent = Agent(
        synth_index.ctx("oracle"), client=ScriptedChatModel(), tools=tuple(REGISTRY.values())
    )
    assert not {t.name for t in agent.tools} & MEDIA_READERS


def test_video_qa_oracle_refuses_outside_oracle_mode(synth_index: Any) -> None:
    tools = {"video_qa_oracle": REGISTRY["video_qa_oracle"]}
    args = {"video_ids": ["400000_1"], "query": "What happens?"}
    result = call_tool(tools, synth_index.ctx("default"), "video_qa_oracle", args)
    assert result.error == "video_qa_oracle reads ground-truth captions: oracle mode only"


def test_paper_oracle_clip_search_is_dense_only(synth_index: Any) -> None:
    ctx = synth_index.ctx("oracle")
    args = {"query": "three pointer", "quarter": 4}
    hybrid = call_tool(REGISTRY, ctx, "search_videos", args).data.hits
    ctx.search = ctx.search.model_copy(update={"caption_search": "dense"})
    dense = call_tool(REGISTRY, ctx, "search_videos", args).data.hits
    assert any(h.scores.bm25_rank for h in hybrid)
    assert dense and all(h.scores.bm25 is None and h.scores.dense is not None for h in dense)


def _agent(synth_index: Any, model: ScriptedChatModel, preset: str, **agent: Any) -> Agent:
    p = load_preset(preset)
    settings = AgentSettings(**{**p.settings["agent"], **agent})
    return Agent(synth_index.ctx("oracle"), client=model, settings=settings, preset=p)


@pytest.mark.parametrize(
    ("preset", "answer"), [("paper", "The Hornets, I think."), ("extended", None)]
)
def test_forced_final_reply_without_a_tag(
    synth_index: Any, preset: str, answer: str | None
) -> None:
    """paper: the reference's judge reads the raw text of a forced final reply; extended: no
    answer."""
    model = ScriptedChatModel(
        [text_call("search_documents", query="Hornets"), "The Hornets, I think."]
    )
    result = run(_agent(synth_index, model, preset, max_llm_calls=2))
    assert result.status == "budget_exhausted" and result.answer == answer
    final = str(model.requests[-1].messages[-1].content)
    assert final == ("--- Final Step Reached ---\nNow you reach the final step.\nYou are "
                     "forbidden to call any tools.\nYou must offer your final answer now."
                     if preset == "paper" else final)  # fmt: skip


def test_paper_bare_fallback_sentence_ends_the_run(synth_index: Any) -> None:
    model = ScriptedChatModel(["I cannot find the answer in the provided documents or videos."])
    assert run(_agent(synth_index, model, "paper")).status == "no_answer"
    model = ScriptedChatModel(["I cannot find the answer in the provided documents or videos."] * 3)
    run(_agent(synth_index, model, "extended", max_llm_calls=3))
    assert len(model.requests) == 3  # extended asks again: only <answer> ends a run


def test_without_pruning_the_last_message_is_cut_and_the_answer_forced(synth_index: Any) -> None:
    """The reference keeps every turn; at its hard limit it cuts the last message, appends the
    truncation and final notices, and makes one last call."""

    def reply(messages: list[Any], n: int) -> str:
        if "Final Step Reached" in str(messages[-1].content):
            return "<answer>a</answer>"
        return text_call("search_videos", query=f"shot {n}")

    model = ScriptedChatModel([reply])
    agent = _agent(synth_index, model, "paper", max_context_tokens=7500, llm={"max_tokens": 64})
    result = run(agent)
    assert result.forced_final == "context" and result.answer == "a"
    last = model.requests[-1].messages
    assert last[0].role == "system" and last[1].content == Q  # nothing dropped ...
    assert len(last) == len(model.requests[-2].messages) + 2  # ... every turn kept
    assert str(last[-1].content).endswith(
        "The response is truncated.\n--- Final Step Reached ---\nNow you reach the final step.\n"
        "You are forbidden to call any tools.\nYou must offer your final answer now."
    )


def test_structured_protocol_requires_a_call_and_answers_through_final_answer(
    synth_index: Any,
) -> None:
    model = ScriptedChatModel(
        [
            native_call(("search_documents", {"query": "Hornets"})),
            native_call(("final_answer", {"answer": "Aaron Chambers"})),
        ]
    )
    agent = _agent(synth_index, model, "extended", tool_protocol="structured", max_llm_calls=5)
    result = run(agent)
    assert result.status == "answered" and result.answer == "Aaron Chambers"
    first = request_body("m", model.requests[0].messages, model.requests[0].tools,
                         model.requests[0].params)  # fmt: skip
    assert first["tool_choice"] == "required"
    assert first["tools"][-1]["function"]["name"] == "final_answer"
    # strict: vLLM then constrains the arguments too, not only the function name
    assert all(t["function"]["strict"] for t in first["tools"])
    assert all(t["function"]["parameters"]["additionalProperties"] is False for t in first["tools"])
    # bounded: guided decoding must not let a small model write one id until max_tokens
    doc_qa = next(t for t in first["tools"] if t["function"]["name"] == "document_qa")
    ids = doc_qa["function"]["parameters"]["properties"]["doc_ids"]
    assert ids["maxItems"] == 3 and ids["items"]["maxLength"] == 48
    assert doc_qa["function"]["parameters"]["properties"]["query"]["maxLength"] == 120
    assert "call final_answer" in first["messages"][0]["content"]


def test_structured_protocol_names_final_answer_on_the_forced_call(synth_index: Any) -> None:
    model = ScriptedChatModel(
        [
            native_call(("search_documents", {"query": "Hornets"})),
            native_call(("final_answer", {"answer": "x"})),
        ]
    )
    result = run(
        _agent(synth_index, model, "extended", tool_protocol="structured", max_llm_calls=2)
    )
    last = model.requests[-1]
    assert [t["function"]["name"] for t in last.tools or []] == ["final_answer"]
    assert last.params is not None and last.params.tool_choice == {
        "type": "function", "function": {"name": "final_answer"}
    }  # fmt: skip
    assert result.answer == "x" and result.forced_final == "max_calls"


def test_wire_sends_tool_choice_only_with_tools_and_reasoning_as_the_reference() -> None:
    params = ChatParams(max_tokens=4096, reasoning_effort="medium", tool_choice="required")
    body = request_body("gpt-5.2", [], None, params)
    assert body["max_completion_tokens"] == 4096 and body["reasoning_effort"] == "medium"
    assert "max_tokens" not in body and "tool_choice" not in body
    tools = [{"type": "function", "function": {"name": "f", "parameters": {}}}]
    assert request_body("m", [], tools, params)["tool_choice"] == "required"


def test_trajectory_header_names_the_preset(synth_index: Any) -> None:
    model = ScriptedChatModel(["<answer>a</answer>"])
    result = run(_agent(synth_index, model, "paper"))
    start = result.events[0]
    assert (start.preset, start.preset_version) == ("paper", 1)
    call = next(e for e in result.events if isinstance(e, ModelCall))
    assert call.content == "<answer>a</answer>"
    assert orjson.loads(start.model_dump_json())["preset"] == "paper"
