"""Batch runs over HTTP. Reading (list, status, questions, a question's trajectory, report,
compare) comes from the run directories (eval/results/catalog.py), so it works for CLI runs too and
after a restart; starting and cancelling need the server's RunService (501 without one)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Depends, HTTPException, Path, Query
from pydantic import BaseModel, ConfigDict, Field

from playscout.agent.trajectory import read_trajectory
from playscout.config import Mode
from playscout.eval.results import catalog
from playscout.eval.results.catalog import MAX_PAGE, Page, QuestionFilter, QuestionPage, RunInfo
from playscout.eval.results.compare import Change, Comparison, comparison, first_divergent_turn
from playscout.eval.storage.human import (
    MAX_BY,
    MAX_NOTE,
    HumanRecord,
    HumanVerdictValue,
    human_verdicts,
    record_human_verdict,
)
from playscout.eval.storage.status import RunState, RunStatus
from playscout.serving.media import ClipMedia, with_media
from playscout.serving.query import reject_unknown_query
from playscout.serving.routes import get_state
from playscout.serving.run_service import NOT_AVAILABLE, RunService
from playscout.serving.schemas import ErrorBody, TrajectoryDetail
from playscout.serving.state import ServingState
from playscout.serving.trajectories import trajectory_detail
from playscout.usecases.run import RunRequest

router = APIRouter(prefix="/v1/runs", tags=["runs"], dependencies=[Depends(reject_unknown_query)])
State = Annotated[ServingState, Depends(get_state)]
ERRORS: dict[int | str, dict[str, Any]] = {
    c: {"model": ErrorBody} for c in (400, 401, 404, 409, 422, 501)
}
RunId = Annotated[str, Path(max_length=200, description="The run directory's name.")]
Qid = Annotated[str, Path(max_length=300)]
Text = Annotated[str | None, Query(max_length=200)]
Offset = Annotated[int, Query(ge=0)]
Limit = Annotated[int, Query(ge=1, le=MAX_PAGE)]


def _service(state: ServingState) -> RunService:
    if state.run_service is None:
        raise HTTPException(501, NOT_AVAILABLE)
    return state.run_service


@router.get("", response_model=Page[RunInfo], responses=ERRORS)
def index(
    state: State,
    status: Annotated[RunState | None, Query(description="Only runs in this state.")] = None,
    task: Text = None,
    mode: Mode | None = None,
    offset: Offset = 0,
    limit: Limit = 50,
) -> Page[RunInfo]:
    """Every run under the runs directory, newest first, with its status and accuracy."""
    return catalog.list_runs(
        state.runs_dir, state=status, task=task, mode=mode, offset=offset, limit=limit
    )


@router.post("", response_model=RunStatus, status_code=202, responses=ERRORS)
def submit(req: RunRequest, state: State) -> RunStatus:
    """Start a batch run; poll it with GET /v1/runs/{id}. What the body leaves out, the
    server's defaults choose, as for asks; a run that cannot start is a 400 naming every
    reason."""
    return _service(state).submit(req)


@router.get("/{run_id}", response_model=RunInfo, responses=ERRORS)
def get(state: State, run_id: RunId) -> RunInfo:
    """A run's status (`interrupted` when the process running it died), options, accuracy."""
    return catalog.run_info(state.runs_dir, run_id)


@router.post("/{run_id}/cancel", response_model=RunStatus, status_code=202, responses=ERRORS)
def cancel(state: State, run_id: RunId) -> RunStatus:
    """Stop a run this server runs: no more model calls; questions in flight get no result
    and run again when the run is resumed. 409 when it has ended or another process runs it."""
    return _service(state).cancel(run_id)


class JudgeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    judge: Literal["llm", "equivalence"] | None = Field(
        None, description="Default: llm when the server has a judge model, else equivalence."
    )


@router.post("/{run_id}/judge", responses=ERRORS)
async def judge(
    state: State, run_id: RunId, req: Annotated[JudgeRequest | None, Body()] = None
) -> dict[str, int | str]:
    """Judge the run's answers (only new or changed ones; re-runnable) with its preset's judge
    prompt and the LLM judge it was made with (else the server's); returns the counts."""
    from playscout.config import EvalSettings, deep_merge
    from playscout.config.presets import load_preset
    from playscout.eval.running.judge import (
        judge_run_async,
        make_judge,
        run_judge_settings,
        run_preset,
    )

    path = catalog.run_dir(state.runs_dir, run_id)
    # No response cache here: judge_run skips what was judged already, and a server must not
    # keep a database handle per request.
    carried = run_judge_settings(path).get("eval", {})
    ev = EvalSettings.model_validate(deep_merge(state.settings.eval.model_dump(), carried))
    ev = ev.model_copy(update={"cache_db": None})
    kind = (req.judge if req else None) or ("llm" if ev.judge.configured else "equivalence")
    prompt = load_preset(run_preset(path)).judge_prompt
    stats = await judge_run_async(
        path,
        make_judge(kind, ev, prompt),
        ev.judge_concurrency,
        state.runtime.tracer,
        state.settings.telemetry,
    )
    state.metrics.judged(path.name, kind, stats)
    return {"judge": kind, **stats}


