"""The runs directory as a catalog: every run (CLI or HTTP, running or finished) with its
status, options and accuracy, and each run's questions as table rows with their verdicts.
What the runs API and the run browser list; everything is read from the run directories, so
a restarted server lists exactly what is on disk.

A run's id is its directory's name under the runs directory (a valid id, see agent/ids.py);
nothing from a request is joined onto a path before it has matched an existing entry.
Parsed runs are cached by the size and mtime of their files, so listing 1,000-question runs
again costs a few `stat` calls.
"""

from __future__ import annotations

import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar

import orjson
from pydantic import BaseModel, Field

from playscout.agent.ids import valid_id
from playscout.config import Mode
from playscout.config.presets import preset_label
from playscout.eval.errors import RunError, UnknownQuestion, UnknownRun
from playscout.eval.results.verdicts import RunVerdicts, Verdict
from playscout.eval.running.stamp import run_stamp
from playscout.eval.storage.human import HUMAN_VERDICTS, HumanMark, human_counts, human_verdicts
from playscout.eval.storage.records import ResultRow
from playscout.eval.storage.status import STATUS_JSON, RunState, RunStatus, StatusFile, read_status
from playscout.eval.storage.store import JUDGEMENTS, RESULTS, RUN_JSON, load_results

T = TypeVar("T")
MAX_PAGE = 500


class Page(BaseModel, Generic[T]):
    """One page of a filtered list; `total` counts every match, so a client can reach all."""

    items: list[T]
    total: int
    offset: int
    limit: int


def paginate(items: Sequence[T], offset: int, limit: int) -> Page[T]:
    return Page[T](
        items=list(items[offset : offset + limit]), total=len(items), offset=offset, limit=limit
    )


# ---------------------------------------------------------------- runs


class RunInfo(RunStatus):
    """A run list row: the status plus what the run is and how well it did."""

    task: str | None = None
    mode: str | None = None
    policy: str | None = None
    preset: str | None = None
    sports: list[str] = Field(default_factory=list)
    model: str | None = Field(None, description="The agent model, or `workflow`.")
    models: dict[str, str | None] = Field(default_factory=dict)
    judge: str | None = Field(None, description="Whose verdicts `accuracy` counts.")
    questions: int = Field(0, description="Questions with a result row.")
    judged: int = 0
    right: int = 0
    accuracy: float | None = Field(None, description="% right of the judged questions.")
    statuses: dict[str, int] = Field(default_factory=dict)
    comparable: bool | None = Field(
        None, description="May `accuracy` stand next to SVI-Bench Table 15 (eval/running/stamp.py)."
    )
    not_comparable: list[str] = Field(
        default_factory=list, description="Every reason it may not; shown beside the number."
    )
    human: dict[str, int] = Field(
        default_factory=dict,
        description="People's verdicts (right, wrong, unclear, unmarked), apart from the judge's.",
    )


class QuestionRow(BaseModel):
    """A question list row."""

    qid: str
    sport: str
    question: str
    gold: str | None
    answer: str | None
    status: str
    verdict: Verdict | None = None
    judge_reason: str | None = None
    turns: int = 0
    tool_calls: dict[str, int] = Field(default_factory=dict)
    error: str | None = None
    wall_s: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    human: HumanMark | None = Field(None, description="The latest person's verdict, if any.")


class QuestionPage(Page[QuestionRow]):
    facets: dict[str, list[str]] = Field(
        default_factory=dict, description="Values present in the run, per filter."
    )


VerdictFilter = Literal["right", "wrong", "unjudged"]


class QuestionFilter(BaseModel):
    status: str | None = None
    verdict: VerdictFilter | None = None
    sport: str | None = None
    tool: str | None = Field(None, description="Questions that called this tool.")
    q: str | None = Field(None, description="Text in the id, question, answer or gold.")

    def keep(self, row: QuestionRow) -> bool:
        if self.status and row.status != self.status:
            return False
        if self.verdict and (row.verdict or "unjudged") != self.verdict:
            return False
        if self.sport and row.sport != self.sport:
            return False
        if self.tool and not row.tool_calls.get(self.tool):
            return False
        if self.q:
            needle = self.q.casefold()
            hay = (row.qid, row.question, row.answer or "", row.gold or "")
            return any(needle in h.casefold() for h in hay)
        return True


