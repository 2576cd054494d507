"""Human verdicts over HTTP: marked with a note, stored apart from the judge's (an attributed,
append-only record, latest per question wins, safe with concurrent writers), shown in the
question list, the run, the trajectory, compare and the report; bad input is a 404 or 422.
And a real oracle run on a corpus without video: clip hits carry their text, the trajectory
says no clip has a file, and the question's gold ids come with it."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import orjson
import pytest
from fastapi.testclient import TestClient

from playscout.eval.storage.human import (
    HUMAN_VERDICTS,
    MAX_NOTE,
    human_verdicts,
    record_human_verdict,
)
from playscout.eval.storage.store import JUDGEMENTS
from playscout.serving.eval_service import EvalRunService
from tests.serving.conftest import api_error, make_settings
from tests.serving.runs_data import write_run


@pytest.fixture
def runs_dir(tmp_path: Path) -> Path:
    return tmp_path / "runs"


@pytest.fixture
def api(app_factory, runs_dir: Path):
    with TestClient(app_factory(), raise_server_exceptions=False) as c:
        yield c


def mark(api: TestClient, run: str, qid: str, **body: object):
    return api.post(f"/v1/runs/{run}/questions/{qid}/human", json=body)


def test_a_mark_is_attributed_kept_apart_from_the_judge_and_the_latest_wins(api, runs_dir):
    out = write_run(runs_dir, "r1", 6)
    judged = (out / JUDGEMENTS).read_bytes()
    before = api.get("/v1/runs/r1").json()
    r = mark(api, "r1", "q0000", verdict="wrong", note="first look", by="ana")
    assert r.status_code == 201, r.text
    rec = r.json()
    assert rec["qid"] == "q0000" and rec["by"] == "ana" and rec["verdict"] == "wrong"
    assert rec["at"] > 0
    assert (
        mark(api, "r1", "q0000", verdict="right", note="gold too strict", by="bo").status_code
        == 201
    )
    assert mark(api, "r1", "q0001", verdict="unclear", by="ana").status_code == 201
    # the file keeps both marks of q0000 (append-only); the judge's file is untouched
    lines = (out / HUMAN_VERDICTS).read_bytes().splitlines()
    assert [orjson.loads(x)["qid"] for x in lines] == ["q0000", "q0000", "q0001"]
    assert (out / JUDGEMENTS).read_bytes() == judged
    rows = {r["qid"]: r for r in api.get("/v1/runs/r1/questions").json()["items"]}
    assert rows["q0000"]["human"]["verdict"] == "right" and rows["q0000"]["human"]["by"] == "bo"
    assert rows["q0000"]["verdict"] == "wrong"  # the judge's stays: the person disagrees
    assert rows["q0002"]["human"] is None
    info = api.get("/v1/runs/r1").json()
    assert info["human"] == {"right": 1, "wrong": 0, "unclear": 1, "unmarked": 4}
    assert (info["right"], info["judged"]) == (before["right"], before["judged"])
    t = api.get("/v1/runs/r1/questions/q0000").json()
    assert t["annotations"]["human"]["note"] == "gold too strict"
    assert t["annotations"]["verdict"] == "wrong" and t["annotations"]["judge"] == "equivalence"
    listed = api.get("/v1/runs/r1/human").json()
    assert [(m["qid"], m["verdict"]) for m in listed] == [("q0000", "right"), ("q0001", "unclear")]
    report = api.get("/v1/runs/r1/report").json()
    assert report["summary"]["human"]["overall"]["unclear"] == 1
    assert "Human verdicts per sport" in report["markdown"]


def test_bad_marks_are_refused_with_one_line(api, runs_dir):
    write_run(runs_dir, "r1", 3)
    api_error(mark(api, "r1", "q9999", verdict="right", by="ana"), 404, "question_not_found")
    api_error(mark(api, "nope", "q0000", verdict="right", by="ana"), 404, "run_not_found")
    api_error(mark(api, "r1", "q0000", verdict="maybe", by="ana"), 422)
    api_error(mark(api, "r1", "q0000", verdict="right", by=""), 422)
    api_error(mark(api, "r1", "q0000", verdict="right"), 422)  # who marks it is required
    api_error(mark(api, "r1", "q0000", verdict="right", by="a", note="x" * (MAX_NOTE + 1)), 422)
    api_error(mark(api, "r1", "q0000", verdict="right", by="a", judge="me"), 422)
    assert not (runs_dir / "r1" / HUMAN_VERDICTS).exists()


def test_compare_shows_each_runs_marks_in_their_own_columns(api, runs_dir):
    write_run(runs_dir, "a", 6)
    write_run(runs_dir, "b", 6, flip=1)
    mark(api, "a", "q0000", verdict="wrong", by="ana")
    mark(api, "b", "q0000", verdict="right", by="ana")
    mark(api, "b", "q0003", verdict="unclear", by="ana")
    cmp = api.get("/v1/runs/a/compare/b").json()
    row = next(r for r in cmp["items"] if r["qid"] == "q0000")
    assert (row["human_a"], row["human_b"]) == ("wrong", "right")
    assert cmp["human"]["a"] == {"right": 0, "wrong": 1, "unclear": 0, "unmarked": 5}
    assert cmp["human"]["b"] == {"right": 1, "wrong": 0, "unclear": 1, "unmarked": 4}


def _marks(run: str, who: str, n: int) -> None:
    for i in range(n):
        record_human_verdict(Path(run), f"q{i % 5:04d}", "unclear", f"{who} {i} " + "x" * 500, who)


def test_concurrent_writers_in_threads_and_processes_lose_no_mark(tmp_path):
    """Two processes and four threads append at once: every line is a whole record."""
    run = write_run(tmp_path / "runs", "r1", 5)
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_marks, args=(str(run), f"p{i}", 40)) for i in range(2)]
    for p in procs:
        p.start()
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda w: _marks(str(run), f"t{w}", 40), range(4)))
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    lines = (run / HUMAN_VERDICTS).read_bytes().splitlines()
    assert len(lines) == 6 * 40
    assert all(orjson.loads(line)["verdict"] == "unclear" for line in lines)
    assert set(human_verdicts(run)) == {f"q{i:04d}" for i in range(5)}


def test_a_run_on_a_corpus_without_video_names_no_clip_file_and_carries_its_gold(
    app_factory, synth_index, tmp_path
):
    """A real oracle run (workflow policy) on the synthetic corpus, which has no clip files:
    every clip the trajectory shows is marked as having no file (so the browser requests no
    thumbnail), each clip hit has its caption, and the gold ids of the question come along."""
    settings = make_settings(tmp_path, synth_index, corpus_dir=synth_index.corpus_dir)
    service = EvalRunService(settings, settings.eval, synth_index.backend)
    with TestClient(
        app_factory(run_service=service, settings={"corpus_dir": synth_index.corpus_dir})
    ) as c:
        body = {
            "task": "t9",
            "sport": "basketball",
            "mode": "oracle",
            "policy": "workflow",
            "limit": 2,
        }
        run_id = c.post("/v1/runs", json=body).json()["id"]
        assert service.wait(run_id, 120)
        qid = c.get(f"/v1/runs/{run_id}/questions").json()["items"][0]["qid"]
        t = c.get(f"/v1/runs/{run_id}/questions/{qid}").json()
    a = t["annotations"]
    assert a["gold_clip_ids"] and a["gold_doc_ids"]
    hits = [
        h
        for e in t["events"]
        if e["type"] == "observation" and e["name"] == "search_videos"
        for h in e["data"]["hits"]
    ]
    records = synth_index.backend.get_clips("basketball", [h["id"] for h in hits], True)
    captions = {r.clip_id: " ".join(r.caption.split()) for r in records if r is not None}
    assert hits and all(h["rank"] >= 1 for h in hits)
    # every hit whose clip has a caption shows it (a window where nothing happened has none)
    assert all(captions[h["id"]].startswith(h.get("caption", "").rstrip("…")) for h in hits)
    assert any(h.get("caption") for h in hits)
    assert a["media"] and set(a["media"]) >= {h["id"] for h in hits}
    assert not any(a["media"].values())
