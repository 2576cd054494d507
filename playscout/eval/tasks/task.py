"""What a task is: one `Task` type, whatever its items come from. A task loads its items
(`Instance`s), asks each through the same agent and tools (a route: a prompt template with a
tool subset, one direct tool call, or one question to a VLM about video files) and scores the
stored rows (a metric).

Its items come from one of its two sources: questions it generates from the synthetic corpus
(`questions`), or a published data file (`data`), read by one of the task's published formats
(`Format`: the file's layout, its parser and the Task class that routes and scores its items).
A task module declares both with the task (tasks/registry.py, `declare`).

Routes return an `Outcome` (storage/records.py) that becomes the question's result row, so every
task shares the runner's resume, trajectory and report machinery, and `score` reads the rows
back typed."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playscout.clients.chat import ChatClient
from playscout.config import EvalSettings, Mode, Policy, Settings
from playscout.config.presets import Preset
from playscout.corpus import Corpus
from playscout.eval.errors import RunError
from playscout.eval.storage.records import Outcome, ResultRow
from playscout.eval.tasks.guard import BackendView
from playscout.eval.tasks.media import resolve_media
from playscout.runtime import Runtime
from playscout.search.backend_api import SearchBackend
from playscout.tools.tool import ModelSet, ToolContext


@dataclass
class Instance:
    """One item to answer. `gold` is whatever the task's metric needs; `meta` is kept in the
    record for slicing (question type, distractor type, ...). `missing` says why the item
    cannot be asked as its protocol says (absent video, unknown game): the runner records it as
    `missing_input` instead of routing it."""

    id: str
    sport: str
    prompt: str
    gold: Any
    meta: dict[str, Any] = field(default_factory=dict)
    missing: str | None = None


@dataclass
class TaskEnv:
    """What routes may use: a view of the run's one `Runtime` (its settings with the preset
    applied, index, corpus, preset, tracer) with the run's mode and policy, and the runtime's
    model clients as the run sees them (behind the response cache when there is one). Built
    once per run, shared by all instances (read-only)."""

    runtime: Runtime
    mode: Mode
    policy: Policy
    client: ChatClient | None = None  # runtime.llm, maybe behind the cache
    models: ModelSet = field(default_factory=ModelSet)  # runtime.models, maybe behind the cache
    tokenizer: Any = None
    media: Path | None = None  # where a published data file's videos are (`eval run --media`)
    judge: ChatClient | None = None  # eval.judge: rubric judges of T4/T6/STARBench (else fallbacks)

    @property
    def settings(self) -> Settings:
        return self.runtime.settings

    @property
    def eval(self) -> EvalSettings:
        return self.runtime.settings.eval

    @property
    def corpus(self) -> Corpus | None:
        return self.runtime.corpus

    @property
    def backend(self) -> SearchBackend | None:
        return self.runtime.backend

    @property
    def preset(self) -> Preset:
        return self.runtime.preset

    @property
    def deviations(self) -> list[str]:
        return self.runtime.deviations

    def ctx(self, sport: str, view: BackendView | None = None, **search: Any) -> ToolContext:
        backend = self.runtime.require_backend()
        settings = (
            self.settings.search.model_copy(update=search) if search else self.settings.search
        )
        narrowed: Any = view.wrap(backend) if view else backend  # a GuardedBackend
        return self.runtime.tool_context(
            sport, self.mode, backend=narrowed, search=settings, models=self.models
        )

    def need_corpus(self) -> Corpus:
        if self.corpus is None:
            raise RunError("this task needs a corpus: pass --corpus (or settings.corpus_dir)")
        return self.corpus


AGENT = "agent"
AGENT_CALLS = frozenset({AGENT})
"""`Task.calls` of a task whose route runs the agent (which may call any of its tools)."""


@dataclass(frozen=True)
class Needs:
    """What a run of the task on published data needs besides its data file."""

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


class Task:
    """A task: what it is (name, description, the tools its route calls, whether a judge step
    scores it), where its items come from, how each is asked (`route`) and how the rows are
    scored (`score`).

    Built without data, its items are the questions it generates from the corpus
    (`questions`); built with a published file's `data`, they are that file's items, of the
    sports asked, with their videos found (`needs` says what such a run needs; `check` refuses
    what cannot run before anything is written). A task that reads the corpus' question files
    may also say which sports have none, `empty_sports(corpus, sports)` (T9): a run that chose
    its sports itself skips those (usecases/run.py)."""

    name: str = ""  # the declaration's name when left empty (tasks/registry.py, `declare`)
    description: str = ""
    needs_index: bool = True  # its route searches the index
    judged: bool = False  # answers scored by a T9-style judge step (else by `score`)
    # The tools its route calls itself, or AGENT_CALLS: the preflight reads it (`eval run`, with
    # or without --data); `check` refuses what the preflight cannot see (the data's own needs).
    calls: frozenset[str] = frozenset()
    stand_in: str | None = None  # what stands in for the paper's system, said in every report
    needs: Needs = Needs()  # on published data

    def __init__(self, data: PublishedData | None = None) -> None:
        self.data = data
        if data is not None:
            self.needs_index = self.needs.corpus == "required"

    def index_needed(self, settings: Settings) -> bool:
        """Whether the run opens the index: generated questions when the route searches it;
        published data when its task needs the corpus, or may use it and one is configured."""
        if self.data is None:
            return self.needs_index
        return self.needs.corpus == "required" or (
            self.needs.corpus == "optional" and settings.corpus_dir is not None
        )

    def check(self, env: TaskEnv) -> None:
        """Refuse, in one line and before the run directory exists, what cannot run."""

    def load(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]:
        """The items to ask: the generated questions, or the data file's items of `sports`
        (every sport when empty), `limit` per sport, with their videos found (or `missing`
        set) and `resolve` applied."""
        if self.data is None:
            return self.questions(env, sports, limit)
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

    def questions(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]:
        """The questions generated from the corpus, at most `limit` per sport (a task declared
        without `generated=` has none: `BenchmarkTask.task` says so before it gets here)."""
        raise NotImplementedError

    def resolve(self, items: list[Instance], env: TaskEnv) -> None:
        """Published items: task-specific checks against the run's inputs (T4: is the game
        in the corpus)."""

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        raise NotImplementedError

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        raise NotImplementedError


@dataclass(frozen=True)
class Format:
    """One published format of a task, declared with it (tasks/registry.py, `declare`): how the
    data looks, where that is written down, its parser (`parse`) and its route (the Task class
    that asks and scores its items)."""

    name: str
    layout: str  # what the data looks like, one line
    source: str  # where the format is written down
    parse: Callable[[Path], list[Instance]]
    route: type[Task]
    kind: str = ".json"  # file suffix, or "folder"
    from_paper: bool = False  # no public file: written from the paper's description
    runnable: bool = True  # False: recognised so the error can say what to pass instead
    example: str = ""  # where such a file is in the release (markdown), for the docs table
    task: str = ""  # the task that declares it (set by `declare`)

    def fits(self, path: Path) -> bool:
        if self.kind == "folder":
            return path.is_dir()
        return path.is_file() and path.suffix.lower() == self.kind


@dataclass
class PublishedData:
    """A parsed data file: its items, and the format they were read in."""

    path: Path
    format: Format
    items: list[Instance]

    @property
    def sports(self) -> list[str]:
        return sorted({i.sport for i in self.items})
