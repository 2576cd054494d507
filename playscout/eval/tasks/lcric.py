"""LCric: count queries over a match, binary, multiple choice (a count 0-9) and regression (a
total), scored by accuracy and L1. On the synthetic corpus (LCricTask) the queries count
play-by-play events and are asked through the agent; on the paper's query files
(LCricPublished; no public file, the format is written from the paper's §4.3) the match video
goes to the VLM."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import model_validator

from playscout.eval.judging.metrics import accuracy, mean_abs_error
from playscout.eval.judging.text import numbers
from playscout.eval.storage.records import Outcome, ResultRow
from playscout.eval.tasks.games import games
from playscout.eval.tasks.options import pick_option, render_options
from playscout.eval.tasks.reading import NonEmpty, Record, Text, read_json, records, unique_ids
from playscout.eval.tasks.registry import declare
from playscout.eval.tasks.routes import run_agent
from playscout.eval.tasks.synthetic import rng_for
from playscout.eval.tasks.task import AGENT_CALLS, Format, Instance, Needs, Task, TaskEnv
from playscout.eval.tasks.video_files import FileTask, ask_video_files


class LcricQuery(Record):
    """An LCric query over a clip (the LCric paper §4.3; docs/published-data.md): binary,
    multiple choice (a count 0-9) or regression (total runs)."""

    id: Text
    video: NonEmpty
    kind: Literal["binary", "multiple", "regression"]
    query: NonEmpty
    answer: bool | int | float | str

    @model_validator(mode="after")
    def _answer_fits_kind(self) -> LcricQuery:
        a = self.answer
        if self.kind == "binary" and not (
            isinstance(a, bool) or str(a).strip().lower() in ("true", "false", "yes", "no")
        ):
            raise ValueError(f"binary answer {a!r} is not yes/no/true/false")
        if self.kind != "binary":
            try:
                value = float(a)
            except (TypeError, ValueError):
                raise ValueError(f"{self.kind} answer {a!r} is not a number") from None
            if self.kind == "multiple" and not (value.is_integer() and 0 <= value <= 9):
                raise ValueError(f"multiple-choice answer {a!r} is not a count 0-9")
        return self


def _lcric_gold(kind: str, answer: Any) -> bool | int | float:
    if kind == "binary":
        return (
            answer if isinstance(answer, bool) else str(answer).strip().lower() in ("true", "yes")
        )
    return int(float(answer)) if kind == "multiple" else float(answer)


def lcric_queries(path: Path) -> list[Instance]:
    items = records(path, read_json(path), LcricQuery, "query")
    unique_ids(path, [e.id for e in items])
    return [
        Instance(
            e.id,
            "cricket",
            e.query,
            _lcric_gold(e.kind, e.answer),
            {"kind": e.kind, "video_refs": [e.video]},
        )
        for e in items
    ]


_YES = re.compile(r"\b(yes|true)\b", re.I)
_NO = re.compile(r"\b(no|false)\b", re.I)


def lcric_prediction(kind: str, answer: str | None, prompt: str) -> bool | int | float | None:
    """What an answer says: yes/no (binary), a count, as an option letter when the prompt lists
    options (multiple), or a total (regression); None when it says none."""
    ans = answer or ""
    if kind == "binary":
        return True if _YES.search(ans) else False if _NO.search(ans) else None
    nums = numbers(ans)
    if kind == "multiple":
        letter = pick_option(ans, [str(i) for i in range(5)]) if "A:" in prompt else None
        return letter if letter is not None else (int(nums[0]) if nums else None)
    return nums[0] if nums else None


class LCricTask(Task):
    name = "lcric"
    description = (
        "LCric-style count queries over play-by-play: binary, multiple choice, regression."
    )
    calls = AGENT_CALLS

    def questions(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]:
        out: list[Instance] = []
        for sport in sports:
            for g in games(env.need_corpus(), sport, limit or 2):
                p1 = [e for e in g.events if e.get("period") == 1]
                kinds = sorted({str(e.get("type")) for e in p1})
                if not kinds:
                    continue
                kind = kinds[rng_for(g.game_id, "lcric").randrange(len(kinds))]
                n = sum(str(e.get("type")) == kind for e in p1)
                lo = max(1, n - 1)
                where = f"in period 1 of {g.label()}"
                out.append(
                    Instance(
                        f"lcric_bin_{g.game_id}",
                        sport,
                        f"Did '{kind}' happen at least {lo} times {where}? Answer yes or no.",
                        True,
                        {"kind": "binary"},
                    )
                )
                opts = [str(i) for i in range(10)]
                out.append(
                    Instance(
                        f"lcric_mc_{g.game_id}",
                        sport,
                        f"How many times did '{kind}' happen {where}?\n{render_options(opts[:5])}"
                        if n < 5
                        else f"How many times did '{kind}' happen {where}? Answer with a number 0-9.",
                        min(n, 9),
                        {"kind": "multiple"},
                    )
                )
                out.append(
                    Instance(
                        f"lcric_reg_{g.game_id}",
                        sport,
                        f"How many points/goals were scored in total {where}? Answer with a number.",
                        float(sum(g.period_scores[0])),
                        {"kind": "regression"},
                    )
                )
        return out

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        rec = await run_agent(env, env.ctx(inst.sport), inst.prompt, trajectory)
        pred = lcric_prediction(inst.meta["kind"], rec.answer, inst.prompt)
        return rec.updated(pred=pred, correct=pred == inst.gold)

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        by = {
            k: [r for r in records if r.meta["kind"] == k]
            for k in ("binary", "multiple", "regression")
        }
        reg = [(float(r.pred), float(r.gold)) for r in by["regression"] if r.pred is not None]
        return {
            "binary_accuracy": accuracy([bool(r.correct) for r in by["binary"]]),
            "multiple_accuracy": accuracy([bool(r.correct) for r in by["multiple"]]),
            "regression_l1": mean_abs_error([p for p, _ in reg], [g for _, g in reg]),
            "regression_unparsed": len(by["regression"]) - len(reg),
        }


class LCricPublished(FileTask):
    name = "lcric"
    description = "LCric count queries over a match video: binary, multiple choice, regression."
    needs = Needs(videos="required", vlm=True, judge="exact answer (binary, count) and L1 (total)")

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        rec = await ask_video_files(env, inst, inst.prompt, trajectory)
        pred = lcric_prediction(inst.meta["kind"], rec.answer, inst.prompt)
        return rec.updated(pred=pred, correct=pred == inst.gold)

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        return LCricTask().score(records)


LCRIC = declare(
    "lcric",
    metric="binary and multiple-choice accuracy, regression L1",
    generated=LCricTask,
    published=(
        Format(
            "LCric queries",
            "[{id, video, kind: binary|multiple|regression, query, answer}]",
            "ASAP/LCric paper §4.3 (query types); no public file",
            lcric_queries,
            LCricPublished,
            from_paper=True,
            example="a JSON list",
        ),
    ),
)
