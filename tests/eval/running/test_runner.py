"""The T9 runner end to end on the synthetic index: run, judge, report; crash safety under
kill -9; retry of failed questions; the response cache."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from playscout.agent.policies.route import split_framed
from playscout.clients.chat import ChatMessage, ChatParams, ChatResponse
from playscout.config import EvalSettings, Settings
from playscout.eval import RunSpec, run_eval
from playscout.eval.judging import EquivalenceJudge
from playscout.eval.results.report import write_report
from playscout.eval.running.cache import CachingChatClient, ResponseCache
from playscout.eval.running.judge import judge_run
from playscout.eval.storage.records import ResultRow
from playscout.eval.storage.status import read_status
from playscout.eval.storage.store import load_results
from playscout.eval.tasks.t9 import T9Task
from tests.doubles import ScriptedChatModel

SPORTS = ("basketball",)  # the shared synthetic index's sport


def _spec(run: Path, concurrency: int = 2, mode: str = "oracle", **kw: object) -> RunSpec:
    return RunSpec.model_validate(
        {"task": "t9", "mode": mode, "policy": "workflow", "concurrency": concurrency,
         "sports": SPORTS, "out_dir": run, **kw}
    )  # fmt: skip


def _with(settings: Settings, eval_settings: EvalSettings) -> Settings:
    return settings.model_copy(update={"eval": eval_settings})


def _lines(run: Path) -> list[dict]:
    return [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines() if x.strip()]


def test_t9_oracle_run_judge_report(tmp_path, settings, eval_settings, synth_backend) -> None:
    run = tmp_path / "run"
    s = run_eval(_spec(run), _with(settings, eval_settings), backend=synth_backend)
    assert s.ran == 3 and s.total == 3
    meta = json.loads((run / "run.json").read_text())
    assert meta["mode"] == "oracle" and meta["frame_policy"]["frames_per_clip"] == 16
    assert "pydantic" in meta["versions"]
    rows = load_results(run)
    assert {r.status for r in rows} <= {"answered", "no_answer"}
    assert all((run / r.trajectory).is_file() for r in rows)
    # the workflow baseline searches and reads each of a T9 question's facts
    facts = {r.qid: len(split_framed(r.question)[0]) for r in rows}
    assert all(r.tool_calls.get("search_documents") == facts[r.qid] >= 2 for r in rows)
    stats = judge_run(run, EquivalenceJudge())
    assert stats["judged_now"] == 3
    again = judge_run(run, EquivalenceJudge())
    assert again["judged_now"] == 0 and again["cached"] == 3
    res = write_report([run])
    md = (run / "report.md").read_text()
    assert "| basketball |" in md and "(Table 39)" in md and "search_documents" in md
    rep = json.loads((run / "report.json").read_text())
    assert rep["accuracy"]["overall"]["n"] == 3
    per_question = sum(facts.values()) / len(facts)
    assert rep["tool_calls_per_question"]["search_documents"] == pytest.approx(per_question)
    for f in (
        "accuracy_per_sport.png",
        "tool_calls.png",
        "turns_by_outcome.png",
        "timeline_oracle_workflow.png",
    ):
        assert f in res["files"] and (run / f).stat().st_size > 1000


def test_resume_refuses_other_mode(tmp_path, settings, eval_settings, synth_backend) -> None:
    run = tmp_path / "run"
    settings = _with(settings, eval_settings)
    run_eval(_spec(run, 1, limit=1), settings, backend=synth_backend)
    with pytest.raises(ValueError, match="mode"):
        run_eval(_spec(run, 1, "default", limit=1), settings, backend=synth_backend)


_SLOW = """
import asyncio, sys
from pathlib import Path
from playscout.config import Settings
from playscout.eval import RunSpec, run_eval
from playscout.config import EvalSettings
from playscout.eval.tasks.t9 import T9Task

orig = T9Task.route
async def slow(self, inst, env, traj):
    out = await orig(self, inst, env, traj)
    await asyncio.sleep(1.5)
    return out
T9Task.route = slow
s = Settings(corpus_dir=Path(sys.argv[1]), index=sys.argv[2], eval=EvalSettings(cache_db=None))
run_eval(RunSpec(task="t9", mode="oracle", policy="workflow", concurrency=1,
                 sports=("basketball",), out_dir=Path(sys.argv[3])), s)
