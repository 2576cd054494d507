"""Runs over HTTP: listing, filters and paging that reach every run and question, a
question's trajectory with its verdict, compare, judge and report, on run directories written
by the real runner or through its writers (tests/serving/runs_data.py)."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from playscout.eval.results.catalog import natural_key
from playscout.eval.storage.status import RunOwner, RunStatus, write_status
from playscout.serving.eval_service import EvalRunService
from tests.serving.runs_data import write_run
from tests.serving.test_api import one_line_error
from tests.synthdata import workflow_calls


@pytest.fixture
def runs_dir(tmp_path: Path) -> Path:
    return tmp_path / "runs"  # make_settings points eval.runs_dir here


@pytest.fixture
def api(app_factory, runs_dir: Path):
    with TestClient(app_factory(), raise_server_exceptions=False) as c:
        yield c


def walk(c: TestClient, url: str, **params: object) -> list[dict]:
    """Every item of a paged list, page by page."""
    items: list[dict] = []
    offset = 0
    while True:
        page = c.get(url, params={**params, "offset": offset}).json()
        items += page["items"]
        offset += page["limit"]
        if offset >= page["total"]:
            assert len(items) == page["total"]
            return items


def test_runs_list_filters_and_pages_reach_every_run(api, runs_dir):
    for i in range(7):
        write_run(runs_dir, f"run{i}", 3, mode="oracle" if i % 2 else "default")
        time.sleep(0.01)  # distinct created times: newest first is well defined
    write_run(runs_dir, "broken-run", 2, state="failed")
    (runs_dir / "not-a-run").mkdir()  # no status.json / run.json: not listed
    (runs_dir / "bad name!").mkdir()
    page = api.get("/v1/runs", params={"limit": 3}).json()
    assert page["total"] == 8 and len(page["items"]) == 3
    everything = walk(api, "/v1/runs", limit=3)
    assert len({r["id"] for r in everything}) == 8
    assert [r["created"] for r in everything] == sorted(
        (r["created"] for r in everything), reverse=True
    )
    assert {r["id"] for r in walk(api, "/v1/runs", mode="oracle")} == {"run1", "run3", "run5"}
    assert [r["id"] for r in walk(api, "/v1/runs", status="failed")] == ["broken-run"]
    assert walk(api, "/v1/runs", task="t3") == []
    first = everything[-1]
    assert first["task"] == "t9" and first["model"] == "scripted" and first["questions"] == 3
    assert first["judge"] == "equivalence" and first["judged"] == 3
    assert first["accuracy"] == pytest.approx(100 * first["right"] / 3, abs=0.01)
    assert "query.status" in one_line_error(api.get("/v1/runs?status=bogus"), 422)
    assert "limit" in one_line_error(api.get("/v1/runs?limit=100000"), 422)


def test_questions_filter_search_and_page_reach_every_question(api, runs_dir):
    write_run(runs_dir, "r1", 250)
    rows = walk(api, "/v1/runs/r1/questions", limit=40)
    assert [r["qid"] for r in rows] == [f"q{i:04d}" for i in range(250)]
    wrong = walk(api, "/v1/runs/r1/questions", verdict="wrong", limit=30)
    assert wrong and all(r["verdict"] == "wrong" for r in wrong)
    assert len(wrong) == sum(r["verdict"] == "wrong" for r in rows)
    errors = walk(api, "/v1/runs/r1/questions", status="error")
    assert len(errors) == 15 and all("connection refused" in r["error"] for r in errors)
    video = walk(api, "/v1/runs/r1/questions", tool="video_qa")
    assert video and all(r["tool_calls"].get("video_qa") for r in video)
    hockey = walk(api, "/v1/runs/r1/questions", sport="hockey", verdict="right")
    assert hockey and all(r["sport"] == "hockey" and r["verdict"] == "right" for r in hockey)
    assert [r["qid"] for r in walk(api, "/v1/runs/r1/questions", q="QUESTION 123:")] == ["q0123"]
    page = api.get("/v1/runs/r1/questions", params={"limit": 1}).json()
    assert page["facets"]["verdict"] == ["right", "wrong"]
    assert page["facets"]["tool"] == ["search_documents", "search_videos", "video_qa"]
    info = api.get("/v1/runs/r1").json()
    assert info["right"] + len(wrong) == info["judged"] == 250
    assert "verdict" in one_line_error(api.get("/v1/runs/r1/questions?verdict=maybe"), 422)
    assert "unknown query parameter" in one_line_error(api.get("/v1/runs/r1/questions?x=1"), 422)


def test_a_question_has_its_trajectory_gold_and_verdict(api, runs_dir):
    write_run(runs_dir, "r1", 30)
    t = api.get("/v1/runs/r1/questions/q0003").json()
    assert t["annotations"]["gold_answer"] == "gold 3"
    assert t["annotations"]["verdict"] == "wrong" and t["annotations"]["judge"] == "equivalence"
    assert t["annotations"]["judge_reason"] == "differs"
    assert [e["type"] for e in t["events"]][:3] == ["run_start", "model_call", "tool_call"]
    failed = api.get("/v1/runs/r1/questions/q0005").json()
    assert failed["summary"]["status"] == "error"
    assert "connection refused" in failed["summary"]["error"]
    for qid in ("nope", "..%2Frun.json", "q0003.jsonl"):
        assert one_line_error(api.get(f"/v1/runs/r1/questions/{qid}"), 404)
    for run in ("nope", "..", "bad%20name"):
        assert one_line_error(api.get(f"/v1/runs/{run}/questions"), 404)


def test_compare_counts_changes_and_finds_the_first_divergent_turn(api, runs_dir):
    write_run(runs_dir, "a", 60)
    write_run(runs_dir, "b", 60, flip=1, first_query="who won")
    cmp = api.get("/v1/runs/a/compare/b", params={"limit": 500}).json()
    rows = cmp["items"]
    assert cmp["total"] == len(rows) == 60 and cmp["only_a"] == cmp["only_b"] == 0
    assert cmp["counts"]["fixed"] == sum(r["change"] == "fixed" for r in rows) > 0
    assert cmp["counts"]["broken"] == sum(r["change"] == "broken" for r in rows) > 0
    assert all(r["a"] == "wrong" and r["b"] == "right" for r in rows if r["change"] == "fixed")
    fixed = walk(api, "/v1/runs/a/compare/b", change="fixed", limit=7)
    assert len(fixed) == cmp["counts"]["fixed"]
    odd = api.get("/v1/runs/a/compare/b/questions/q0001").json()  # first query differs
    assert odd["divergent_turn"] == 1
    even = api.get("/v1/runs/a/compare/b/questions/q0002").json()  # same calls, other answer
    assert even["divergent_turn"] == 4
    assert even["a"]["annotations"]["verdict"] != even["b"]["annotations"]["verdict"]
    same = api.get("/v1/runs/a/compare/a/questions/q0002").json()
    assert same["divergent_turn"] is None


def test_a_real_run_over_http_then_judged_and_reported(app_factory, synth_index, tmp_path):
    from tests.serving.conftest import make_settings

    settings = make_settings(tmp_path, synth_index, corpus_dir=synth_index.corpus_dir)
    service = EvalRunService(settings, settings.eval, synth_index.backend)
    with TestClient(app_factory(run_service=service), raise_server_exceptions=False) as c:
        body = {
            "task": "t9",
            "sport": "basketball",
            "mode": "oracle",
            "policy": "workflow",
            "limit": 2,
        }
        st = c.post("/v1/runs", json=body)
        assert st.status_code == 202, st.text
        run_id = st.json()["id"]
        assert run_id.endswith("-t9-oracle-workflow")
        assert service.wait(run_id, 120)
        info = c.get(f"/v1/runs/{run_id}").json()
        assert info["state"] == "done" and info["questions"] == 2 and info["accuracy"] is None
        judged = c.post(f"/v1/runs/{run_id}/judge", json={"judge": "equivalence"})
        assert judged.status_code == 200, judged.text
        stats = judged.json()
        assert stats["judge"] == "equivalence" and stats["judged_now"] == 2
        info = c.get(f"/v1/runs/{run_id}").json()  # the equivalence judge may abstain
        assert info["judged"] == stats["right"] + stats["wrong"] == 2 - stats["unjudged"]
        assert info["right"] == stats["right"]
        report = c.get(f"/v1/runs/{run_id}/report").json()
        assert report["summary"]["accuracy"]["overall"]["n"] == 2
        assert "# Eval report: t9" in report["markdown"]
        qid = c.get(f"/v1/runs/{run_id}/questions").json()["items"][0]["qid"]
        t = c.get(f"/v1/runs/{run_id}/questions/{qid}").json()
        assert t["annotations"]["judge"] == "equivalence" and t["annotations"]["judge_reason"]
        searches = workflow_calls(t["summary"]["question"]).count("search_documents")
        assert t["summary"]["tool_calls"]["search_documents"] == searches
        assert "nothing to cancel" in one_line_error(
            c.post(f"/v1/runs/{run_id}/cancel", json={}), 409
        )
        assert one_line_error(c.post("/v1/runs/nope/cancel", json={}), 404)
        assert "llm judge needs a model" in one_line_error(
            c.post(f"/v1/runs/{run_id}/judge", json={"judge": "llm"}), 400
        )


def test_a_failed_ask_says_why_in_the_trajectory_list(app_factory):
    from playscout.clients.chat import ModelUnavailable
    from tests.doubles import ScriptedChatModel

    down = ScriptedChatModel([ModelUnavailable("connection refused: http://127.0.0.1:9/v1")])
    with TestClient(app_factory(llm_client=down)) as c:
        r = c.post("/v1/ask", json={"question": "who won?", "mode": "oracle"})
        assert r.status_code == 503 and "connection refused" in r.json()["error"]["message"]
        [item] = c.get("/v1/trajectories").json()["items"]
        assert item["status"] == "error" and "connection refused" in item["error"]
        errors = c.get("/v1/trajectories", params={"status": "error", "q": "refused"}).json()
        assert errors["total"] == 1
        summary = c.get(f"/v1/trajectories/{item['id']}").json()["summary"]
        assert "connection refused" in summary["error"]


def test_a_killed_run_counts_the_questions_it_finished(api, runs_dir):
    """Its status file says 2 done (written before the last questions ended), its owner is
    gone, 5 result rows exist: it is interrupted with 5 done, as many as the list shows."""
    out = write_run(runs_dir, "killed", 5)
    gone = RunOwner(pid=2**22 + 1, host=RunOwner.me().host)
    late = RunStatus(id="killed", state="running", done=2, total=12, created=time.time())
    write_status(out, late, gone)
    info = api.get("/v1/runs/killed").json()
    assert info["state"] == "interrupted" and info["done"] == info["questions"] == 5
    assert info["total"] == 12


def test_questions_read_in_id_order_not_the_order_they_finished(api, runs_dir):
    run = write_run(runs_dir, "r1", 12)
    results = run / "results.jsonl"
    results.write_bytes(b"".join(reversed(results.read_bytes().splitlines(keepends=True))))
    assert [r["qid"] for r in walk(api, "/v1/runs/r1/questions")] == [
        f"q{i:04d}" for i in range(12)
    ]
    assert sorted(["q10", "q2", "q1"], key=natural_key) == ["q1", "q2", "q10"]


def test_a_copied_run_is_listed_and_found_by_its_folder_name(api, runs_dir):
    """Its status.json still names the original run: the listing must not send a reader to
    that id (which would show the original, or 404 once it is deleted)."""
    shutil.copytree(write_run(runs_dir, "original", 3), runs_dir / "copy-for-paper")
    shutil.rmtree(runs_dir / "original")
    [listed] = walk(api, "/v1/runs")
    assert listed["id"] == "copy-for-paper"
    got = api.get("/v1/runs/copy-for-paper")
    assert got.status_code == 200 and got.json()["id"] == "copy-for-paper"
    questions = api.get("/v1/runs/copy-for-paper/questions").json()
    assert questions["total"] == 3
