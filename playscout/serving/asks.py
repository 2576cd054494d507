"""One ask = one agent run with its own ToolContext and trajectory file, over the shared
backend and clients. The run's task owns its admission slot (`AskRun`), so the slot comes back
however the HTTP response ends. A run stopped early records why in its trajectory (`cancelled:
client disconnected`, `interrupted: server shutdown`) instead of just stopping mid-file."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

from playscout.agent import AgentResult
from playscout.agent.ids import new_id
from playscout.agent.sessions import SessionStoreError, check_session_db
from playscout.agent.tracing import VIEWER_URL, viewer_url
from playscout.agent.trajectory import (
    ErrorEvent,
    Event,
    FinalAnswer,
    JsonlRecorder,
    ModelCall,
    Observation,
    RunStart,
    TrajectoryWriter,
)
from playscout.errors import PlayscoutError
from playscout.serving.errors import RequestError, RunFailed
from playscout.serving.schemas import (
    AskResponse,
    ClipEvidence,
    DocumentEvidence,
    Evidence,
    TokenUsage,
)
from playscout.serving.state import ServingState
from playscout.serving.trajectories import CANCELLED, INTERRUPTED
from playscout.storage import StorageError, storage_error_in
from playscout.usecases.ask import AskRequest, PreparedAsk, prepare_ask

log = logging.getLogger(__name__)
EVIDENCE_LIMIT = 20
CLIENT_GONE = "client disconnected"
TRAJECTORY_HEADER = "X-Playscout-Trajectory"  # the ask's one id (run, file, spans), known at once
SHUTDOWN = "server shutdown"


class AskRejected(RequestError):
    """A request this server cannot run (unknown sport, no LLM for the llm policy): 400."""


class AskCancelled(PlayscoutError):
    """The run was stopped before it answered: 499 when its client left (nobody reads it),
    503 when the server shut down."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"run cancelled: {reason}")
        self.reason = reason
        gone = reason == CLIENT_GONE
        self.status_code = 499 if gone else 503
        self.code = "client_closed_request" if gone else "server_shutting_down"


class _Tracker:
    """Remembers the run id and last sequence number, to append the interrupted marker."""

    def __init__(self) -> None:
        self.run_id: str | None = None
        self.seq = 0
        self.finished = False

    def record(self, event: Event) -> None:
        self.run_id = event.run_id
        self.seq = event.seq
        self.finished = self.finished or isinstance(event, FinalAnswer)

    def close(self) -> None:
        pass


def prepare(state: ServingState, request: AskRequest) -> PreparedAsk:
    """The question's limits, then the ask use case on this server's runtime (its defaults,
    the CLI `ask`'s checks): a refusal is a 400 with the CLI's line before the run is admitted."""
    limit = state.settings.serving.max_question_chars
    if len(request.question) > limit:
        raise AskRejected(f"question is {len(request.question)} characters; the limit is {limit}")
    prepared = prepare_ask(request, runtime=state.runtime)
    if request.session_id is not None and state.checkpointer is not None:
        check_session_db(state.settings.agent.session_db)  # 503 before the run, not mid-run
    return prepared


def _mark_stopped(path: Path, tracker: _Tracker, req: PreparedAsk, reason: str) -> None:
    """Appends why the run stopped. A run stopped before it recorded its start (cancelled
    before its task ran, or during the model probe) gets a run_start from the request first,
    so every admitted ask leaves a trajectory that says what happened to it."""
    if tracker.finished:
        return
    kind = CANCELLED if reason == CLIENT_GONE else INTERRUPTED
    writer: TrajectoryWriter | None = None
    try:
        writer = TrajectoryWriter(tracker.run_id or path.stem, [JsonlRecorder(path)])
        if tracker.run_id is None:
            writer.emit(
                RunStart, question=req.question, sport=req.sport, mode=req.mode, policy=req.policy
            )
        else:
            writer.seq = tracker.seq
        writer.emit(ErrorEvent, kind=kind, message=f"{kind}: {reason}", fatal=True)
    except StorageError as e:  # a full disk: one line in the log, not a failed callback
        log.error("ask %s %s, not recorded: %s", path.stem, kind, e)
    finally:
        if writer is not None:
            writer.close()


async def run_ask(
    state: ServingState,
    req: PreparedAsk,
    trajectory_id: str,
    on_event: Callable[[Event], None] | None = None,
    stop_reason: Callable[[], str] = lambda: SHUTDOWN,
) -> AskResponse:
    """Runs as a limiter task (see `AskRun`); `stop_reason` says why, if it is cancelled.
    A run that ended with status error raises `RunFailed` (a 5xx, never a 200)."""
    path = state.settings.agent.trajectory_dir / f"{trajectory_id}.jsonl"
    tracker = _Tracker()
    agent = req.agent(checkpointer=state.checkpointer)
    started, outcome = time.perf_counter(), "failed"
    try:
        result = await agent.run(
            req.question,
            session_id=req.session_id,
            trajectory=path,
            recorders=[tracker, state.metrics.recorder()],
            on_event=on_event,
            run_id=trajectory_id,
            span_attributes={
                VIEWER_URL: viewer_url(state.settings.telemetry.public_url, "asks", trajectory_id)
            },
        )
        outcome = result.status
    except asyncio.CancelledError:
        outcome = "cancelled"
        _mark_stopped(path, tracker, req, stop_reason())
        raise
    finally:
        elapsed = time.perf_counter() - started
        state.metrics.ask_seconds.labels(req.policy, outcome).observe(elapsed)
    if result.status == "error":
        log.warning("ask %s failed: %s", trajectory_id, result.error)
        cause = result.failure
        if req.session_id and isinstance(cause, sqlite3.Error):  # the sessions' database
            db = state.settings.agent.session_db
            cause = storage_error_in(cause, db) or SessionStoreError.of(db, cause)
        raise RunFailed(
            f"the agent run failed: {result.error} (trajectory {trajectory_id})",
            trajectory_id,
            cause,
        )
    return to_response(state, req, trajectory_id, result)


Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]