class _Loaded(BaseModel):
    info: RunInfo
    rows: list[QuestionRow]
    results: dict[str, ResultRow]


class _Cache:
    """Parsed runs keyed by directory, valid while their files' (size, mtime) are unchanged."""

    def __init__(self, size: int = 32) -> None:
        self.size = size
        self._items: OrderedDict[Path, tuple[tuple[Any, ...], _Loaded]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, run_dir: Path, load: Callable[[Path], _Loaded]) -> _Loaded:
        sig = _signature(run_dir)
        with self._lock:
            hit = self._items.get(run_dir)
            if hit is not None and hit[0] == sig:
                self._items.move_to_end(run_dir)
                return hit[1]
        loaded = load(run_dir)
        with self._lock:
            self._items[run_dir] = (sig, loaded)
            self._items.move_to_end(run_dir)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return loaded


def _signature(run_dir: Path) -> tuple[Any, ...]:
    out: list[Any] = []
    for name in (STATUS_JSON, RUN_JSON, RESULTS, JUDGEMENTS, HUMAN_VERDICTS):
        try:
            st = (run_dir / name).stat()
            out.append((st.st_size, st.st_mtime_ns))
        except OSError:
            out.append(None)
    return tuple(out)


_CACHE = _Cache()


_DIGITS = re.compile(r"(\d+)")


def natural_key(qid: str) -> tuple[str | int, ...]:
    """`q2` before `q10`: ids compare by their numbers, not their digits."""
    return tuple(int(part) if part.isdigit() else part for part in _DIGITS.split(qid))


def gold_text(row: ResultRow) -> str | None:
    """The gold answer as a reader wants it: text as is, an option index as its option."""
    gold = row.gold
    if gold is None or isinstance(gold, str):
        return gold
    options = row.meta.get("options")
    is_index = isinstance(gold, int) and not isinstance(gold, bool)
    if is_index and isinstance(options, list) and 0 <= gold < len(options):
        return f"{chr(ord('A') + gold)}: {options[gold]}"
    return orjson.dumps(gold, option=orjson.OPT_NON_STR_KEYS).decode()


def _created(status: StatusFile | None, meta: dict[str, Any], run_dir: Path) -> float:
    if status is not None:
        return status.created
    try:
        return datetime.fromisoformat(str(meta["created_at"])).timestamp()
    except (KeyError, ValueError):
        return run_dir.stat().st_mtime


