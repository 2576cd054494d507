"""Resumes after faults, with `playscout eval run` as a subprocess (workflow policy, oracle
mode: no model server needed unless one is the fault).

- A full disk under the trajectories (a real tmpfs, filled): every question records the
  refusal. Before, a plain resume kept "No space left on device" as their results for good;
  now a plain resume runs them again, as it does a question whose model server was down.
- One result row that is valid JSON of the wrong shape. Before, it stopped `eval report` and
  every resume of the run (exit 2); now it is skipped like a torn line and its question runs
  again.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import orjson
import pytest

from playscout.eval.storage.store import load_results
from tests.clients.fake_openai_server import FakeOpenAIServer, Reply

from .conftest import Tmpfs, error_line, run_cli
from .test_full_disk_server import fill

pytestmark = pytest.mark.slow


def eval_run(out: Path, synth_index, *extra: str, limit: int = 3):
    return run_cli(
        "eval", "run", "--task", "t9", "--sport", "basketball", "--mode", "oracle",
        "--policy", "workflow", "--limit", str(limit), "--out", str(out), "--no-cache",
        "--index", str(synth_index.index_dir), "--corpus", str(synth_index.corpus_dir), *extra,
    )  # fmt: skip


def rows(out: Path) -> dict[str, Any]:
    return {r.qid: r for r in load_results(out)}


def test_questions_that_hit_a_full_disk_run_again_on_a_plain_resume(
    tmp_path: Path, tmpfs: Tmpfs, synth_index
) -> None:
    out = tmp_path / "run"
    out.mkdir()
    disk = tmpfs("1m")
    (out / "trajectories").symlink_to(disk)  # the trajectories on their own disk
    filler = fill(disk)
    first = eval_run(out, synth_index)
    assert first.returncode == 1, first.stderr[-2000:]  # finished, with failures
    assert "Traceback" not in first.stderr
    failed = rows(out)
    assert len(failed) == 3 and {r.status for r in failed.values()} == {"error"}
    for row in failed.values():
        assert "no space left on device" in (row.error or "").lower(), row.error
    filler.unlink()
    second = eval_run(out, synth_index)  # plain: no --retry-failed
    assert second.returncode == 0, second.stderr[-2000:]
    assert "ran 3 of 3 questions (0 already done)" in second.stdout
    after = rows(out)
    assert {r.status for r in after.values()} == {"answered"}
    assert {r.attempt for r in after.values()} == {2}
    assert {getattr(r, "error_kind", None) for r in failed.values()} == {"storage"}


def test_questions_whose_model_server_failed_run_again_on_a_plain_resume(
    tmp_path: Path, synth_index
) -> None:
    down = {"on": True}

    def reply(body: dict[str, Any]) -> Reply:
        return Reply.error(503, "overloaded") if down["on"] else Reply.chat("<answer>42</answer>")

    out = tmp_path / "run"
    with FakeOpenAIServer(reply) as model:
        llm = ("--llm-url", model.url, "--llm-model", "fake-model")
        env = {"PLAYSCOUT_AGENT__LLM__MAX_RETRIES": "0", "PLAYSCOUT_AGENT__TOOL_PROTOCOL": "text"}
        os.environ.update(env)
        try:
            args = ["--policy", "llm", *llm]
            first = eval_run(out, synth_index, *args, limit=2)
            assert first.returncode == 1, first.stderr[-2000:]
            failed = rows(out)
            assert all("HTTP 503" in (r.error or "") for r in failed.values()), failed
            down["on"] = False
            second = eval_run(out, synth_index, *args, limit=2)
        finally:
            for key in env:
                os.environ.pop(key)
    assert second.returncode == 0, second.stderr[-2000:]
    assert {r.status for r in rows(out).values()} == {"answered"}
    assert {getattr(r, "error_kind", None) for r in failed.values()} == {"transient"}


def test_a_row_of_the_wrong_shape_is_skipped_and_run_again(tmp_path: Path, synth_index) -> None:
    out = tmp_path / "run"
    assert eval_run(out, synth_index).returncode == 0
    results = out / "results.jsonl"
    lines = results.read_bytes().splitlines()
    victim = orjson.loads(lines[1])
    # valid JSON, but not a result: a field of the wrong type, and one row with no question
    results.write_bytes(
        b"\n".join([lines[0], orjson.dumps({**victim, "turns": "three", "status": 7}), lines[2]])
        + b"\n"
        + orjson.dumps(["not", "a", "row"])
        + b"\n"
        + orjson.dumps({"status": "answered"})
        + b"\n"
    )
    report = run_cli("eval", "report", str(out))
    assert report.returncode == 0, report.stderr[-2000:]
    resumed = eval_run(out, synth_index)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert "ran 1 of 3 questions (2 already done)" in resumed.stdout
    after = rows(out)
    assert len(after) == 3 and after[victim["qid"]].attempt == 1
    assert after[victim["qid"]].status == "answered"
    assert json.loads(results.read_text().splitlines()[-1])["qid"] == victim["qid"]


def test_a_resume_after_the_questions_changed_is_refused_or_marked_mixed(
    tmp_path: Path, synth_index
) -> None:
    """One question's text and gold edited, another's evidence, a third deleted. Before: rc 0,
    no message, the old text and gold kept, the deleted question still scored, not mixed."""
    from playscout.eval.results.report import summarise_run
    from tests.synthdata import copy_corpus

    corpus = copy_corpus(synth_index.corpus_dir, tmp_path / "corpus").root
    out = tmp_path / "run"

    def run(*extra: str):
        return run_cli(
            "eval", "run", "--task", "t9", "--sport", "basketball", "--mode", "oracle",
            "--policy", "workflow", "--out", str(out), "--no-cache", "--index",
            str(synth_index.index_dir), "--corpus", str(corpus), *extra,
        )  # fmt: skip

    assert run().returncode == 0
    path = corpus / "questions" / "basketball.json"
    questions = json.loads(path.read_text())
    edited, moved, deleted = questions[0], questions[1], questions[2]
    edited["question"] = edited["question"].replace("how many", "how many in all")
    edited["answer"] = "7"
    moved["gold"]["clip_ids"] = ["400000_1"]
    path.write_text(json.dumps([edited, moved]))

    refused = run()
    assert refused.returncode == 2, (refused.stdout[-1000:], refused.stderr[-1000:])
    line = error_line(refused)
    assert f"{edited['id']} (text, gold)" in line and f"{moved['id']} (evidence)" in line, line
    assert f"1 removed: {deleted['id']}" in line and "--rerun-changed" in line, line
    assert len(rows(out)) == 3  # nothing ran, nothing was dropped

    mixed = run("--rerun-changed")
    assert mixed.returncode == 0, mixed.stderr[-2000:]
    assert "ran 2 of 2 questions (0 already done)" in mixed.stdout
    after = rows(out)
    assert set(after) == {edited["id"], moved["id"]}  # the deleted one is no longer scored
    assert after[edited["id"]].question == edited["question"] and after[edited["id"]].gold == "7"
    assert after[moved["id"]].meta["gold_clip_ids"] == ["400000_1"]
    stamp = json.loads((out / "run.json").read_text())["stamp"]
    assert not stamp["comparable"]
    assert any(r.startswith("mixed: resumed after the questions changed") for r in stamp["reasons"])
    summary = summarise_run(out)
    assert summary["accuracy"]["overall"]["n"] == 2
    assert any("mixed" in r for r in summary["stamp"]["reasons"])
    again = run()  # the same questions now: a plain resume has nothing to do
    assert again.returncode == 0 and "ran 0 of 2" in again.stdout, again.stderr[-1000:]