"""


@pytest.mark.slow
def test_kill_9_then_resume_exactly_once(
    tmp_path, synth_index, settings, eval_settings, synth_backend
) -> None:
    run = tmp_path / "run"
    script = tmp_path / "slow.py"
    script.write_text(_SLOW)
    proc = subprocess.Popen(
        [
            sys.executable,
            str(script),
            str(synth_index.corpus_dir),
            str(synth_index.index_dir),
            str(run),
        ]
    )
    deadline = time.time() + 120
    results = run / "results.jsonl"
    while time.time() < deadline and not (
        results.is_file() and results.read_text().count("\n") >= 1
    ):
        time.sleep(0.1)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = len(_lines(run))
    assert 1 <= done_before < 3, "the kill should land mid-run"
    killed = read_status(run)  # the runner said running; its process is gone
    assert killed is not None and killed.state == "interrupted"
    assert f"pid {proc.pid}" in (killed.message or "") and killed.total == 3
    s = run_eval(_spec(run), _with(settings, eval_settings), backend=synth_backend)
    assert s.skipped == done_before and s.ran == 3 - done_before
    resumed = read_status(run)
    assert resumed is not None and resumed.state == "done" and resumed.done == 3
    assert resumed.created == killed.created  # still the run that was started first
    counts = Counter(r["qid"] for r in _lines(run))
    assert len(counts) == 3 and set(counts.values()) == {1}
    trajs = sorted((run / "trajectories").glob("*.jsonl"))
    assert len(trajs) == 3
    for t in trajs:
        starts = [ln for ln in t.read_text().splitlines() if '"run_start"' in ln]
        assert len(starts) == 1, f"{t.name} holds a killed attempt too"


def test_retry_failed_reruns_only_errors(
    tmp_path, settings, eval_settings, synth_backend, monkeypatch
) -> None:
    run = tmp_path / "run"
    orig = T9Task.route
    first = {}

    async def flaky(self, inst, env, traj):  # type: ignore[no-untyped-def]
        if inst.id.endswith("1") and not first.get("done"):
            raise RuntimeError("model server down")
        return await orig(self, inst, env, traj)

    monkeypatch.setattr(T9Task, "route", flaky)
    settings = _with(settings, eval_settings)
    s = run_eval(_spec(run, 3), settings, backend=synth_backend)
    assert s.statuses.get("error") == 1
    err = next(r for r in load_results(run) if r.status == "error")
    assert err.answer is None and err.error and "model server down" in err.error
    first["done"] = True
    s2 = run_eval(_spec(run, 3), settings, backend=synth_backend)
    assert s2.ran == 0
    s3 = run_eval(_spec(run, 3, retry_failed=True), settings, backend=synth_backend)
    assert s3.ran == 1
    latest = {r.qid: r for r in load_results(run)}
    assert latest[err.qid].status != "error" and latest[err.qid].attempt == 2


def _counting() -> ScriptedChatModel:
    """Reply n+1 to call n, with a latency a cache hit must reset."""
    return ScriptedChatModel(
        [lambda m, n: ChatResponse(content=f"reply {n + 1}", latency_s=0.2)], model="m"
    )


def test_response_cache(tmp_path: Path) -> None:
    inner = _counting()
    client = CachingChatClient(inner, ResponseCache(tmp_path / "c.sqlite"))
    msgs = [ChatMessage(role="user", content="hi")]

    async def go() -> list[ChatResponse]:
        return [
            await client.chat(msgs, None, ChatParams()),
            await client.chat(msgs, None, ChatParams()),
            await client.chat(msgs, None, ChatParams(max_tokens=5)),
            await client.chat(msgs, None, ChatParams(temperature=0.7)),
            await client.chat(msgs, None, ChatParams(temperature=0.7)),
        ]

    r = asyncio.run(go())
    assert r[1].content == r[0].content == "reply 1" and r[1].latency_s == 0.0
    assert len(inner.requests) == 4  # one hit; new params miss; sampled calls never cached
    # shared across runs: a fresh cache object on the same file hits
    other = CachingChatClient(_counting(), ResponseCache(tmp_path / "c.sqlite"))
    assert asyncio.run(other.chat(msgs, None, ChatParams())).content == "reply 1"


def test_torn_line_is_skipped(tmp_path: Path) -> None:
    from playscout.eval.storage.store import results_store

    def row(qid: str) -> ResultRow:
        return ResultRow(qid=qid, sport="basketball", question="q", gold="g",
                         trajectory=f"trajectories/{qid}.jsonl", status="answered")  # fmt: skip

    store = results_store(tmp_path)
    store.append(row("a"))
    with (tmp_path / "results.jsonl").open("ab") as fh:
        fh.write(b'{"qid": "b", "sta')  # killed mid-write
    store.append(row("c"))
    assert [r.qid for r in load_results(tmp_path)] == ["a", "c"]


def test_run_service(tmp_path, settings, synth_backend) -> None:
    from playscout.config import EvalSettings
    from playscout.eval.results.catalog import run_info
    from playscout.serving.eval_service import EvalRunService
    from playscout.serving.run_service import RunService
    from playscout.usecases import RunRequest

    svc = EvalRunService(settings, EvalSettings(runs_dir=tmp_path, cache_db=None), synth_backend)
    assert isinstance(svc, RunService)
    st = svc.submit(
        RunRequest(task="t9", sport="basketball", mode="oracle", policy="workflow", limit=1)
    )
    assert st.state == "queued" and st.id.endswith("-t9-oracle-workflow")
    assert svc.wait(st.id, 60)
    cur = run_info(tmp_path, st.id)  # read back from status.json, as after a restart
    assert cur.state == "done", cur.message
    assert cur.done == cur.total == cur.questions == 1 and cur.results
    assert cur.results["ran"] == 1 and cur.task == "t9" and cur.model == "workflow"
    assert svc.running() == []


def test_response_cache_keys_on_the_endpoint(tmp_path: Path) -> None:
    """Two servers that serve different weights under one model name must not share replies."""
    from playscout.clients.openai_chat import OpenAIChatClient
    from tests.clients.fake_openai_server import FakeOpenAIServer, Reply

    msgs = [ChatMessage(role="user", content="hi")]
    with (
        FakeOpenAIServer(lambda body: Reply.chat("from local")) as local,
        FakeOpenAIServer(lambda body: Reply.chat("from hosted")) as hosted,
    ):
        replies = [
            asyncio.run(
                CachingChatClient(
                    OpenAIChatClient(server.url, "same-name", max_retries=0),
                    ResponseCache(tmp_path / "c.sqlite"),
                ).chat(msgs, None, ChatParams())
            ).content
            for server in (local, hosted, local)
        ]
    assert replies == ["from local", "from hosted", "from local"]
    assert len(local.requests) == 1 and len(hosted.requests) == 1  # the third call was a hit