def _load(run_dir: Path) -> _Loaded:
    status = read_status(run_dir)
    meta_path = run_dir / RUN_JSON
    meta: dict[str, Any] = orjson.loads(meta_path.read_bytes()) if meta_path.is_file() else {}
    request = (status.request if status else None) or {}
    results = {r.qid: r for r in load_results(run_dir)} if (run_dir / RESULTS).is_file() else {}
    verdicts = RunVerdicts.of(run_dir)
    marks = human_verdicts(run_dir)
    rows = [
        QuestionRow(
            qid=r.qid,
            sport=r.sport,
            question=r.question,
            gold=gold_text(r),
            answer=r.answer,
            status=r.status,
            verdict=verdicts.verdict(r),
            judge_reason=verdicts.reason(r.qid),
            turns=r.turns,
            tool_calls=r.tool_calls,
            error=r.error,
            wall_s=r.wall_s,
            prompt_tokens=r.prompt_tokens,
            completion_tokens=r.completion_tokens,
            human=marks.get(r.qid),
        )
        # By id, not in the order questions finished: a reader pages a run as its questions file reads.
        for r in sorted(results.values(), key=lambda r: natural_key(r.qid))
    ]
    judged = [r for r in rows if r.verdict is not None]
    right = sum(r.verdict == "right" for r in judged)
    models = {**(meta.get("models") or {}), "judge": ", ".join(verdicts.models()) or None}
    policy = meta.get("policy") or request.get("policy")
    base: dict[str, Any] = (
        status.model_dump(include=set(RunStatus.model_fields))
        if status
        else {
            "id": run_dir.name,
            "state": "unknown",
            "created": _created(None, meta, run_dir),
            "message": "no status.json (a run from an older playscout, or not started)",
        }
    )
    # The folder's name is the id everywhere (it is what run_dir() finds): a copied or renamed
    # run keeps its first id inside status.json, which would name another run, or none.
    base["id"] = run_dir.name
    # status.json is written at most once a second and not at all by a killed process; the
    # result rows are appended as each question ends, so they are the floor of `done`.
    base["done"] = max(base.get("done", 0), len(rows))
    info = RunInfo(
        **base,
        task=meta.get("task") or request.get("task"),
        mode=meta.get("mode") or request.get("mode"),
        policy=policy,
        preset=preset_label(preset)
        if (preset := meta.get("preset") or request.get("preset"))
        else None,
        sports=list(meta.get("sports") or request.get("sports") or []),
        model=models.get("agent") or ("workflow" if policy == "workflow" else None),
        models=models,
        judge=verdicts.judge,
        questions=len(rows),
        judged=len(judged),
        right=right,
        accuracy=round(100 * right / len(judged), 2) if judged else None,
        statuses=dict(Counter(r.status for r in rows)),
        human=human_counts([r.human for r in rows]),
        **_comparability(meta, verdicts.judge),
    )
    return _Loaded(info=info, rows=rows, results=results)


def _comparability(meta: dict[str, Any], judge: str | None) -> dict[str, Any]:
    if not meta:
        return {}
    stamp = run_stamp(meta, judge)
    return {"comparable": stamp.comparable, "not_comparable": list(stamp.reasons)}


def _is_run(path: Path) -> bool:
    return (
        valid_id(path.name)
        and path.is_dir()
        and ((path / STATUS_JSON).is_file() or (path / RUN_JSON).is_file())
    )


def run_dir(runs_dir: Path, run_id: str) -> Path:
    """The directory of run `run_id`, or UnknownRun. The id is checked before any path is
    built, and the directory must be a run (status.json or run.json in it)."""
    if not valid_id(run_id):
        raise UnknownRun(f"no run {run_id!r}")
    path = Path(runs_dir) / run_id
    if not _is_run(path):
        raise UnknownRun(f"no run {run_id!r}")
    return path


def _loaded(runs_dir: Path, run_id: str) -> _Loaded:
    return _CACHE.get(run_dir(runs_dir, run_id), _load)


def run_info(runs_dir: Path, run_id: str) -> RunInfo:
    return _loaded(runs_dir, run_id).info


def list_runs(
    runs_dir: Path,
    *,
    state: RunState | None = None,
    task: str | None = None,
    mode: Mode | None = None,
    offset: int = 0,
    limit: int = 50,
) -> Page[RunInfo]:
    """Newest first. A run directory that cannot be read is listed as `failed` with why,
    never skipped silently."""
    root = Path(runs_dir)
    dirs = [p for p in root.iterdir() if _is_run(p)] if root.is_dir() else []
    infos = []
    for path in dirs:
        try:
            infos.append(_CACHE.get(path, _load).info)
        except (OSError, ValueError) as e:  # orjson and validation errors are ValueErrors
            infos.append(
                RunInfo(
                    id=path.name,
                    state="failed",
                    created=path.stat().st_mtime,
                    message=f"unreadable run directory: {type(e).__name__}: {e}",
                )
            )
    keep = [
        i
        for i in infos
        if (state is None or i.state == state)
        and (task is None or i.task == task)
        and (mode is None or i.mode == mode)
    ]
    keep.sort(key=lambda i: (i.created, i.id), reverse=True)
    return paginate(keep, offset, limit)


