"""The `workflow` policy: an offline, deterministic retrieve-then-read BASELINE. No LLM.

search_documents(question) -> the top hit's game -> search_videos(question, that game) (when
the tool set has no search_documents, search_videos(question) over what it offers) ->
video_qa(top 3 clips) when the tool set has it, else the best clip's metadata (its ground-truth
caption in oracle mode) -> the highest-confidence QA answer. It exists so the demo and the tests
run end to end without a model server; it is a baseline and says so in its output, never an
agent result to compare models against.

Ties are broken by evidence, never by id: clips with equal fused (RRF) scores are ordered by
their branch scores, each relative to its branch's best (the search breaks them by clip id),
and equal QA confidences keep that order. Clips still tied are reported in the evidence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from playscout.agent.tooling import recorded_call
from playscout.agent.trajectory import ErrorEvent, TrajectoryWriter
from playscout.tools.tool import Tool, ToolContext

BASELINE_NOTE = "workflow baseline (retrieve-then-read, no LLM)"
QA_CLIPS = 3


async def _step(
    tools: Mapping[str, Tool],
    ctx: ToolContext,
    writer: TrajectoryWriter,
    turn: int,
    name: str,
    args: dict[str, Any],
) -> tuple[Any, dict[str, Any], str | None]:
    step = await recorded_call(writer, tools, ctx, turn, name, args)
    return step.result.data, step.summary, step.result.error


def _confidence(answer: dict[str, Any]) -> float:
    try:
        return float(answer.get("confidence") or 0.0)
    except (TypeError, ValueError):
        return 0.0


def _relative(values: list[float | None]) -> list[float]:
    """Each branch score as a share of the best one (0 where the branch missed the hit)."""
    top = max((v for v in values if v is not None), default=0.0)
    return [(v / top if top > 0 and v is not None else 0.0) for v in values]


def rank_clips(hits: Sequence[Any]) -> tuple[list[str], list[list[str]]]:
    """(clip ids best first, groups of clips tied on every score). Order: the score the search
    ranked by, then the sum of the BM25 and dense scores each relative to its best hit."""
    bm25 = _relative([h.scores.bm25 for h in hits])
    dense = _relative([h.scores.dense for h in hits])
    keyed = [
        ((-(h.score or 0.0), -(b + d)), h.clip_id)
        for h, b, d in zip(hits, bm25, dense, strict=True)
    ]
    keyed.sort(key=lambda kv: kv[0])  # stable: a full tie keeps the search's order
    groups: dict[tuple[float, float], list[str]] = {}
    for key, clip in keyed:
        groups.setdefault(key, []).append(clip)
    return [c for _, c in keyed], [g for g in groups.values() if len(g) > 1]


async def run_workflow(
    question: str, ctx: ToolContext, tools: Mapping[str, Tool], writer: TrajectoryWriter
) -> dict[str, Any]:
    """Returns {answer, status, evidence, turns}; every step is a trajectory event."""
    evidence: dict[str, list[str]] = {"doc_ids": [], "clip_ids": [], "qa": []}
    turn = 1
    video_args: dict[str, Any] = {"query": question}
    if "search_documents" in tools:  # else the clips are searched as offered (one game's, T4)
        docs, summary, error = await _step(
            tools, ctx, writer, turn, "search_documents", {"query": question}
        )
        evidence["doc_ids"] = summary.get("doc_ids", [])
        hits = getattr(docs, "hits", [])
        game = next((h.record.game_id for h in hits if h.record.game_id), None)
        if game is None:
            writer.emit(ErrorEvent, turn=turn, kind="workflow", message=error or "no game found")
            return {"answer": None, "status": "no_answer", "evidence": evidence, "turns": turn}
        video_args["game_ids"] = [game]
        turn += 1
    clips, summary, error = await _step(tools, ctx, writer, turn, "search_videos", video_args)
    clip_hits = getattr(clips, "hits", None)
    clip_ids, tied = rank_clips(clip_hits) if clip_hits else (list(summary.get("clip_ids", [])), [])
    evidence["clip_ids"] = clip_ids
    if tied:
        evidence["ties"] = [" = ".join(g) for g in tied]
    if not clip_ids:
        writer.emit(ErrorEvent, turn=turn, kind="workflow", message=error or "no clips found")
        return {"answer": None, "status": "no_answer", "evidence": evidence, "turns": turn}
    qa_tool = next((n for n in ("video_qa", "video_qa_oracle") if n in tools), None)
    if qa_tool is not None:  # the paper preset's oracle runs name it video_qa_oracle
        turn += 1
        _, summary, error = await _step(
            tools,
            ctx,
            writer,
            turn,
            qa_tool,
            {"video_ids": clip_ids[:QA_CLIPS], "query": question},
        )
        answers = summary.get("answers", [])
        evidence["qa"] = [f"{a['id']}: {a.get('answer')} ({a.get('confidence')})" for a in answers]
        usable = [a for a in answers if a.get("answer")]
        if usable:
            best = max(usable, key=_confidence)  # the first of equals: the best-ranked clip
            same = [a["id"] for a in usable if _confidence(a) == _confidence(best)]
            if len(same) > 1:
                evidence.setdefault("ties", []).append(
                    f"video_qa confidence {_confidence(best)}: " + " = ".join(same)
                )
            return {
                "answer": str(best["answer"]),
                "status": "answered",
                "evidence": evidence,
                "turns": turn,
            }
        writer.emit(
            ErrorEvent, turn=turn, kind="workflow", message=error or f"{qa_tool} gave no answer"
        )
        return {"answer": None, "status": "no_answer", "evidence": evidence, "turns": turn}
    best = clip_ids[0]
    if ctx.mode == "oracle":
        record = ctx.backend.get_clips(ctx.sport, [best], include_caption=True)[0]
        if record is not None and record.caption:
            evidence["qa"] = [f"{best}: caption of the best clip (no video_qa tool)"]
            return {
                "answer": record.caption,
                "status": "answered",
                "evidence": evidence,
                "turns": turn,
            }
    writer.emit(
        ErrorEvent,
        turn=turn,
        kind="workflow",
        message=f"no video_qa tool and no caption in {ctx.mode} mode; best clip {best}",
    )
    return {"answer": None, "status": "no_answer", "evidence": evidence, "turns": turn}
