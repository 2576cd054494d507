"""Game-level tasks T4-T6, routed through the agent with a prompt template and leakage guards.

T4 hides the target game's report (questions derive from it) and asks for up to k answers in
one response, each scored 0-5 by the rubric judge (judges/rubric.py: the paper's prompt with a
judge model, a text fallback without), the best counting. T5 hides everything after the
forecast cutoff (the game's documents, its later clips, and every later game); T6 hides the
target report. T5 and T6 score deterministically (option choice; fact checks against the box
score).
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from playscout.clients.chat import ChatParams
from playscout.corpus.sports import sport as sport_record
from playscout.eval.judging.metrics import accuracy, calibration_error, chosen_option_probs, mean
from playscout.eval.judging.rubric import (
    ANSWER_PROMPT,
    FallbackScoreJudge,
    LLMScoreJudge,
    ScoreJudge,
    best_of_k,
    parse_answers,
)
from playscout.eval.judging.text import normalise
from playscout.eval.storage.records import Outcome, ResultRow
from playscout.eval.tasks.gamefacts import GameFacts, games, load_game
from playscout.eval.tasks.guard import BackendView
from playscout.eval.tasks.synthetic import pick_option, render_options
from playscout.eval.tasks.task import AGENT_CALLS, Instance, TaskEnv, run_agent


class T4Task:
    name = "t4"
    description = "Open game-level QA, 0-5, best of k; the target game's report is hidden."
    needs_index = True
    calls = AGENT_CALLS
    judged = False

    def load(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]:
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


def _cutoff(sport: str) -> int:
    return sport_record(sport).forecast_periods


def _t5_options(g: GameFacts) -> tuple[list[str], int]:
    m = sport_record(g.sport).forecast_margin
    opts = [
        f"{g.home} win by more than {m}",
        f"{g.home} win by 1 to {m}",
        "a draw/tie",
        f"{g.away} win by 1 to {m}",
        f"{g.away} win by more than {m}",
    ]
    h, a = g.final
    d = h - a
    gold = 0 if d > m else 1 if d > 0 else 2 if d == 0 else 3 if -d <= m else 4
    return opts, gold


_CONF = re.compile(r"confidence\D{0,5}(\d*\.?\d+)\s*(%)?", re.I)


def verbal_confidence(answer: str | None, n_options: int) -> float:
    """Verbalised confidence in [0, 1] ("confidence: 0.7" or "70%"); uniform when absent."""
    m = _CONF.search(answer or "")
    if not m:
        return 1.0 / n_options
    v = float(m.group(1))
    return max(0.0, min(1.0, v / 100 if m.group(2) or v > 1 else v))


class T5Task:
    name = "t5"
    description = (
        "Outcome forecasting MCQ with calibration error; nothing after the cutoff is visible."
    )
    needs_index = True
    calls = AGENT_CALLS
    judged = False

    def load(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]:
        out: list[Instance] = []
        for sport in sports:
            for g in games(env.need_corpus(), sport, limit):
                c = _cutoff(sport)
                h = sum(p[0] for p in g.period_scores[:c])
                a = sum(p[1] for p in g.period_scores[:c])
                opts, gold = _t5_options(g)
                q = (
                    f"In {g.label()}, the score after period {c} is {g.home} {h}, {g.away} {a}. "
                    f"Using only what happened up to then, how will the game end?\n{render_options(opts)}\n"
                    "Answer with the option letter and your confidence between 0 and 1."
                )
                out.append(
                    Instance(
                        f"t5_{g.game_id}",
                        sport,
                        q,
                        gold,
                        {
                            "game_id": g.game_id,
                            "date": g.date,
                            "cutoff_period": c,
                            "options": opts,
                            "calibration_bins": env.eval.calibration_bins,
                        },
                    )
                )
        return out[:limit] if limit else out

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        gid, date, cut = inst.meta["game_id"], inst.meta["date"], inst.meta["cutoff_period"]
        view = BackendView(
            hide_doc=lambda d: d.game_id == gid or (d.date is not None and d.date > date),
            hide_clip=lambda c: (
                (c.game_id == gid and c.period > cut) or (c.date is not None and c.date > date)
            ),
        )
        rec = await run_agent(env, env.ctx(inst.sport, view), inst.prompt, trajectory)
        choice = pick_option(rec.answer, inst.meta["options"])
        n = len(inst.meta["options"])
        conf = verbal_confidence(rec.answer, n) if choice is not None else 1.0 / n
        return rec.updated(
            choice=choice,
            confidence=conf,
            option_probs=chosen_option_probs(n, choice, conf),
            correct=choice == inst.gold,
        )

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        """CE over every option's probability, as the reference (metrics/calibration.py); the
        bin count is the run's eval.calibration_bins, recorded in each question's meta."""
        bins = next(
            (int(r.meta["calibration_bins"]) for r in records if "calibration_bins" in r.meta), 5
        )
        probs = [
            None
            if r.status == "error" or r.option_probs is None
            else {str(i): p for i, p in enumerate(r.option_probs)}
            for r in records
        ]
        cal = calibration_error(probs, [str(r.gold) for r in records], bins)
        return {
            "accuracy": accuracy([bool(r.correct) for r in records]),
            "calibration_error": cal.ce if cal else None,
            "calibration_error_weighted": cal.weighted_ce if cal else None,
            "calibration_bins": bins,
            "no_choice": sum(r.choice is None for r in records),
        }


_CLAIM = re.compile(
    r"([A-Z][a-z]+(?: [A-Z][a-z'\-]+)+)\D{0,40}?(\d+) (points|rebounds|assists|goals|saves|shots|passes|tackles)"
)


def check_facts(text: str, g: GameFacts) -> dict[str, int]:
    """Atomic stat claims "Name ... N stat" against the box score: supported / contradicted /
    inconclusive (name not in the box score)."""
    out = {"supported": 0, "contradicted": 0, "inconclusive": 0}
    for name, value, stat in _CLAIM.findall(text or ""):
        stats = g.players.get(name)
        if stats is None or stat not in stats:
            out["inconclusive"] += 1
        elif stats[stat] == int(value):
            out["supported"] += 1
        else:
            out["contradicted"] += 1
    return out


def key_facts(g: GameFacts) -> list[str]:
    h, a = g.final
    facts = [f"{h}-{a}" if h >= a else f"{a}-{h}"]
    if g.winner:
        facts.append(g.winner)
    for team in (g.home, g.away):
        lead = g.leader(team, sport_record(g.sport).lead_stat)
        if lead:
            facts.append(lead[0])
    return facts


def style_score(text: str | None, target_words: int) -> float:
    """A heuristic 1-5: length near the target, several sentences, no repeated sentences."""
    if not text:
        return 1.0
    sentences = [s.strip() for s in re.split(r"[.!?]\s+", text) if s.strip()]
    words = len(text.split())
    s = 1.0 + 2.0 * max(0.0, 1 - abs(words - target_words) / target_words)
    s += 1.0 if len(sentences) >= 3 else 0.0
    s += 1.0 if len(set(sentences)) == len(sentences) else 0.0
    return round(min(5.0, s), 2)


class T6Task:
    name = "t6"
    description = (
        "Game report writing: factual accuracy, saliency coverage, style 1-5; target report hidden."
    )
    needs_index = True
    calls = AGENT_CALLS
    judged = False
    target_words = 200

    def load(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]:
        out: list[Instance] = []
        for sport in sports:
            for g in games(env.need_corpus(), sport, limit):
                q = (
                    f"Write a report of about {self.target_words} words on {g.label()}: the final "
                    "score, the key performers with their statistics, and the turning points."
                )
                out.append(
                    Instance(f"t6_{g.game_id}", sport, q, key_facts(g), {"game_id": g.game_id})
                )
        return out[:limit] if limit else out

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        gid = inst.meta["game_id"]
        view = BackendView(hide_doc_ids={f"{gid}_espn_report"})
        rec = await run_agent(env, env.ctx(inst.sport, view), inst.prompt, trajectory)
        g = load_game(env.need_corpus(), inst.sport, gid)
        text = rec.answer or ""
        facts = check_facts(text, g)
        norm = f" {normalise(text)} "
        covered = [f for f in inst.gold if f" {normalise(f)} " in norm or f in text]
        s, c = facts["supported"], facts["contradicted"]
        return rec.updated(
            facts=facts,
            factual=s / (s + c) if s + c else None,
            saliency=len(covered) / len(inst.gold) if inst.gold else None,
            style=style_score(text, self.target_words),
        )

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        return {
            "factual_accuracy": mean([r.factual for r in records if r.factual is not None]),
            "saliency": mean([r.saliency for r in records if r.saliency is not None]),
            "style": mean([r.style for r in records if r.style is not None]),
            "no_claims": sum(r.factual is None for r in records),
        }
