"""Who decides the next step: an LLM (`llm`) or the offline baseline (`workflow`), which routes
the question to documents and/or clips by rule (route.py) and reads them with the extractive
readers (reading.py)."""

from playscout.agent.policies.llm import LLMPolicy
from playscout.agent.policies.workflow import run_workflow

__all__ = ["LLMPolicy", "run_workflow"]
