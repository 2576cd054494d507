"""GameplayQA, STARBench and LCric on their data files: every item's videos go to the VLM in
one request (GameplayQA's multi-video items send all of them, each labelled, each cut to the
question's time window), with the benchmark's own prompt."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from playscout.eval.metrics import grouped_accuracy
from playscout.eval.published import external
from playscout.eval.published.formats import Format
from playscout.eval.published.routes import ask_video_files, first_letter, require_vlm
from playscout.eval.published.task import Needs, PublishedTask
from playscout.eval.records import Outcome, ResultRow
from playscout.eval.registry import declare
from playscout.eval.tasks.external import (
    GameplayQATask,
    LCricTask,
    STARBenchTask,
    lcric_prediction,
    rubric_summary,
    rubric_turns,
)
from playscout.eval.tasks.task import Instance, TaskEnv


class _FileTask(PublishedTask):
    needs = Needs(videos="required", vlm=True)

    def check(self, env: TaskEnv) -> None:
        require_vlm(env, self.name, "asks a VLM about each item's videos")


class GameplayQAPublished(_FileTask):
    name = "gameplayqa"
    description = (
        "GameplayQA MCQ (qa.csv or generator export): all of an item's videos, one request."
    )
    needs = Needs(
        videos="required", vlm=True, judge="option letter (the reference's options and order)"
    )

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        rec = await ask_video_files(env, inst, inst.prompt, trajectory)
        choice = first_letter(rec.answer, len(inst.meta["options"]))
        kind = inst.meta["option_kinds"][choice] if choice is not None else "no_choice"
        return rec.updated(choice=choice, correct=choice == inst.gold, chosen_kind=kind)

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        return {
            **GameplayQATask().score(records),
            "per_level": grouped_accuracy(
                [(r.meta.get("level"), bool(r.correct)) for r in records]
            ),
            "no_choice": sum(r.choice is None for r in records),
        }


class STARBenchPublished(_FileTask):
    name = "starbench"
    description = (
        "STARBench rubric items: each turn after the ideal history, criteria judged one by one."
    )
    needs = Needs(
        videos="required",
        vlm=True,
        judge="per-criterion judge (eval.judge); text fallback, penalties unchecked, without",
    )

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        async def ask(prompt: str) -> Outcome:
            return await ask_video_files(env, inst, prompt, trajectory)

        return await rubric_turns(env, inst, ask)

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        tasks = Counter(str(r.meta.get("task")) for r in records)
        per_task = {
            t: rubric_summary([r for r in records if str(r.meta.get("task")) == t])[
                "rubric_score_pct"
            ]
            for t in sorted(tasks)
        }
        return {**rubric_summary(records), "per_task": per_task}


class LCricPublished(_FileTask):
    name = "lcric"
    description = "LCric count queries over a match video: binary, multiple choice, regression."
    needs = Needs(videos="required", vlm=True, judge="exact answer (binary, count) and L1 (total)")

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        rec = await ask_video_files(env, inst, inst.prompt, trajectory)
        pred = lcric_prediction(inst.meta["kind"], rec.answer, inst.prompt)
        return rec.updated(pred=pred, correct=pred == inst.gold)

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        return LCricTask().score(records)


GAMEPLAYQA = declare(
    "gameplayqa",
    metric="accuracy per entity type and video count; wrong choices by distractor type",
    generated=GameplayQATask,
    published=(
        Format(
            "GameplayQA qa.csv",
            "id, question, correct_option, distractor_1..3(+_type), "
            "question_code, video_1..5_file_name, video_indices",
            "HATS-ICT/GameplayQA gameplayqa/data.py, questions.py",
            external.gameplayqa_csv,
            GameplayQAPublished,
            kind=".csv",
            example="`qa.csv`",
        ),
        Format(
            "GameplayQA generator export",
            "{instanceId, questions [{id, level, code, question, "
            "answer {option, start, end}, distractors [{type, option}], videoIndex, videoContext}]}",
            "wangyz1999/sync-video-label app/utils/questionGenerator/types.ts",
            external.gameplayqa_generator,
            GameplayQAPublished,
            example="the question generator's export",
        ),
    ),
)
STARBENCH = declare(
    "starbench",
    metric="weighted rubric score (%), penalties subtracted",
    generated=STARBenchTask,
    published=(
        Format(
            "STARBench items",
            "[{id, video, task, turns [{question, answer, rubric "
            "[{name, description, category, is_penalty}]}]}]",
            "STARBench paper App. B (question, answer and rubric JSON per item); no public file",
            external.starbench_items,
            STARBenchPublished,
            from_paper=True,
            example="a JSON list",
        ),
    ),
)
LCRIC = declare(
    "lcric",
    metric="binary and multiple-choice accuracy, regression L1",
    generated=LCricTask,
    published=(
        Format(
            "LCric queries",
            "[{id, video, kind: binary|multiple|regression, query, answer}]",
            "ASAP/LCric paper §4.3 (query types); no public file",
            external.lcric_queries,
            LCricPublished,
            from_paper=True,
            example="a JSON list",
        ),
    ),
)
