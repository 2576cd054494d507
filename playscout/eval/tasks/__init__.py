"""The tasks over questions generated from the synthetic corpus: name -> task object (loader +
route + metric). Each is declared with its published formats (eval/tasks/registry.py); these are the
lookups the runner, preflight and report use."""

from __future__ import annotations

from playscout.eval.tasks.task import Instance, Task, TaskEnv


def task_names() -> list[str]:
    from playscout.eval.tasks.registry import task_names as declared

    return declared()


def get_task(name: str) -> Task:
    """The task over generated questions; an unknown task, or one that only reads published
    data, is one line."""
    from playscout.eval.tasks.registry import get

    return get(name).task()


__all__ = ["Instance", "Task", "TaskEnv", "get_task", "task_names"]
