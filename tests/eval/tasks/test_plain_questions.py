"""The plain questions (eval task `plain`): made from each game's box scores, with gold answers
that agree with the play-by-play the box scores were computed from, and answered by the offline
workflow policy as the equivalence judge counts it."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from playscout.agent import Agent
from playscout.corpus import Corpus, sport
from playscout.eval.judging.equivalence import judge_equivalence
from playscout.eval.tasks.games import load_game
from playscout.eval.tasks.plain import KINDS, PlainTask, plain_questions
from playscout.eval.tasks.registry import get
from playscout.tools.registry import ALL_TOOLS
from tests.synthdata import SynthIndex


def test_gold_answers_agree_with_the_play_by_play(synth_corpus: Corpus) -> None:
    for name in synth_corpus.sports():
        questions = plain_questions(synth_corpus, name)
        assert questions and len({q.id for q in questions}) == len(questions)
        for q in questions:
            assert q.gold is not None
            g = load_game(synth_corpus, name, q.gold.game_id)  # events, a parser of its own
            assert g.date in q.question
            if q.answer_type == "score":
                assert q.answer == "{}-{}".format(*g.final)
            elif q.answer_type == "winner":
                assert q.answer == g.winner
            elif q.answer_type == "leader":
                leads = [g.leader(t, sport(name).lead_stat) for t in (g.home, g.away)]
                assert q.answer in {lead[0] for lead in leads if lead}, q.question
            elif q.answer_type == "record":  # the game is each team's first of the season
                assert q.answer in ("1-0", "1-0-0") and g.winner is not None, q.question
            else:
                m = re.match(r"How many (.+?) did (.+?) (?:have|score) in ", q.question)
                assert m is not None and q.answer_type == "stat", q.question
                assert q.answer == str(g.players[m.group(2)][m.group(1)])
    assert get("plain").generated is PlainTask


def test_the_first_questions_of_a_sport_cover_every_kind(tmp_path: Path) -> None:
    from playscout.synthetic import generate_corpus

    generate_corpus(tmp_path / "c", games=8, sports=["basketball"], seed=2, workers=1, clip_games=0)
    questions = plain_questions(Corpus(tmp_path / "c"), "basketball", limit=len(KINDS))
    assert Counter(q.answer_type for q in questions) == dict.fromkeys(KINDS, 1)


def test_the_workflow_policy_answers_them_from_documents(synth_index: SynthIndex) -> None:
    questions = plain_questions(synth_index.corpus, synth_index.sport)
    agent = Agent(synth_index.ctx("oracle"), tools=ALL_TOOLS, policy="workflow")
    for q in questions:
        result = agent.run_sync(q.question)
        verdict = judge_equivalence(q.question, q.answer, result.answer)
        assert verdict.verdict == "right", (q.question, q.answer, result.answer, verdict.reason)
        source = result.evidence["source"][0]
        assert q.gold is not None and source.startswith(q.gold.doc_ids[0])
        if q.answer_type != "score":  # the answer stands in what the source quotes
            assert (result.answer or "").split()[0] in source, (result.answer, source)


def test_eval_run_task_plain_from_the_cli(tmp_path: Path, synth_index: SynthIndex) -> None:
    from typer.testing import CliRunner

    from playscout.cli.main import app

    runner, out = CliRunner(), tmp_path / "plain"
    run = ["eval", "run", "--task", "plain", "--mode", "oracle", "--policy", "workflow",
           "--sport", synth_index.sport, "--index", str(synth_index.index_dir),
           "--corpus", str(synth_index.corpus_dir), "--out", str(out), "--no-cache"]  # fmt: skip
    result = runner.invoke(app, run)
    assert result.exit_code == 0, result.output
    judged = runner.invoke(app, ["eval", "judge", str(out), "--judge", "equivalence"])
    n = len(plain_questions(synth_index.corpus, synth_index.sport))
    assert judged.exit_code == 0 and f"{n} right, 0 wrong, 0 unjudged" in judged.output, (
        judged.output
    )
    report = runner.invoke(app, ["eval", "report", str(out)])
    assert report.exit_code == 0 and "# Eval report: plain" in report.output, report.output
    assert "offline baseline (rule routing, extractive readers)" in report.output
