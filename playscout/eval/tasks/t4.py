"""T4 strategic reasoning QA: open game-level questions, up to k numbered answers in one
response, each scored 0-5 by the rubric judge (judging/rubric.py: the paper's prompt with a
judge model, a text fallback without), the best counting.

On the synthetic corpus (T4Task) the target game's report is hidden (questions derive from it).
On the published qa.json (T4Published) items name games (tasks/games.py: the corpus route over
that game alone, else its video file, else missing); the corpus route's tools follow the
question type (T4_TOOLS)."""

from __future__ import annotations

import asyncio
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from playscout.clients.chat import ChatParams
from playscout.corpus.sports import sport as sport_record
from playscout.corpus.sports import sport_of_league
from playscout.eval.judging.metrics import mean
from playscout.eval.judging.rubric import (
    ANSWER_PROMPT,
    FallbackScoreJudge,
    LLMScoreJudge,
    ScoreJudge,
    best_of_k,
    parse_answers,
)
from playscout.eval.storage.records import Outcome, ResultRow
from playscout.eval.tasks.games import check_agent, games, games_view, route_games
from playscout.eval.tasks.guard import BackendView
from playscout.eval.tasks.reading import NonEmpty, Record, Text, read_json, records
from playscout.eval.tasks.registry import declare
from playscout.eval.tasks.routes import run_agent, tool_subset
from playscout.eval.tasks.svi import SVI
from playscout.eval.tasks.task import AGENT_CALLS, Format, Instance, Needs, Task, TaskEnv
from playscout.eval.tasks.video_files import ask_video_files


class T4Task(Task):
    name = "t4"
    description = "Open game-level QA, 0-5, best of k; the target game's report is hidden."
    calls = AGENT_CALLS

    def questions(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]:
        out: list[Instance] = []
        for sport in sports:
            for g in games(env.need_corpus(), sport, limit):
                stat = sport_record(sport).lead_stat
                for team in (g.home, g.away):
                    lead = g.leader(team, stat)
                    if lead:
                        q = f"In {g.label()}, which {team} player had the most {stat}?"
                        out.append(
                            Instance(
                                f"t4_{g.game_id}_{len(out)}",
                                sport,
                                q,
                                lead[0],
                                {"game_id": g.game_id, "question_type": "role_skill_assessment"},
                            )
                        )
                        break
        return out[:limit] if limit else out

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        view = BackendView(hide_doc_ids={f"{inst.meta['game_id']}_espn_report"})
        prompt = ANSWER_PROMPT.format(question=inst.prompt, k=env.eval.best_of_k)
        rec = await run_agent(env, env.ctx(inst.sport, view), prompt, trajectory)
        return await best_of_k_answers(env, inst.prompt, str(inst.gold), rec)

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        return t4_scores(records)


def score_judge(env: TaskEnv) -> ScoreJudge:
    """Fig. 32 over the run's judge model (eval.judge), else the text fallback."""
    if env.judge is None:
        return FallbackScoreJudge()
    params = ChatParams(
        temperature=env.settings.eval.judge.temperature, max_tokens=env.eval.judge_max_tokens
    )
    return LLMScoreJudge(env.judge, params)


async def best_of_k_answers(env: TaskEnv, question: str, gold: str, rec: Outcome) -> Outcome:
    """T4's protocol after the answer: its numbered answers (at most k) each scored 0-5, the
    best counting (rubric.best_of_k)."""
    k = env.eval.best_of_k
    candidates = parse_answers(rec.answer, k)
    note = rec.note
    if not candidates and rec.answer:
        if env.runtime.preset.unnumbered_answers == "zero":
            note = "no 'Answer i:' lines: no candidate, scored 0 (as the reference)"
        else:
            candidates = [rec.answer]
            note = "no 'Answer i:' lines: the whole answer is the one candidate (the reference scores 0)"
    judge = score_judge(env)
    verdicts = await asyncio.gather(*(judge.score(question, gold, c) for c in candidates))
    scores = [v.score for v in verdicts]
    return rec.updated(
        candidates=candidates,
        candidate_scores=scores,
        score=best_of_k(scores),
        judge=judge.name,
        note=note,
    )


def t4_scores(records: list[ResultRow]) -> dict[str, Any]:
    """The reference's summary (the mean best score per sport and overall, unscored rows
    apart), per question type too, and which judges scored."""
    scored = [(r, float(r.score)) for r in records if r.score is not None]

    def mean_by(key: Any) -> dict[str, float | None]:
        groups = sorted({str(key(r)) for r, _ in scored})
        return {g: mean([s for r, s in scored if str(key(r)) == g]) for g in groups}

    return {
        "avg_score": mean([s for _, s in scored]),
        "per_sport": mean_by(lambda r: r.sport),
        "per_question_type": mean_by(lambda r: r.meta.get("question_type")),
        "unscored": len(records) - len(scored),
        "judges": dict(Counter(r.judge or "none" for r in records)),
        "scale": "0-5, best of k",
    }


