"""What an eval run needs, for the runtime's preflight (runtime/preflight.py): the task says
which tools its route calls or that it runs the agent (`Task.calls`), the spec says the sports,
the mode and the policy. A run that would fail every item stops before its first one."""

from __future__ import annotations

from playscout.config.presets import Preset
from playscout.eval.running.spec import RunSpec
from playscout.eval.tasks.task import AGENT, Task
from playscout.runtime.preflight import Needs


def run_needs(task: Task, spec: RunSpec, preset: Preset) -> Needs:
    """Agent tasks need the agent's model under the llm policy and may call any tool the run's
    preset offers in its mode; direct tasks call their tools themselves. Either way the run is
    scored, so a tool that cannot work is an error, not a warning."""
    agent = AGENT in task.calls
    tools = preset.tool_names(spec.mode) if agent else task.calls
    return Needs(
        sports=tuple(spec.sports) if task.needs_index else (),
        mode=spec.mode,
        agent=agent and spec.policy == "llm",
        tools=tools,
        direct=not agent,
        scored=True,
    )
