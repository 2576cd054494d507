"""Every task on its published data (`eval run --task T --data FILE|DIR`): the released file
formats (formats.py), where their videos are (media.py), and each task's protocol on them
(clip_tasks, game_tasks, external_tasks). docs/published-data.md says what each reads."""

from __future__ import annotations

from playscout.eval.published.formats import FORMATS, Format, PublishedData, formats_for, read_data
from playscout.eval.published.task import Needs, PublishedTask


def published_task(name: str, data: PublishedData | None = None) -> PublishedTask:
    """The task `name` over published data (`data` None: for scoring stored rows)."""
    from playscout.eval.errors import RunError
    from playscout.eval.published import clip_tasks, external_tasks, game_tasks

    classes: list[type[PublishedTask]] = [
        clip_tasks.T1Published, clip_tasks.T2Published, clip_tasks.T3Published,
        game_tasks.T4Published, clip_tasks.T5Published, game_tasks.T6Published,
        game_tasks.T7Published, clip_tasks.T8Published, game_tasks.T9Published,
        external_tasks.GameplayQAPublished, external_tasks.STARBenchPublished,
        external_tasks.LCricPublished,
    ]  # fmt: skip
    by_name = {c.name: c for c in classes}
    if name not in by_name:
        raise RunError(f"unknown task {name!r}; one of: {', '.join(by_name)}")
    return by_name[name](data)


__all__ = [
    "FORMATS",
    "Format",
    "Needs",
    "PublishedData",
    "PublishedTask",
    "formats_for",
    "published_task",
    "read_data",
]
