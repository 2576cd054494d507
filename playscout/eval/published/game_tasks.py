"""T4, T6, T7 and T9 on their published data.

T4 and T6 items name games. A game in the corpus is asked through the agent over that game
alone: its clips and, by question type, its statistics (never its report, which the answers
derive from; never another game). A game not in the corpus is asked about its full-game video
file, as the paper's models are. A game in neither is missing_input, never answered from
another game. T4's routing by question type is T4_TOOLS."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from playscout.eval.errors import RunError
from playscout.eval.guard import BackendView
from playscout.eval.judges.criteria import CriteriaJudge
from playscout.eval.judges.rubric import ANSWER_PROMPT
from playscout.eval.metrics import mean, mean_video_miou, video_miou
from playscout.eval.published import svi
from playscout.eval.published.formats import SVI, Format
from playscout.eval.published.media import find, media_root
from playscout.eval.published.routes import ask_video_files, require_vlm
from playscout.eval.published.svi import tracks
from playscout.eval.published.task import Needs, PublishedTask
from playscout.eval.records import Outcome, ResultRow
from playscout.eval.registry import declare
from playscout.eval.tasks.games import T4Task, T6Task, best_of_k_answers, t4_scores
from playscout.eval.tasks.generation import T7Task, linear_prediction
from playscout.eval.tasks.t9 import T9Task
from playscout.eval.tasks.task import Instance, TaskEnv, run_agent, tool_subset

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
REPORT = "espn_report"


def games_view(game_ids: set[str]) -> BackendView:
    """Only these games' clips and documents, without their reports."""
    return BackendView(
        hide_doc=lambda d: d.game_id not in game_ids or d.doc_type == REPORT,
        hide_clip=lambda c: c.game_id not in game_ids,
    )


def _in_corpus(env: TaskEnv, sport: str, game_ids: list[str]) -> bool:
    corpus = env.corpus
    if corpus is None or not game_ids or sport not in corpus.sports():
        return False
    return all(g in corpus.games(sport) for g in game_ids)


def _route_games(env: TaskEnv, inst: Instance, game_ids: list[str], data: Path) -> None:
    """Corpus route when every game is in the corpus, else the video files, else missing."""
    if _in_corpus(env, inst.sport, game_ids):
        inst.meta["route"] = "corpus"
        return
    where = "no corpus given" if env.corpus is None else f"not in the corpus ({inst.sport})"
    games = ", ".join(game_ids) or "(no game id)"
    if env.mode == "oracle":
        inst.missing = f"game {games} {where}; oracle mode has no captions for a video file"
        return
    root = media_root(data, env.media)
    refs = inst.meta.get("video_refs") or []
    found = [find(str(r), root) for r in refs]
    if refs and all(found):
        inst.meta["videos"] = [str(p) for p in found]
        inst.meta["route"] = "video file"
        return
    absent = next((r for r, p in zip(refs, found, strict=True) if p is None), None)
    video = f"its video {absent!r} is not under {root}" if absent else "it names no video"
    inst.missing = f"game {games} {where} and {video}"


def _check_agent(env: TaskEnv, task: str) -> None:
    if env.corpus is not None and env.policy == "llm" and env.client is None:
        raise RunError(
            f"{task} over a corpus runs the agent: pass --llm-url/--llm-model, or --policy workflow"
        )
    if env.mode == "default" and env.models.vlm is None:
        require_vlm(env, task, "looks at game video (video_qa or the video file)")


class T4Published(PublishedTask):
    name = "t4"
    description = "Strategic reasoning QA (qa.json): by game id and question type, 0-5, best of k."
    needs = Needs(
        videos="optional",
        vlm=True,
        corpus="optional",
        judge="Fig. 32 0-5 rubric judge (eval.judge), best of k; text fallback without",
    )

    def check(self, env: TaskEnv) -> None:
        _check_agent(env, self.name)

    def resolve(self, items: list[Instance], env: TaskEnv) -> None:
        assert self.data is not None
        for inst in items:
            if not inst.missing:
                _route_games(env, inst, [str(inst.meta["game_id"])], self.data.path)

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


