"""Every task on its published data (`eval run --task T --data FILE|DIR`): the released file
formats (formats.py), where their videos are (media.py), and each task's protocol on them
(clip_tasks, game_tasks, external_tasks, which declare each task with its formats:
eval/tasks/registry.py). docs/published-data.md says what each reads."""

from __future__ import annotations

from playscout.eval.published.formats import Format, PublishedData, read_data
from playscout.eval.published.task import Needs, PublishedTask


def published_task(
    name: str, data: PublishedData | None = None, format_name: str | None = None
) -> PublishedTask:
    """The task `name` over published data: the route of the format `data` was read in. With
    `data` None (scoring stored rows): the route of the format named `format_name` (what the run
    recorded), else of the task's first format."""
    from playscout.eval.errors import RunError
    from playscout.eval.tasks.registry import get

    if data is not None:
        return data.format.route(data)
    decl = get(name)
    if not decl.published:
        raise RunError(f"task {name} reads no published format")
    fmt = next((f for f in decl.published if f.name == format_name), decl.published[0])
    return fmt.route(None)


__all__ = [
    "Format",
    "Needs",
    "PublishedData",
    "PublishedTask",
    "published_task",
    "read_data",
]
