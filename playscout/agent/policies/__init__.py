"""Who decides the next step: an LLM (`llm`) or the offline retrieve-then-read baseline
(`workflow`)."""

from playscout.agent.policies.llm import LLMPolicy
from playscout.agent.policies.workflow import run_workflow

__all__ = ["LLMPolicy", "run_workflow"]