class T6Published(PublishedTask):
    name = "t6"
    description = (
        "Long-form report of one or more games (sample folders): saliency and writing 1-5."
    )
    needs = Needs(
        videos="optional",
        vlm=True,
        corpus="optional",
        judge="coverage (Fig. 37) and writing (Fig. 38) judges (eval.judge); "
        "text fallback for coverage, writing unjudged without",
    )

    def check(self, env: TaskEnv) -> None:
        _check_agent(env, self.name)

    def resolve(self, items: list[Instance], env: TaskEnv) -> None:
        assert self.data is not None
        for inst in items:
            _route_games(env, inst, list(inst.meta["game_ids"]), self.data.path)

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        if inst.meta.get("route") == "video file":
            rec = await ask_video_files(env, inst, inst.prompt, trajectory)
        else:
            ctx = env.ctx(inst.sport, games_view(set(inst.meta["game_ids"])))
            rec = (await run_agent(env, ctx, inst.prompt, trajectory)).updated(route="corpus")
        judge = CriteriaJudge(env.judge)
        covered = await judge.coverage(inst.sport, inst.gold or [], rec.answer)
        style = await judge.writing(inst.prompt, rec.answer)
        return rec.updated(
            saliency=covered[0] / covered[1] if covered and covered[1] else None,
            style=style,
            judge=judge.name,
        )

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        return {
            "saliency": mean([r.saliency for r in records if r.saliency is not None]),
            "style": mean([r.style for r in records if r.style is not None]),
            "saliency_unjudged": sum(r.saliency is None for r in records),
            "style_unjudged": sum(r.style is None for r in records),
            "per_setting": {
                s: mean(
                    [
                        r.saliency
                        for r in records
                        if r.meta.get("setting") == s and r.saliency is not None
                    ]
                )
                for s in sorted({str(r.meta.get("setting")) for r in records})
            },
            "factual_accuracy": None,
            "factual_note": "the Fig. 36 fact-check judge is not implemented for published T6",
        }


class T7Published(PublishedTask):
    name = "t7"
    description = "Motion-conditioned generation metric: video mIoU against published box tracks."
    needs = Needs(judge="video mIoU of tracks")
    stand_in = (
        "real tracks from the data; the prediction is a straight-line interpolation between each "
        "track's first and last box (no video generator or tracker in this stack)"
    )

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        gold = tracks(inst.gold)
        scored = video_miou(gold, linear_prediction(gold))  # None: nothing matched (failed)
        miou = scored.miou if scored is not None else None
        return Outcome(
            answer=f"mIoU {miou:.3f}" if miou is not None else "mIoU failed (no track matched)",
            status="answered",
            miou=miou,
            turns=0,
            note=self.stand_in,
        )

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        answered = [r.miou for r in records if r.status == "answered"]
        return {**mean_video_miou(answered), "note": self.stand_in}


class T9Published(PublishedTask):
    name = "t9"
    description = "Cross-corpus agentic QA on a questions file over the corpus; judged answers."
    needs = Needs(corpus="required", judge="eval judge (LLM Fig. 42, or deterministic equivalence)")
    judged = True
    calls = T9Task.calls  # the agent: preflight checks its model, the mode's index channels

    def resolve(self, items: list[Instance], env: TaskEnv) -> None:
        if env.corpus is None:
            return
        sports = env.corpus.sports()
        for inst in items:
            if inst.sport not in sports:
                inst.missing = f"sport {inst.sport!r} is not in the corpus ({', '.join(sports)})"

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        return await T9Task().route(inst, env, trajectory)

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        return T9Task().score(records)


T4 = declare(
    "t4",
    metric="0-5 rubric score, best of k; per sport and question type",
    generated=T4Task,
    published=(
        Format(
            "T4 qa.json",
            "[{league, game_id, question_type, question, answer, video_path}]",
            f"{SVI}/t4_strategic_reasoning_qa/dataset/qa.json",
            svi.t4_questions,
            T4Published,
            example="`T4/qa.json` (1,000) or `qa_subset.json`",
        ),
    ),
)
T6 = declare(
    "t6",
    metric="saliency (reference facts covered) and writing quality 1-5",
    generated=T6Task,
    published=(
        Format(
            "T6 sample folders",
            "<sport>/{single,multi}_game/Q*/<id>/{prompt.txt, metadata.json, "
            "stats.txt, log.txt, ground_truth_report.txt, coverage_facts.txt}",
            f"{SVI}/t6_long_form_narrative_synthesis/README.md",
            svi.t6_samples,
            T6Published,
            kind="folder",
            example="a `T6/` folder (or any folder of sample folders)",
        ),
    ),
)
T7 = declare(
    "t7",
    metric="video mIoU of box tracks",
    generated=T7Task,
    published=(
        Format(
            "T7 MOT track files",
            "frame,track,x1,y1,x2,y2,conf,-1,-1,-1 (normalised), one file per clip",
            "SVI-Bench T7 bboxes/ (docs/published-data.md)",
            svi.t7_tracks,
            T7Published,
            kind="folder",
            example="a folder of track files",
        ),
        Format(
            "T7 MOT track file",
            "frame,track,x1,y1,x2,y2,conf,-1,-1,-1 (normalised)",
            "SVI-Bench T7 bboxes/ (docs/published-data.md)",
            svi.t7_tracks,
            T7Published,
            kind=".txt",
            example="one track file",
        ),
    ),
)
T9 = declare(
    "t9",
    metric="answers judged correct by `eval judge` (LLM or deterministic equivalence)",
    generated=T9Task,
    published=(
        Format(
            "T9 questions JSON",
            "questions/{sport}.json: [{id, question, answer}]",
            "SVI-Bench T9 release layout (docs/published-data.md)",
            svi.t9_questions,
            T9Published,
            example="`questions/{sport}.json`",
        ),
    ),
)
