"""Tasks: what a benchmark task is (tasks/task.py: one `Task` type, its items, its sources),
every task in one module (t1.py ... t9.py, gameplayqa.py, starbench.py, lcric.py, plain.py: its
generated questions, its published formats' record models and parsers, its routes, ending in
its `declare`), the table of them (tasks/registry.py, `TASKS`), and what the tasks share: how
an item is asked (routes.py: the agent or one tool; video_files.py: a VLM about video files),
leakage guards (guard.py), reading published files (reading.py, svi.py, media.py),
multiple-choice options (options.py), and the synthetic corpus' clip and game facts
(synthetic.py, games.py).

The names below are imported on first use: the table is read without importing a task."""

from __future__ import annotations

from typing import TYPE_CHECKING

from playscout._lazy import lazy_exports

if TYPE_CHECKING:
    from playscout.eval.tasks.registry import (
        TASKS,
        declare,
        get_task,
        published_task,
        read_data,
        task_names,
    )
    from playscout.eval.tasks.task import Format, Instance, Needs, PublishedData, Task, TaskEnv

_EXPORTS = {
    **{
        n: "playscout.eval.tasks.registry"
        for n in ("TASKS", "declare", "get_task", "published_task", "read_data", "task_names")
    },
    **{
        n: "playscout.eval.tasks.task"
        for n in ("Format", "Instance", "Needs", "PublishedData", "Task", "TaskEnv")
    },
}
__getattr__ = lazy_exports(__name__, _EXPORTS, globals())
__all__ = [
    "TASKS",
    "Format",
    "Instance",
    "Needs",
    "PublishedData",
    "Task",
    "TaskEnv",
    "declare",
    "get_task",
    "published_task",
    "read_data",
    "task_names",
]
