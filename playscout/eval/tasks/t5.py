"""T5 outcome forecasting: a multiple-choice question on how a game ends, with calibration
error. On the synthetic corpus (T5Task) nothing after the forecast cutoff is visible (the
game's documents, its later clips, and every later game); on the published forecasting files
(T5Published) each item is an observation segment's video asked of the VLM."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from playscout.corpus.sports import sport as sport_record
from playscout.eval.errors import DataFormatError
from playscout.eval.judging.metrics import accuracy, calibration_error, chosen_option_probs
from playscout.eval.storage.records import Outcome, ResultRow
from playscout.eval.tasks.games import GameFacts, games
from playscout.eval.tasks.guard import BackendView
from playscout.eval.tasks.options import pick_option, render_options
from playscout.eval.tasks.reading import read_json, records, unique_ids
from playscout.eval.tasks.registry import declare
from playscout.eval.tasks.routes import run_agent
from playscout.eval.tasks.svi import SVI, Conversation, mcq, sport_of, strip_media_tag
from playscout.eval.tasks.task import AGENT_CALLS, Format, Instance, Task, TaskEnv
from playscout.eval.tasks.video_files import FileMCQ


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


class T5Task(Task):
    name = "t5"
    description = (
        "Outcome forecasting MCQ with calibration error; nothing after the cutoff is visible."
    )
    calls = AGENT_CALLS

    def questions(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]:
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


# T5's evaluation prompt (evaluation/infer_gpt.py), the question after it.
T5_PROMPT = "Pick the best answer. Reply with exactly one letter: A, B, C, D, or E.\n\n{question}"


def t5_forecast(path: Path) -> list[Instance]:
    items = records(path, read_json(path), Conversation)
    unique_ids(path, [e.id for e in items])
    out = []
    for i, e in enumerate(items):
        if "start_bbox" in e.extra():
            raise DataFormatError(f"{path.name}: item {i} has a start_bbox: a T8 goal-QA item")
        question = strip_media_tag(e.question)
        options, gold = mcq(path, f"item {i}", question, e.answer)
        kind = re.match(r"(Q\d+)", e.id)
        out.append(
            Instance(
                e.id,
                sport_of(path.name, e.video),
                T5_PROMPT.format(question=question),
                gold,
                {
                    "video_refs": [e.video],
                    "options": options,
                    "question_type": kind.group(1) if kind else "unknown",
                },
            )
        )
    return out


class T5Published(FileMCQ):
    name = "t5"
    description = "Outcome forecasting MCQ about a published observation segment."

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        return {
            **super().score(records),
            "calibration_error": None,
            "calibration_note": "needs each option's probability (the reference reads log-probs "
            "of the option letters); replies here are letters only",
        }


T5 = declare(
    "t5",
    metric="accuracy; calibration error where option probabilities are known",
    generated=T5Task,
    published=(
        Format(
            "T5 forecasting JSON",
            "[{id, conversations [human: <video> question with A-E, gpt: letter], video}]",
            f"{SVI}/t5_outcome_forecasting/dataset/*_test.json",
            t5_forecast,
            T5Published,
            example="`T5/<sport>_test.json`",
        ),
    ),
)
