"""Run directories for the runs API and run browser tests, written through the writers the
eval runner uses (ResultStore, the judgements store, write_status, TrajectoryWriter), so they
read exactly as real runs do. Sizes the tests need (1,000 questions, a 30-turn trajectory) that
no real run here could produce in test time; the real runner is tested with its own runs
(tests/eval, tests/serving/test_runs_api.py)."""

from __future__ import annotations

import time
from pathlib import Path

import orjson

from playscout.agent.trajectory import (
    ErrorEvent,
    FinalAnswer,
    JsonlRecorder,
    ModelCall,
    Observation,
    RunStart,
    ToolCallEvent,
    TrajectoryWriter,
)
from playscout.eval.storage.records import ResultRow
from playscout.eval.storage.status import RunStatus, write_status
from playscout.eval.storage.store import judgements_store, results_store, write_json_atomic

SPORTS = ("basketball", "hockey", "soccer")
EVIL = "<img src=x onerror=\"document.title='pwned'\">"


def is_right(i: int, flip: int) -> bool:
    return (i + flip) % 3 != 0


def write_trajectory(
    path: Path, run_id: str, question: str, sport: str, turns: int, answer: str | None,
    error: str | None = None, first_query: str = "who scored",
) -> None:  # fmt: skip
    """`turns` model calls: each but the last calls a tool (search_documents, search_videos,
    video_qa in turn), the last answers, or the run fails with `error`."""
    writer = TrajectoryWriter(run_id, [JsonlRecorder(path)])
    writer.emit(RunStart, question=question, sport=sport, mode="default", policy="llm",
                model="scripted", tools=["search_documents", "search_videos", "video_qa"])  # fmt: skip
    names = ("search_documents", "search_videos", "video_qa")
    for turn in range(1, turns):
        name = names[(turn - 1) % 3]
        query = first_query if turn == 1 else f"step {turn}"
        writer.emit(ModelCall, turn=turn, messages=2 * turn, prompt_tokens=100 * turn,
                    completion_tokens=20, context_tokens=100 * turn, latency_s=0.5,
                    finish_reason="stop", content=f"Turn {turn}: I will call {name}.",
                    reasoning=f"thinking about step {turn}")  # fmt: skip
        writer.emit(ToolCallEvent, turn=turn, name=name, arguments={"query": query})
        if name == "search_documents":
            data = {"doc_ids": [f"d{turn}"], "hits": [{"id": f"d{turn}", "rank": 1, "score": 0.5,
                    "highlight": f"report line for step {turn}"}]}  # fmt: skip
        elif name == "search_videos":
            data = {"clip_ids": [f"g1_{turn}"], "hits": [{"id": f"g1_{turn}", "rank": 1,
                    "score": 0.4, "video": [10.0 * turn, 10.0 * turn + 12]}]}  # fmt: skip
        else:
            data = {"answers": [{"id": f"g1_{turn}", "answer": "a dunk", "confidence": 0.8}]}
        writer.emit(Observation, turn=turn, name=name, text=f"{name} result {turn}", tokens=40,
                    data=data, latency_s=0.1)  # fmt: skip
    if error:
        writer.emit(ErrorEvent, turn=turns, kind="model", message=error, fatal=True)
        writer.emit(FinalAnswer, answer=None, status="error", turns=turns)
    else:
        writer.emit(ModelCall, turn=turns, messages=2 * turns, prompt_tokens=100 * turns,
                    completion_tokens=10, context_tokens=100 * turns, latency_s=0.4,
                    finish_reason="stop", content=f"<answer>{answer}</answer>")  # fmt: skip
        writer.emit(FinalAnswer, answer=answer, status="answered", turns=turns)
    writer.close()


def write_run(
    runs_dir: Path, run_id: str, n: int, *, flip: int = 0, mode: str = "default",
    model: str = "scripted", turns: int = 4, state: str = "done", evil_at: int | None = None,
    first_query: str = "who scored",
) -> Path:  # fmt: skip
    """A finished t9 run of `n` questions `q0000`...: every 3rd (shifted by `flip`) wrong,
    every 17th an error, sports in turn, judged by the equivalence judge."""
    out = Path(runs_dir) / run_id
    (out / "trajectories").mkdir(parents=True, exist_ok=True)
    created = time.time()
    write_json_atomic(out / "run.json", {"task": "t9", "mode": mode, "sports": list(SPORTS),
                      "policy": "llm", "limit": None, "models": {"agent": model},
                      "created_at": time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(created))})  # fmt: skip
    results, judged = results_store(out), judgements_store(out)
    for i in range(n):
        qid = f"q{i:04d}"
        sport = SPORTS[i % 3]
        question = EVIL if i == evil_at else f"Question {i}: who made the play in {sport}?"
        failed = i % 17 == 5
        answer = None if failed else (f"gold {i}" if is_right(i, flip) else f"other {i}")
        rel = f"trajectories/{qid}.jsonl"
        error = "ModelUnavailable: connection refused at http://127.0.0.1:9/v1" if failed else None
        write_trajectory(out / rel, f"{run_id}-{i}", question, sport, turns, answer, error,
                         first_query if i % 2 else "who scored")  # fmt: skip
        tool_calls = {"search_documents": 1, "search_videos": 1 if turns > 2 else 0}
        tool_calls["video_qa"] = 1 if turns > 3 and i % 2 == 0 else 0
        results.append(ResultRow(qid=qid, sport=sport, question=question, gold=f"gold {i}",
                       trajectory=rel, status="error" if failed else "answered", answer=answer,
                       error=error, turns=turns, tool_calls={k: v for k, v in tool_calls.items() if v},
                       wall_s=1.5))  # fmt: skip
        verdict = "right" if answer == f"gold {i}" else "wrong"
        judged.append({"qid": qid, "judge": "equivalence", "hash": "x", "verdict": verdict,
                       "reason": "exact match" if verdict == "right" else "differs"})  # fmt: skip
    status = RunStatus(id=run_id, state=state, done=n, total=n, created=created)  # type: ignore[arg-type]
    write_status(out, status)
    return out


def load_json(path: Path) -> object:
    return orjson.loads(path.read_bytes())
