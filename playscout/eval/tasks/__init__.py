"""The task registry: name -> task object (loader + route + metric)."""

from __future__ import annotations

from typing import Any

from playscout.eval.errors import RunError
from playscout.eval.tasks.task import Instance, Task, TaskEnv


def _registry() -> dict[str, Any]:
    from playscout.eval.tasks.clips import T1Task, T2Task, T3Task
    from playscout.eval.tasks.external import GameplayQATask, LCricTask, STARBenchTask
    from playscout.eval.tasks.games import T4Task, T5Task, T6Task
    from playscout.eval.tasks.generation import T7Task, T8Task
    from playscout.eval.tasks.t9 import T9Task

    tasks: list[Any] = [T1Task(), T2Task(), T3Task(), T4Task(), T5Task(), T6Task(), T7Task(), T8Task(),
             T9Task(), GameplayQATask(), STARBenchTask(), LCricTask()]  # fmt: skip
    return {t.name: t for t in tasks}


def task_names() -> list[str]:
    return list(_registry())


def get_task(name: str) -> Task:
    reg = _registry()
    if name not in reg:
        raise RunError(f"unknown task {name!r}; one of: {', '.join(reg)}")
    task: Task = reg[name]
    return task


__all__ = ["Instance", "Task", "TaskEnv", "get_task", "task_names"]