def question_page(
    runs_dir: Path, run_id: str, where: QuestionFilter, offset: int = 0, limit: int = 100
) -> QuestionPage:
    """The run's questions in the order they finished, filtered, one page of them."""
    rows = _loaded(runs_dir, run_id).rows
    keep = [r for r in rows if where.keep(r)]
    page = paginate(keep, offset, limit)
    return QuestionPage(**page.model_dump(), facets=facets(rows))


def facets(rows: Sequence[QuestionRow]) -> dict[str, list[str]]:
    """The values each question filter can take in these rows."""
    return {
        "status": sorted({r.status for r in rows}),
        "verdict": sorted({r.verdict or "unjudged" for r in rows}),
        "sport": sorted({r.sport for r in rows}),
        "tool": sorted({t for r in rows for t in r.tool_calls}),
    }


def question_annotations(
    row: QuestionRow, judge: str | None, result: ResultRow | None = None
) -> dict[str, Any]:
    """What a question's trajectory page shows beside the events: gold, verdict and why, a
    person's verdict, and the gold documents and clips (generated questions carry them) that
    the page marks wherever a search returned them."""
    return {
        "gold_answer": row.gold,
        "verdict": row.verdict,
        "judge": judge,
        "judge_reason": row.judge_reason,
        "result_status": row.status,
        "result_error": row.error,
        "human": row.human.model_dump() if row.human else None,
        **gold_ids(result),
    }


def gold_ids(result: ResultRow | None) -> dict[str, list[str]]:
    """The gold document and clip ids a result row carries (T9 on generated questions)."""
    meta = result.meta if result is not None else {}
    return {
        key: [str(i) for i in meta.get(key) or []]
        for key in ("gold_doc_ids", "gold_clip_ids")
        if meta.get(key)
    }


def result_row(run_dir: Path, qid: str) -> ResultRow | None:
    """The result row of question `qid` of the run at `run_dir` (None: no such question)."""
    return _CACHE.get(Path(run_dir).resolve(), _load).results.get(qid)


def question_rows(runs_dir: Path, run_id: str) -> list[QuestionRow]:
    return list(_loaded(runs_dir, run_id).rows)


def run_at(path: Path) -> tuple[RunInfo, list[QuestionRow]]:
    """A run directory named by path (the CLI: `eval compare`, `eval export`)."""
    path = Path(path)
    if not (path / RUN_JSON).is_file():
        raise RunError(f"{path}: not a run directory (no {RUN_JSON})")
    loaded = _CACHE.get(path.resolve(), _load)
    return loaded.info, list(loaded.rows)


def trajectory_file(run_dir: Path, qid: str) -> Path | None:
    """The trajectory file of question `qid` of the run at `run_dir`, if it has one."""
    loaded = _CACHE.get(Path(run_dir).resolve(), _load)
    result = loaded.results.get(qid)
    if result is None:
        return None
    base = Path(run_dir).resolve()
    path = (base / result.trajectory).resolve()
    return path if path.is_relative_to(base) and path.is_file() else None


def question_dir(runs_dir: Path, run_id: str, qid: str) -> Path:
    """The run's directory when `qid` is one of its questions (a result row), else
    UnknownQuestion (or UnknownRun)."""
    if not any(r.qid == qid for r in _loaded(runs_dir, run_id).rows):
        raise UnknownQuestion(f"no question {qid!r} in run {run_id!r}")
    return run_dir(runs_dir, run_id)


def question(runs_dir: Path, run_id: str, qid: str) -> tuple[QuestionRow, Path]:
    """The question's row and its trajectory file (inside the run directory, or
    UnknownQuestion)."""
    loaded = _loaded(runs_dir, run_id)
    row = next((r for r in loaded.rows if r.qid == qid), None)
    if row is None:
        raise UnknownQuestion(f"no question {qid!r} in run {run_id!r}")
    path = trajectory_file(run_dir(runs_dir, run_id), qid)
    if path is None:
        raise UnknownQuestion(f"question {qid!r} of run {run_id!r} has no trajectory file")
    return row, path
