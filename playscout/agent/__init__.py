"""The agent: a LangGraph ReAct loop (think -> one tool call -> observe) over the tools, with
an LLM policy or the offline workflow baseline, token-based context management and a typed
trajectory of every step."""

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