class T4Question(Record):
    """T4 dataset/qa.json item (1,000 in the release)."""

    league: NonEmpty
    game_id: Text
    question_type: NonEmpty
    question: NonEmpty
    answer: NonEmpty
    video_path: NonEmpty


def t4_questions(path: Path) -> list[Instance]:
    items = records(path, read_json(path), T4Question, "question")
    out = []
    for i, e in enumerate(items):
        # the reference's get_sport (T4 evaluation/evaluate.py) reads the sport records' leagues,
        # without its "anything else is soccer"
        sport = sport_of_league(e.league)
        out.append(
            Instance(
                f"t4_{i}",
                sport or "unknown",
                e.question,
                e.answer,
                {
                    "game_id": e.game_id,
                    "league": e.league,
                    "question_type": e.question_type,
                    "video_refs": [e.video_path],
                    **e.extra(),
                },
                missing=None if sport else f"unknown league {e.league!r}: no sport to route it to",
            )
        )
    return out


VIDEO_TOOLS = ("search_videos", "video_qa")
STATS_TOOLS = ("search_documents", "document_qa")


# What each T4 question type is about decides what the agent may look at: events on the court
# are in the clips; questions that weigh players or tactics may also read the box scores.
T4_TOOLS: dict[str, tuple[str, ...]] = {
    "anomaly_novelty_detection": VIDEO_TOOLS,
    "spatiotemporal_relational_reasoning": VIDEO_TOOLS,
    "causal_counterfactual_reasoning": VIDEO_TOOLS,
    "tactical_strategic_analysis": VIDEO_TOOLS + STATS_TOOLS,
    "role_skill_assessment": VIDEO_TOOLS + STATS_TOOLS,
    "general": VIDEO_TOOLS + STATS_TOOLS,
}


class T4Published(Task):
    name = "t4"
    description = "Strategic reasoning QA (qa.json): by game id and question type, 0-5, best of k."
    needs = Needs(
        videos="optional",
        vlm=True,
        corpus="optional",
        judge="Fig. 32 0-5 rubric judge (eval.judge), best of k; text fallback without",
    )

    def check(self, env: TaskEnv) -> None:
        check_agent(env, self.name)

    def resolve(self, items: list[Instance], env: TaskEnv) -> None:
        assert self.data is not None
        for inst in items:
            if not inst.missing:
                route_games(env, inst, [str(inst.meta["game_id"])], self.data.path)

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        prompt = ANSWER_PROMPT.format(question=inst.prompt, k=env.eval.best_of_k)
        if inst.meta.get("route") == "video file":
            frames = env.settings.eval.frames_per_game
            rec = await ask_video_files(env, inst, prompt, trajectory, frames)
        else:
            gid, kind = str(inst.meta["game_id"]), str(inst.meta["question_type"])
            tools = T4_TOOLS.get(kind, T4_TOOLS["general"])
            what = "clips and box scores" if STATS_TOOLS[0] in tools else "clips"
            intro = f"This question is about game {gid} ({inst.meta['league']}); its {what} can be searched.\n\n"
            ctx = env.ctx(inst.sport, games_view({gid}))
            rec = await run_agent(env, ctx, intro + prompt, trajectory, tools=tool_subset(tools))
            label = (
                "corpus: "
                + "+".join(tools)
                + ("" if kind in T4_TOOLS else f" ({kind}: unknown type)")
            )
            rec = rec.updated(route=label)
        return await best_of_k_answers(env, inst.prompt, str(inst.gold), rec)

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        routes: dict[str, Counter[str]] = defaultdict(Counter)
        for r in records:
            routes[str(r.meta.get("question_type"))][r.route or "?"] += 1
        return {
            **t4_scores(records),
            "routes_per_question_type": {k: dict(v) for k, v in routes.items()},
        }


T4 = declare(
    "t4",
    metric="0-5 rubric score, best of k; per sport and question type",
    generated=T4Task,
    published=(
        Format(
            "T4 qa.json",
            "[{league, game_id, question_type, question, answer, video_path}]",
            f"{SVI}/t4_strategic_reasoning_qa/dataset/qa.json",
            t4_questions,
            T4Published,
            example="`T4/qa.json` (1,000) or `qa_subset.json`",
        ),
    ),
)
