"""A task run on its published data (`eval run --task T --data FILE`): the same protocol as
the synthetic task (Task in eval/tasks/task.py), with items from the data file instead of the
corpus. Each declares what it needs, which `eval tasks` lists and `check` enforces before a
run writes anything."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playscout.config import Settings
from playscout.eval.errors import RunError
from playscout.eval.published.formats import PublishedData
from playscout.eval.storage.records import Outcome, ResultRow
from playscout.eval.tasks.media import resolve_media
from playscout.eval.tasks.task import Instance, TaskEnv


@dataclass(frozen=True)
class Needs:
    """What a published run of the task needs besides its data file."""

    videos: str = "no"  # "no" | "optional" | "required": the items' video files (--media)
    vlm: bool = False  # a VLM reads their frames (default mode)
    corpus: str = "no"  # "no" | "optional" (used when given) | "required": corpus + index
    judge: str = "deterministic metric"  # what scores the answers

    def lines(self) -> list[str]:
        out = []
        if self.videos != "no":
            out.append(f"video files ({self.videos}: --media, default the data file's folder)")
        if self.vlm:
            out.append("a VLM (--vlm-url/--vlm-model)")
        if self.corpus != "no":
            out.append(f"a corpus and its index ({self.corpus}: --corpus, --index)")
        out.append(f"scored by: {self.judge}")
        return out


class PublishedTask:
    name: str = ""
    description: str = ""
    needs: Needs = Needs()
    judged: bool = False  # scored by the T9 judge step (else by `score`)
    stand_in: str | None = None  # what stands in for the paper's system, said in every report
    # Task.calls feeds the preflight (`eval run`, with or without --data); `check` refuses
    # what the preflight cannot see (the data's own needs).
    calls: frozenset[str] = frozenset()

    def __init__(self, data: PublishedData | None = None) -> None:
        self.data = data
        self.needs_index = self.needs.corpus == "required"

    def index_needed(self, settings: Settings) -> bool:
        return self.needs.corpus == "required" or (
            self.needs.corpus == "optional" and settings.corpus_dir is not None
        )

    def check(self, env: TaskEnv) -> None:
        """Refuse, in one line and before the run directory exists, what cannot run."""

    def load(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]:
        """The data file's items of `sports` (every sport when empty), `limit` per sport, with
        their videos found (or `missing` set) and `resolve` applied."""
        assert self.data is not None, "a published task is built with its data"
        counts: dict[str, int] = {}
        items: list[Instance] = []
        for inst in self.data.items:
            if sports and inst.sport not in sports:
                continue
            counts[inst.sport] = counts.get(inst.sport, 0) + 1
            if limit is None or counts[inst.sport] <= limit:
                items.append(inst)
        if not items:
            raise RunError(
                f"{self.data.path.name} has no items of {', '.join(sports)} "
                f"(its sports: {', '.join(self.data.sports)}); leave out --sport for all"
            )
        if self.needs.videos == "required":
            resolve_media(items, self.data.path, env.media)
        self.resolve(items, env)
        return items

    def resolve(self, items: list[Instance], env: TaskEnv) -> None:
        """Task-specific checks against the run's inputs (T4: is the game in the corpus)."""

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        raise NotImplementedError

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        raise NotImplementedError
