"""The agent: a LangGraph ReAct loop (think -> one tool call -> observe) over the tools, with
an LLM policy or the offline workflow baseline, token-based context management and a typed
trajectory of every step.

The names below are imported on first use: importing a submodule (`agent.tracing`,
`agent.trajectory`) must not load LangGraph, which a search never runs (issue 29).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from playscout._lazy import lazy_exports

if TYPE_CHECKING:
    from playscout.agent.answer import FALLBACK_ANSWER, extract_answer
    from playscout.agent.parser import parse_tool_calls
    from playscout.agent.runner import Agent, AgentError, AgentResult, default_tools, session_store
    from playscout.agent.trajectory import (
        SCHEMA_VERSION,
        Event,
        JsonlRecorder,
        MemoryRecorder,
        Recorder,
        TrajectoryError,
        read_trajectory,
        summarise,
    )
    from playscout.clients.reasoning import strip_reasoning

_EXPORTS = {
    "FALLBACK_ANSWER": "playscout.agent.answer",
    "extract_answer": "playscout.agent.answer",
    "parse_tool_calls": "playscout.agent.parser",
    "Agent": "playscout.agent.runner",
    "AgentError": "playscout.agent.runner",
    "AgentResult": "playscout.agent.runner",
    "default_tools": "playscout.agent.runner",
    "session_store": "playscout.agent.runner",
    "SCHEMA_VERSION": "playscout.agent.trajectory",
    "Event": "playscout.agent.trajectory",
    "JsonlRecorder": "playscout.agent.trajectory",
    "MemoryRecorder": "playscout.agent.trajectory",
    "Recorder": "playscout.agent.trajectory",
    "TrajectoryError": "playscout.agent.trajectory",
    "read_trajectory": "playscout.agent.trajectory",
    "summarise": "playscout.agent.trajectory",
    "strip_reasoning": "playscout.clients.reasoning",
}

__all__ = [
    "FALLBACK_ANSWER",
    "SCHEMA_VERSION",
    "Agent",
    "AgentError",
    "AgentResult",
    "Event",
    "JsonlRecorder",
    "MemoryRecorder",
    "Recorder",
    "TrajectoryError",
    "default_tools",
    "extract_answer",
    "parse_tool_calls",
    "read_trajectory",
    "session_store",
    "strip_reasoning",
    "summarise",
]


__getattr__ = lazy_exports(__name__, _EXPORTS, globals())
