"""The `workflow` policy: an offline, deterministic BASELINE that reads what the question asks
for. No LLM, and never presented as the paper's agent.

1. Route (agent/policies/route.py): documents for scores, winners, leaders, records and box-score
   counts; clips for plays, moments and visual detail; both when the question spans them.
2. Find the game: a T9-style question names it through facts ("In the game where X had 8
   assists and ..."), so each fact is searched (search_documents) and read (document_qa), and
   the game whose documents support the facts best wins; any other question takes the game of
   its first search's top document (narrowed to the date it names).
3. Read: document_qa over that game's documents of the kind asked (box score, team stats,
   report), and/or search_videos in that game (narrowed to the period and player it names) and
   video_qa over the top clips.
4. Answer with the part asked for (agent/policies/reading.py) and its source (doc or clip id), or
   say plainly what was searched and why nothing answers it: the answer is never empty.

With no QA model configured, document_qa and video_qa (oracle) answer with their extractive
readers (tools/readers.py), which say so. It exists so the demo, the OpenAI facade without a
model server, and the tests run end to end.

Ties are broken by evidence, never by id: clips with equal fused (RRF) scores are ordered by
their branch scores, each relative to its branch's best (the search breaks them by clip id),
and equal QA confidences keep that order. Clips still tied are reported in the evidence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from playscout.agent.policies.reading import short_answer, support
from playscout.agent.policies.route import Route, route_question
from playscout.agent.tooling import recorded_call
from playscout.agent.trajectory import ErrorEvent, TrajectoryWriter
from playscout.corpus.boxscore import stat_rows
from playscout.tools.readers import NO_EVIDENCE
from playscout.tools.tool import Tool, ToolContext

BASELINE_NOTE = (
    "workflow baseline (routes the question to documents and/or clips, extractive readers, no LLM)"
)
QA_CLIPS = 3  # clips video_qa reads
QA_DOCS = 3  # documents document_qa reads for the answer
FACT_DOCS = 5  # documents read per game-identifying fact
MAX_FACTS = 3
OPEN_MIN_CONFIDENCE = 0.5  # an open question reads clips when the documents' best is weaker
# The documents that hold each kind of answer (None: whatever the search ranks first).
DOC_TYPES: dict[str, list[str] | None] = {
    "leader": ["game_stat_player", "season_stat_player"],
    "stat": ["game_stat_player", "season_stat_player"],
    "score": ["game_stat_team"],
    "winner": ["game_stat_team"],
    "record": ["espn_report", "season_stat_team"],
    "fact": None,
    "play": None,
}
# What document_qa is asked, when the question's own words would not pick the rows it needs.
READER_QUERY = {"score": "final score", "winner": "final score"}


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


@dataclass
class Found:
    """An answer and where it was read."""

    answer: str
    source: str  # doc or clip id
    tool: str
    passage: str
    confidence: float


def _usable(answers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [a for a in answers if a.get("answer") and a.get("answer") != NO_EVIDENCE]


def _best(answers: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The most confident answer; the first of equals (the best-ranked document or clip)."""
    usable = _usable(answers)
    return max(usable, key=_confidence) if usable else None


