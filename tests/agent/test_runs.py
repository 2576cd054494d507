"""Workflow baseline end to end, trajectories on disk, CLI, and multi-turn sessions."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from playscout.agent import Agent, read_trajectory, session_store, summarise
from playscout.agent.trajectory import SCHEMA_VERSION, TrajectoryError
from playscout.cli.main import app
from playscout.config import AgentSettings
from playscout.tools.registry import ALL_TOOLS, SEARCH_TOOLS
from tests.doubles import ScriptedChatModel, text_call


def test_workflow_answers_generated_question_offline(synth_index: Any, tmp_path: Path) -> None:
    q = synth_index.questions()[0]
    path = tmp_path / "run.jsonl"
    agent = Agent(synth_index.ctx("oracle"), tools=ALL_TOOLS, policy="workflow")
    result = asyncio.run(agent.run(q.question, trajectory=path))
    assert result.status == "answered" and result.answer
    assert "baseline" in (result.note or "")
    assert q.gold.game_id in {d.split("_")[0] for d in result.evidence["doc_ids"][:1]}
    events = read_trajectory(path)
    assert next(e.type for e in events) == "run_start" and events[-1].type == "final_answer"
    assert all(e.schema_version == SCHEMA_VERSION for e in events)
    summary = summarise(events)
    # a T9 question names its game through facts: each is searched and read, then the clips
    calls = summary.tool_calls
    assert set(calls) == {"search_documents", "document_qa", "search_videos", "video_qa"}, calls
    assert calls["document_qa"] == calls["search_documents"] == len(q.question.split(" and "))
    assert calls["video_qa"] == 1
    assert summary.answer == result.answer and summary.policy == "workflow"

    shown = CliRunner().invoke(app, ["trajectory", "show", str(path)])
    assert shown.exit_code == 0, shown.output
    assert (
        "search_videos" in shown.output
        and "video_qa" in shown.output
        and "answered" in shown.output
    )


def test_workflow_without_qa_tool_uses_best_clip_caption(synth_index: Any) -> None:
    agent = Agent(synth_index.ctx("oracle"), tools=SEARCH_TOOLS, policy="workflow")
    result = asyncio.run(agent.run(synth_index.questions()[0].question))
    assert result.status == "answered" and result.evidence["clip_ids"]


def test_cli_ask_workflow_and_errors(synth_index: Any, tmp_path: Path) -> None:
    runner = CliRunner()
    path = tmp_path / "cli.jsonl"
    args = [
        "ask",
        synth_index.questions()[1].question,
        "--index",
        str(synth_index.index_dir),
        "--mode",
        "oracle",
        "--policy",
        "workflow",
        "--trajectory",
        str(path),
    ]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    assert "answer:" in res.output and "clip_ids:" in res.output and path.is_file()
    res = runner.invoke(app, ["ask", "q", "--index", str(synth_index.index_dir), "--policy", "llm"])
    assert (
        res.exit_code == 2
        and "the agent's model (agent.llm) is not configured" in " ".join(res.output.split())
        and "Traceback" not in res.output
    )
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    res = runner.invoke(app, ["trajectory", "show", str(bad)])
    assert res.exit_code == 2 and "not a trajectory event" in " ".join(res.output.split())


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    event = {
        "schema_version": SCHEMA_VERSION + 1,
        "run_id": "r",
        "type": "error",
        "kind": "x",
        "message": "m",
    }
    path.write_text(json.dumps(event) + "\n")
    try:
        read_trajectory(path)
    except TrajectoryError as e:
        assert "newer" in str(e)
    else:
        raise AssertionError("expected TrajectoryError")


def test_session_continues_with_checkpointer(synth_index: Any, tmp_path: Path) -> None:
    model = ScriptedChatModel(
        [
            text_call("search_documents", query="Hornets"),
            "<answer>Charlotte Hornets</answer>",
            "<answer>Boston Celtics</answer>",
            "<answer>fresh</answer>",
        ]
    )

    async def go() -> list[Any]:
        async with session_store(tmp_path / "sessions.sqlite") as saver:
            agent = Agent(
                synth_index.ctx("oracle"),
                client=model,
                tools=SEARCH_TOOLS,
                settings=AgentSettings(tool_protocol="text"),
                checkpointer=saver,
            )
            first = await agent.run("Which team won?", session_id="s1")
            second = await agent.run("And who lost?", session_id="s1")
            other = await agent.run("Unrelated?", session_id="s2")
            return [first, second, other]

    first, second, other = asyncio.run(go())
    assert (first.answer, second.answer, other.answer) == (
        "Charlotte Hornets",
        "Boston Celtics",
        "fresh",
    )
    follow_up = model.requests[2].messages
    contents = [str(m.content) for m in follow_up]
    assert contents[1] == "Which team won?" and "<answer>Charlotte Hornets</answer>" in contents
    assert contents[-1] == "And who lost?" and sum(m.role == "system" for m in follow_up) == 1
    assert second.turns == 1  # the budget restarts per question
    assert [str(m.content) for m in model.requests[3].messages][1:] == ["Unrelated?"]


def test_ids_and_versions_have_one_home() -> None:
    from playscout.agent.ids import new_id, valid_id
    from playscout.agent.runner import AGENT_PACKAGES
    from playscout.config import package_versions

    ids = {new_id() for _ in range(50)} | {new_id(random_hex=12) for _ in range(50)}
    assert len(ids) == 100 and all(valid_id(i) for i in ids)
    assert len(new_id(random_hex=12)) == len(new_id()) + 4
    versions = package_versions(AGENT_PACKAGES)
    assert "pydantic" in versions and versions == package_versions(AGENT_PACKAGES)
    versions["pydantic"] = "changed"  # callers get a copy of the cached lookup
    assert package_versions(AGENT_PACKAGES)["pydantic"] != "changed"
    assert package_versions(["no-such-package-xyz"]) == {}
    assert package_versions(["no-such-package-xyz"], missing="unknown") == {
        "no-such-package-xyz": "unknown"
    }


def _hit(clip_id: str, bm25: float | None, dense: float | None) -> Any:
    from playscout.corpus.models import ClipRecord
    from playscout.search.backend_api import ClipHit, HitScores

    score = 1 / 61 + 1 / 63  # the same RRF for every hit: #1 in one branch, #3 in the other
    game, index = clip_id.split("_")
    record = ClipRecord(
        clip_id=clip_id, sport="basketball", game_id=game, index=int(index), period=4,
        video_start=0.0, video_end=10.0,
    )  # fmt: skip
    return ClipHit(
        clip_id=clip_id,
        score=score,
        scores=HitScores(rrf=score, bm25=bm25, dense=dense),
        record=record,
    )


def test_workflow_breaks_rrf_ties_by_score_components_and_reports_full_ties() -> None:
    from playscout.agent.policies.workflow import rank_clips

    # the search returns equal-RRF clips in id order; 400000_2 has the stronger branch scores
    hits = [_hit("400000_1", 10.0, 0.40), _hit("400000_2", 9.5, 0.80), _hit("400000_3", 10.0, 0.40)]
    order, ties = rank_clips(hits)
    assert order == ["400000_2", "400000_1", "400000_3"]
    assert ties == [["400000_1", "400000_3"]]  # equal on every score: reported, search order kept


def test_workflow_under_paper_oracle_reads_captions_with_video_qa_oracle(synth_index: Any) -> None:
    from playscout.config.presets import load_preset

    agent = Agent(synth_index.ctx("oracle"), policy="workflow", preset=load_preset("paper"))
    result = agent.run_sync(synth_index.questions()[0].question)
    names = [e.name for e in result.events if e.type == "tool_call"]
    assert names[-2:] == ["search_videos", "video_qa_oracle"] and "video_qa" not in names, names
