"""Trajectories: one typed event stream per run, modelled on inspect_ai's sample events.

Every step (model call, tool call, observation, error, final answer) is a pydantic event with a
versioned schema, written as one JSONL line the moment it happens and handed to live listeners,
so the CLI, the API (streaming) and the viewer all read the same thing. Clip and document ids
are stored, never frames.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Annotated, Any, Literal, NoReturn, Protocol, runtime_checkable

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from playscout.clients.calls import CallRecord
from playscout.errors import PlayscoutError
from playscout.storage import ProcessOwner, user_os_error

SCHEMA_VERSION = 2
"""2: a final_answer in a file may hold its answer as a span of the last model_call's content
(`answer_span`); an older reader would see no answer, so it refuses the file instead."""
Status = Literal["answered", "no_answer", "error", "budget_exhausted"]
ForcedFinal = Literal["max_calls", "context"]


class _Event(BaseModel):
    schema_version: int = SCHEMA_VERSION
    run_id: str
    seq: int = 0
    ts: float = Field(default_factory=time.time)


class RunStart(_Event):
    type: Literal["run_start"] = "run_start"
    question: str
    sport: str
    mode: str
    policy: str
    model: str | None = None
    session_id: str | None = None
    tool_protocol: str | None = None
    tools: list[str] = Field(default_factory=list)
    settings: dict[str, Any] = Field(default_factory=dict)
    versions: dict[str, str] = Field(default_factory=dict)
    preset: str | None = None  # the protocol preset (playscout/presets/<name>.yaml)
    preset_version: int | None = None
    preset_deviations: list[str] = Field(default_factory=list)  # explicit settings over it
    # the process running it: a reader marks a run without a final event whose owner is gone
    # (or never recorded) `interrupted`, never `running` forever
    owner: ProcessOwner | None = None


class ModelCall(_Event):
    type: Literal["model_call"] = "model_call"
    turn: int
    messages: int
    prompt_tokens: int
    completion_tokens: int
    context_tokens: int  # our own count of what was sent
    latency_s: float
    finish_reason: str | None = None
    cut_from_bytes: int | None = None  # over the reply byte cap: cut, and how big it was
    content: str
    reasoning: str | None = None
    forced_final: ForcedFinal | None = None
    tools_offered: bool = True


class ToolCallEvent(_Event):
    type: Literal["tool_call"] = "tool_call"
    turn: int
    name: str
    arguments: dict[str, Any] | str
    call_id: str | None = None
    ignored_calls: int = 0


class Observation(_Event):
    type: Literal["observation"] = "observation"
    turn: int
    name: str
    text: str
    tokens: int
    cut_from_tokens: int | None = None
    data: dict[str, Any] = Field(default_factory=dict)  # ids only (doc_ids, clip_ids, answers)
    latency_s: float
    error: str | None = None
    model_calls: list[CallRecord] = Field(default_factory=list)  # a QA tool's model calls


class ErrorEvent(_Event):
    type: Literal["error"] = "error"
    turn: int | None = None
    kind: str  # model | protocol | tool | context | internal
    message: str
    fatal: bool = False
    cause: str | None = None  # the exception's class (ModelTimeout, ...) when one ended the run
    latency_s: float | None = None  # how long the failed call took, when it was a call


class ContextEvent(_Event):
    type: Literal["context"] = "context"
    turn: int
    dropped_turns: int
    context_tokens: int
    budget_tokens: int


class FinalAnswer(_Event):
    type: Literal["final_answer"] = "final_answer"
    answer: str | None
    # In a file only: the answer is the last model_call's content[start:end], written there
    # once, not twice (JsonlRecorder); read_trajectory puts it back in `answer`.
    answer_span: tuple[int, int] | None = None
    raw: str | None = None
    status: Status
    forced_final: ForcedFinal | None = None
    turns: int = 0
    evidence: dict[str, list[str]] = Field(default_factory=dict)
    wall_s: float = 0.0


Event = Annotated[
    RunStart | ModelCall | ToolCallEvent | Observation | ErrorEvent | ContextEvent | FinalAnswer,
    Field(discriminator="type"),
]
EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)


@runtime_checkable
class Recorder(Protocol):
    """Where events go. `record` is called in order, synchronously, for every event."""

    def record(self, event: Event) -> None: ...

    def close(self) -> None: ...


class MemoryRecorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def record(self, event: Event) -> None:
        self.events.append(event)

    def close(self) -> None:
        pass


class JsonlRecorder:
    """One file per run, one line per event, written with one `os.write` per line (no buffer
    left to flush later) so a crash loses nothing and a reader can follow the file while the
    agent works. A write the disk refuses (full, read-only) is cut back to the last whole line
    and raised as a one-line StorageError naming the file: the run stops, its file stays
    readable, and the caller says why (HTTP 507, a result that is re-run on resume)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._last_content = ""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd: int | None = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError as e:
            _raise_refused(e, self.path)

    def record(self, event: Event) -> None:
        if self._fd is None:
            raise ValueError(f"recorder for {self.path} is closed")
        line = (self._once(event).model_dump_json() + "\n").encode("utf-8")
        size = os.fstat(self._fd).st_size
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(self._fd, view) :]
        except OSError as e:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, size)  # no torn line: the file ends at the last event
            _raise_refused(e, self.path)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _once(self, event: Event) -> Event:
        """The event as written: an answer that is part of the last model call's content is
        written as its span there (a 1 MB answer costs 1 MB on disk, not 2)."""
        if isinstance(event, ModelCall):
            self._last_content = event.content
        elif isinstance(event, FinalAnswer) and event.answer and len(event.answer) >= SPAN_MIN:
            start = self._last_content.find(event.answer)
            if start != -1:
                span = (start, start + len(event.answer))
                return event.model_copy(update={"answer": None, "answer_span": span})
        return event