class _Run:
    """One question's tool calls (each a trajectory event), evidence and reasons."""

    def __init__(
        self, question: str, ctx: ToolContext, tools: Mapping[str, Tool], writer: TrajectoryWriter
    ) -> None:
        self.question, self.ctx, self.tools, self.writer = question, ctx, tools, writer
        self.turn = 0
        self.doc_ids: list[str] = []
        self.clip_ids: list[str] = []
        self.qa: list[str] = []
        self.ties: list[str] = []
        self.teams: set[str] = set()
        self.misses: list[str] = []  # why a step found nothing, said in the no-answer reply

    async def call(self, name: str, args: dict[str, Any]) -> tuple[Any, dict[str, Any], str | None]:
        self.turn += 1
        step = await recorded_call(self.writer, self.tools, self.ctx, self.turn, name, args)
        return step.result.data, step.summary, step.result.error

    def miss(self, why: str) -> None:
        self.misses.append(why)
        self.writer.emit(ErrorEvent, turn=self.turn, kind="workflow", message=why)

    def _note_docs(self, hits: Sequence[Any]) -> None:
        for h in hits:
            for team in (h.record.home_team, h.record.away_team, *h.record.teams):
                if team:
                    self.teams.add(team)

    def _qa_lines(self, tool: str, answers: list[dict[str, Any]]) -> None:
        self.qa += [f"{tool} {a['id']}: {a.get('answer')} ({a.get('confidence')})" for a in answers]

    # ---------------------------------------------------------------- the game

    async def search_documents(self, args: dict[str, Any]) -> list[Any]:
        data, _, error = await self.call("search_documents", args)
        hits = list(getattr(data, "hits", []))
        if error:
            self.miss(f"search_documents failed: {error}")
        self._note_docs(hits)
        self.doc_ids += [h.doc_id for h in hits if h.doc_id not in self.doc_ids]
        return hits

    def lead_with(self, game: str) -> None:
        """The chosen game's documents first in the evidence, each list's order kept."""
        ours = [d for d in self.doc_ids if d.startswith(f"{game}_")]
        self.doc_ids = ours + [d for d in self.doc_ids if d not in ours]

    async def find_game(self, route: Route) -> tuple[str | None, list[Any]]:
        """(the game, the first search's hits)."""
        if route.facts and "document_qa" in self.tools:
            return await self._game_from_facts(route), []
        args: dict[str, Any] = {"query": self.question}
        if route.date:
            args["date"] = route.date
        hits = await self.search_documents(args)
        game = next((h.record.game_id for h in hits if h.record.game_id), None)
        if not hits:
            self.miss("search_documents found no document for the question")
        return game, hits

    async def _game_from_facts(self, route: Route) -> str | None:
        """The game whose documents support the question's facts best (ties: the earlier in
        the searches' ranking)."""
        score: dict[str, float] = {}
        order: list[str] = []
        for fact in route.facts[:MAX_FACTS]:
            args: dict[str, Any] = {"query": fact}
            if route.date:
                args["date"] = route.date
            hits = [h for h in await self.search_documents(args) if h.record.game_id][:FACT_DOCS]
            if not hits:
                continue
            game_of = {h.doc_id: h.record.game_id for h in hits}
            order += [g for g in game_of.values() if g not in order]
            _, summary, _ = await self.call(
                "document_qa", {"doc_ids": list(game_of), "query": fact}
            )
            best: dict[str, float] = {}
            for a in summary.get("answers", []):
                game = game_of.get(str(a["id"]))
                if game is not None:
                    best[game] = max(best.get(game, 0.0), support(fact, str(a.get("answer") or "")))
            for game, value in best.items():
                score[game] = score.get(game, 0.0) + value
        if not order:
            self.miss("search_documents found no game for the question's facts")
            return None
        game = max(order, key=lambda g: (score.get(g, 0.0), -order.index(g)))
        self.lead_with(game)
        self.qa.append(
            f"game {game}: supports {score.get(game, 0.0):.2f} of {len(route.facts[:MAX_FACTS])} "
            "facts (document_qa over each fact's top documents)"
        )
        return game

    # ---------------------------------------------------------------- reading

    async def read_documents(self, route: Route, game: str | None, hits: list[Any]) -> Found | None:
        if "document_qa" not in self.tools:
            self.miss("document_qa is not offered to this run")
            return None
        ids: list[str] = []
        if game is not None:
            args: dict[str, Any] = {"query": route.tail, "game_ids": [game]}
            kinds = DOC_TYPES.get(route.ask)
            found = await self.search_documents({**args, "doc_type": kinds} if kinds else args)
            if not found and kinds:  # the game has none of that kind (no report): any of its own
                found = await self.search_documents(args)
            ids = [h.doc_id for h in found]
        else:
            ids = [h.doc_id for h in hits]
        ids = ids[:QA_DOCS]
        if not ids:
            self.miss(f"no document of game {game} to read" if game else "no document to read")
            return None
        self.doc_ids = [*ids, *(d for d in self.doc_ids if d not in ids)]
        query = READER_QUERY.get(route.ask, route.tail)
        _, summary, error = await self.call("document_qa", {"doc_ids": ids, "query": query})
        answers = summary.get("answers", [])
        self._qa_lines("document_qa", answers)
        best = _best(answers)
        if best is None:
            self.miss(error or f"document_qa found nothing that answers it in {', '.join(ids)}")
            return None
        passage, more = str(best["answer"]), str(best.get("evidence") or "")
        answer = short_answer(route, passage, self.teams, more)
        # where the answer stands: the passage (a table's evidence is its rule), else the
        # reader's other best sentences, which start with it
        table = bool(stat_rows(passage))
        quoted = more if more and not table and answer not in passage else passage
        return Found(answer, str(best["id"]), "document_qa", quoted, _confidence(best))

    async def read_clips(self, route: Route, game: str | None) -> Found | None:
        args: dict[str, Any] = {"query": route.tail}
        if game is not None:
            args["game_ids"] = [game]
        narrowed = dict(args)
        if route.period is not None:
            narrowed["quarter"] = route.period
        players = [n for n in route.names if n not in self.teams]
        if players:
            narrowed["players"] = players[:1]
        clips, summary, error = await self.call("search_videos", narrowed)
        hits = getattr(clips, "hits", None)
        if not hits and narrowed != args:  # the filters the question gave found nothing
            clips, summary, error = await self.call("search_videos", args)
            hits = getattr(clips, "hits", None)
        clip_ids, tied = rank_clips(hits) if hits else (list(summary.get("clip_ids", [])), [])
        self.clip_ids = clip_ids
        self.ties += [" = ".join(g) for g in tied]
        if not clip_ids:
            where = f"game {game}" if game else "the index"
            self.miss(error or f"search_videos found no clips of {where}")
            return None
        qa_tool = next((n for n in ("video_qa", "video_qa_oracle") if n in self.tools), None)
        if qa_tool is None:  # no clip reader offered: the best clip's caption (oracle only)
            return self._caption(clip_ids[0])
        _, summary, error = await self.call(
            qa_tool, {"video_ids": clip_ids[:QA_CLIPS], "query": route.tail}
        )
        answers = summary.get("answers", [])
        self._qa_lines(qa_tool, answers)
        best = _best(answers)
        if best is None:
            self.miss(error or f"{qa_tool} gave no answer for {', '.join(clip_ids[:QA_CLIPS])}")
            return None
        same = [a["id"] for a in _usable(answers) if _confidence(a) == _confidence(best)]
        if len(same) > 1:
            self.ties.append(f"{qa_tool} confidence {_confidence(best)}: " + " = ".join(same))
        passage = str(best["answer"])
        return Found(
            short_answer(route, passage, self.teams),
            str(best["id"]),
            qa_tool,
            passage,
            _confidence(best),
        )

    def _caption(self, clip: str) -> Found | None:
        if self.ctx.mode == "oracle":
            record = self.ctx.backend.get_clips(self.ctx.sport, [clip], include_caption=True)[0]
            if record is not None and record.caption:
                return Found(record.caption, clip, "caption of the best clip", record.caption, 0.0)
        self.miss(f"no video_qa tool and no caption in {self.ctx.mode} mode; best clip {clip}")
        return None

    # ---------------------------------------------------------------- the reply

    def result(self, route: Route, found: list[Found]) -> dict[str, Any]:
        evidence: dict[str, list[str]] = {
            "route": [f"{'+'.join(route.needs)}: {route.why}"],
            "doc_ids": self.doc_ids,
            "clip_ids": self.clip_ids,
            "qa": self.qa,
        }
        if self.ties:
            evidence["ties"] = self.ties
        if found:
            evidence["source"] = [f"{f.source} ({f.tool}): {f.passage}" for f in found]
            sources = "; ".join(f"{f.source} ({f.tool})" for f in found)
            return {
                "answer": "; ".join(f.answer for f in found),
                "status": "answered",
                "evidence": evidence,
                "turns": self.turn,
                "note": f"{BASELINE_NOTE}; answer read from {sources}",
            }
        why = "; ".join(dict.fromkeys(self.misses)) or "nothing was searched"
        return {
            "answer": f"No answer: I found no evidence that answers this ({why}).",
            "status": "no_answer",
            "evidence": evidence,
            "turns": self.turn,
            "note": BASELINE_NOTE,
        }


async def run_workflow(
    question: str, ctx: ToolContext, tools: Mapping[str, Tool], writer: TrajectoryWriter
) -> dict[str, Any]:
    """Returns {answer, status, evidence, turns, note}; every step is a trajectory event. The
    answer is never empty: without evidence it says what was searched and why nothing fit."""
    route = route_question(question)
    run = _Run(question, ctx, tools, writer)
    game: str | None = None
    hits: list[Any] = []
    if "search_documents" in tools:  # else the clips are searched as offered (one game's, T4)
        game, hits = await run.find_game(route)
    found: list[Found] = []
    if route.documents and (game is not None or hits):
        doc = await run.read_documents(route, game, hits)
        if doc is not None:
            found.append(doc)
    weak = not found or found[0].confidence < OPEN_MIN_CONFIDENCE
    if route.clips and (not route.open or weak):
        if game is None and hits:  # season documents only: no game to look in
            run.miss("the documents found name no game whose clips to search")
        elif (clip := await run.read_clips(route, game)) is not None:
            found = [clip] if route.open else [*found, clip]
    return run.result(route, found)