async def wait_for_disconnect(receive: Receive) -> None:
    """Returns when the ASGI server reports the client gone (the body was read already)."""
    while (await receive())["type"] != "http.disconnect":
        pass


class AskRun:
    """An admitted ask. Its task holds a limiter slot until it ends; `cancel` stops it (no
    more model or tool calls) and records the reason in its trajectory. Raises `Overloaded`
    when no slot is free."""

    def __init__(
        self,
        state: ServingState,
        req: PreparedAsk,
        on_event: Callable[[Event], None] | None = None,
    ) -> None:
        self.reason = SHUTDOWN  # what the limiter's drain at shutdown means
        # the ask's one id: events' run_id, span attributes, file name, /v1/trajectories/{id},
        # the viewer page; known before the run starts (the stream's header carries it)
        self.trajectory_id = new_id(random_hex=12)
        self.started = False
        self.path = state.settings.agent.trajectory_dir / f"{self.trajectory_id}.jsonl"
        self.req = req

        async def run() -> AskResponse:
            self.started = True
            return await run_ask(
                state, req, self.trajectory_id, on_event, stop_reason=lambda: self.reason
            )

        self.task = state.limiter.start(run)
        self.task.add_done_callback(self._record_if_never_started)

    def _record_if_never_started(self, task: asyncio.Task[AskResponse]) -> None:
        """A task cancelled before its first step never ran `run_ask`, which would have
        recorded the cancellation (a client gone before the server got to the run)."""
        if task.cancelled() and not self.started:
            _mark_stopped(self.path, _Tracker(), self.req, self.reason)

    def cancel(self, reason: str) -> None:
        if not self.task.done():
            self.reason = reason
            self.task.cancel()

    async def result(self) -> AskResponse:
        try:
            return await asyncio.shield(self.task)
        except asyncio.CancelledError:
            if self.task.cancelled():
                raise AskCancelled(self.reason) from None
            raise

    async def result_unless_disconnected(self, receive: Receive) -> AskResponse:
        """The answer, or `AskCancelled` as soon as the client goes away (then the run is
        cancelled, not left to spend model calls nobody will read)."""
        watcher = asyncio.ensure_future(wait_for_disconnect(receive))
        try:
            await asyncio.wait({self.task, watcher}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            watcher.cancel()
        if not self.task.done():
            self.cancel(CLIENT_GONE)
        return await self.result()


def _confidence(result: AgentResult) -> float | None:
    for event in reversed(result.events):
        if isinstance(event, Observation):
            for item in event.data.get("answers", []):
                if item.get("answer") == result.answer:
                    with contextlib.suppress(TypeError, ValueError):
                        return float(item.get("confidence"))
    return None


def evidence(state: ServingState, sport: str, ids: dict[str, list[str]]) -> Evidence:
    doc_ids = list(dict.fromkeys(ids.get("doc_ids", [])))[:EVIDENCE_LIMIT]
    clip_ids = list(dict.fromkeys(ids.get("clip_ids", [])))[:EVIDENCE_LIMIT]
    docs = state.backend.get_documents(sport, doc_ids) if doc_ids else []
    clips = state.backend.get_clips(sport, clip_ids) if clip_ids else []
    out = Evidence(qa=list(ids.get("qa", [])))
    for doc_id, d in zip(doc_ids, docs, strict=True):
        out.documents.append(
            DocumentEvidence(doc_id=doc_id, found=False)
            if d is None
            else DocumentEvidence(
                doc_id=doc_id, doc_type=d.doc_type, game_id=d.game_id, date=d.date
            )
        )
    for clip_id, c in zip(clip_ids, clips, strict=True):
        if c is None:
            out.clips.append(ClipEvidence(clip_id=clip_id, found=False))
            continue
        remaining = c.clock_remaining_start >= 0
        out.clips.append(
            ClipEvidence(
                clip_id=clip_id,
                game_id=c.game_id,
                period=c.period,
                video_start=c.video_start,
                video_end=c.video_end,
                clock_remaining_start=c.clock_remaining_start if remaining else None,
                clock_remaining_end=c.clock_remaining_end if remaining else None,
            )
        )
    return out


def to_response(
    state: ServingState, req: PreparedAsk, trajectory_id: str, result: AgentResult
) -> AskResponse:
    calls = [e for e in result.events if isinstance(e, ModelCall)]
    return AskResponse(
        trajectory_id=trajectory_id,
        run_id=result.run_id,
        question=result.question,
        sport=req.sport,
        mode=req.mode,
        policy=result.policy,
        status=result.status,
        answer=result.answer,
        confidence=_confidence(result),
        evidence=evidence(state, req.sport, result.evidence),
        turns=result.turns,
        wall_s=round(result.wall_s, 4),
        usage=TokenUsage(
            prompt_tokens=sum(e.prompt_tokens for e in calls),
            completion_tokens=sum(e.completion_tokens for e in calls),
        ),
        note=result.note,
    )


def event_json(event: Event) -> dict[str, Any]:
    return event.model_dump(mode="json")