class ReportBody(BaseModel):
    summary: dict[str, Any]
    markdown: str


@router.get("/{run_id}/report", response_model=ReportBody, responses=ERRORS)
def report(state: State, run_id: RunId, judge: Text = None) -> ReportBody:
    """What `playscout eval report` writes, computed from the run directory (nothing is
    written)."""
    from playscout.eval.results.report import markdown, summarise_run

    summary = summarise_run(catalog.run_dir(state.runs_dir, run_id), judge)
    return ReportBody(summary=summary, markdown=markdown([summary]))


@router.get("/{run_id}/questions", response_model=QuestionPage, responses=ERRORS)
def questions(
    state: State,
    run_id: RunId,
    status: Text = None,
    verdict: Literal["right", "wrong", "unjudged"] | None = None,
    sport: Text = None,
    tool: Text = None,
    q: Text = None,
    offset: Offset = 0,
    limit: Limit = 100,
) -> QuestionPage:
    """The run's questions with gold, answer, verdict, status, turns, tools and error."""
    where = QuestionFilter(status=status, verdict=verdict, sport=sport, tool=tool, q=q)
    return catalog.question_page(state.runs_dir, run_id, where, offset, limit)


def _question_detail(state: ServingState, run_id: str, qid: str) -> TrajectoryDetail:
    row, path = catalog.question(state.runs_dir, run_id, qid)
    judge = catalog.run_info(state.runs_dir, run_id).judge
    result = catalog.result_row(catalog.run_dir(state.runs_dir, run_id), qid)
    detail = trajectory_detail(path, qid, catalog.question_annotations(row, judge, result))
    return with_media(detail, ClipMedia(state.runtime.corpus))


@router.get("/{run_id}/questions/{qid}", response_model=TrajectoryDetail, responses=ERRORS)
def question(state: State, run_id: RunId, qid: Qid) -> TrajectoryDetail:
    """One question's trajectory, with its gold answer and verdict."""
    return _question_detail(state, run_id, qid)


class HumanVerdictRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    verdict: HumanVerdictValue
    note: str = Field("", max_length=MAX_NOTE, description="Why; shown as text, never HTML.")
    by: str = Field(min_length=1, max_length=MAX_BY, description="Who marks it.")


@router.post(
    "/{run_id}/questions/{qid}/human",
    response_model=HumanRecord,
    status_code=201,
    responses=ERRORS,
)
def mark(state: State, run_id: RunId, qid: Qid, req: HumanVerdictRequest) -> HumanRecord:
    """A person's verdict on the answer (right, wrong or unclear, with a note), stored apart
    from the judge's; the latest per question counts. 404 for a question the run lacks."""
    path = catalog.question_dir(state.runs_dir, run_id, qid)
    return record_human_verdict(path, qid, req.verdict, req.note, req.by)


@router.get("/{run_id}/human", response_model=list[HumanRecord], responses=ERRORS)
def marks(state: State, run_id: RunId) -> list[HumanRecord]:
    """Every question's latest human verdict, in question order."""
    rows = catalog.question_rows(state.runs_dir, run_id)
    found = human_verdicts(catalog.run_dir(state.runs_dir, run_id))
    return [found[r.qid] for r in rows if r.qid in found]


@router.get("/{run_id}/compare/{other_id}", response_model=Comparison, responses=ERRORS)
def compare(
    state: State,
    run_id: RunId,
    other_id: RunId,
    change: Change | None = None,
    offset: Offset = 0,
    limit: Limit = 100,
) -> Comparison:
    """Per question in both runs: A's and B's verdicts and what changed (`fixed`: wrong in A,
    right in B; `broken`: the reverse)."""
    rows_a = catalog.question_rows(state.runs_dir, run_id)
    rows_b = catalog.question_rows(state.runs_dir, other_id)
    return comparison(run_id, other_id, rows_a, rows_b, change, offset, limit)


class PairDetail(BaseModel):
    a: TrajectoryDetail
    b: TrajectoryDetail
    divergent_turn: int | None = Field(
        description="First turn where the two called another tool, other arguments, or "
        "answered differently; null when they acted the same."
    )


@router.get(
    "/{run_id}/compare/{other_id}/questions/{qid}", response_model=PairDetail, responses=ERRORS
)
def compare_question(state: State, run_id: RunId, other_id: RunId, qid: Qid) -> PairDetail:
    """The same question in two runs, side by side."""
    _, path_a = catalog.question(state.runs_dir, run_id, qid)
    _, path_b = catalog.question(state.runs_dir, other_id, qid)
    turn = first_divergent_turn(read_trajectory(path_a), read_trajectory(path_b))
    return PairDetail(
        a=_question_detail(state, run_id, qid),
        b=_question_detail(state, other_id, qid),
        divergent_turn=turn,
    )