SPAN_MIN = 256
"""Answers shorter than this are written as text (a span would save nothing worth reading)."""


def _raise_refused(error: OSError, path: Path) -> NoReturn:
    """A write the user can fix as a StorageError naming `path`; any other error as it is."""
    disk = user_os_error(error, path)
    if disk is None:
        raise error
    raise disk from error


class CallbackRecorder:
    """Live listeners (the API's stream, a progress printer)."""

    def __init__(self, callback: Callable[[Event], None]) -> None:
        self.callback = callback

    def record(self, event: Event) -> None:
        self.callback(event)

    def close(self) -> None:
        pass


class TrajectoryWriter:
    """Numbers events and fans them out to every recorder of one run."""

    def __init__(self, run_id: str, recorders: Iterable[Recorder]) -> None:
        self.run_id = run_id
        self.recorders = list(recorders)
        self.seq = 0

    def emit(self, event_type: type[_Event], **fields: Any) -> Event:
        self.seq += 1
        event: Any = event_type(run_id=self.run_id, seq=self.seq, **fields)
        for recorder in self.recorders:
            recorder.record(event)
        return event

    def close(self) -> None:
        for recorder in self.recorders:
            recorder.close()


class TrajectoryError(PlayscoutError, ValueError):
    """A trajectory file that cannot be read (missing, not JSONL, newer schema)."""


def read_trajectory(path: Path) -> list[Event]:
    path = Path(path)
    if not path.is_file():
        raise TrajectoryError(f"{path}: no such trajectory file")
    events: list[Event] = []
    last_content = ""
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            event = EVENT_ADAPTER.validate_json(line)
        except ValidationError as e:
            why = e.errors()[0]["msg"] if e.errors() else "invalid"
            raise TrajectoryError(f"{path}:{n}: not a trajectory event ({why})") from None
        if event.schema_version > SCHEMA_VERSION:
            raise TrajectoryError(
                f"{path}:{n}: schema version {event.schema_version} is newer than this "
                f"playscout ({SCHEMA_VERSION}); upgrade playscout"
            )
        if isinstance(event, ModelCall):
            last_content = event.content
        elif isinstance(event, FinalAnswer) and event.answer_span is not None:
            start, end = event.answer_span
            event.answer, event.answer_span = last_content[start:end], None
        events.append(event)
    return events


class TrajectorySummary(BaseModel):
    run_ids: list[str]
    question: str | None
    policy: str | None
    model: str | None
    turns: int
    tool_calls: dict[str, int]
    errors: int
    prompt_tokens: int
    completion_tokens: int
    model_latency_s: float
    tool_latency_s: float
    wall_s: float
    answer: str | None
    status: str | None
    forced_final: str | None
    error: str | None = None  # why the last run did not answer: its last fatal error, else last


def summarise(events: list[Event]) -> TrajectorySummary:
    """Counts for a table row or a one-screen summary. A file may hold several runs (a
    session's follow-up questions); the summary covers all of them, the answer is the last."""
    starts = [e for e in events if isinstance(e, RunStart)]
    calls = [e for e in events if isinstance(e, ModelCall)]
    finals = [e for e in events if isinstance(e, FinalAnswer)]
    obs = [e for e in events if isinstance(e, Observation)]
    tools = Counter(e.name for e in events if isinstance(e, ToolCallEvent))
    last = finals[-1] if finals else None
    last_start = max((i for i, e in enumerate(events) if isinstance(e, RunStart)), default=0)
    errors = [e for e in events[last_start:] if isinstance(e, ErrorEvent)]
    fatal = [e for e in errors if e.fatal]
    if not fatal and last is not None and last.status == "answered":
        errors = []  # recovered on the way (a malformed call, a failed tool): not why it ended
    wall = (events[-1].ts - events[0].ts) if events else 0.0
    return TrajectorySummary(
        run_ids=list(dict.fromkeys(e.run_id for e in events)),
        question=starts[-1].question if starts else None,
        policy=starts[-1].policy if starts else None,
        model=starts[-1].model if starts else None,
        turns=len(calls) or len(obs),
        tool_calls=dict(tools),
        errors=sum(isinstance(e, ErrorEvent) for e in events),
        prompt_tokens=sum(e.prompt_tokens for e in calls),
        completion_tokens=sum(e.completion_tokens for e in calls),
        model_latency_s=round(sum(e.latency_s for e in calls), 4),
        tool_latency_s=round(sum(e.latency_s for e in obs), 4),
        wall_s=round(sum(f.wall_s for f in finals) if finals else wall, 4),
        answer=last.answer if last else None,
        status=last.status if last else None,
        forced_final=last.forced_final if last else None,
        error=(fatal or errors)[-1].message if errors else None,
    )


def failure_reason(events: list[Event]) -> str | None:
    """Why the last run in `events` did not answer, in its own words: its last fatal error,
    else its last error; None when it recorded none."""
    last_start = max((i for i, e in enumerate(events) if isinstance(e, RunStart)), default=0)
    errors = [e for e in events[last_start:] if isinstance(e, ErrorEvent)]
    fatal = [e for e in errors if e.fatal]
    return (fatal or errors)[-1].message if errors else None
