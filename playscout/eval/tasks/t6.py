"""T6 long-form narrative synthesis: a report of one or more games. On the synthetic corpus
(T6Task) the target report is hidden and the report is scored deterministically (stat claims
checked against the box score, key facts covered, a style heuristic). On the published sample
folders (T6Published) items name games (tasks/games.py) and the coverage and writing judges
score the report (judging/criteria.py)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from playscout.corpus.sports import sport as sport_record
from playscout.eval.errors import DataFormatError
from playscout.eval.judging.criteria import CriteriaJudge
from playscout.eval.judging.metrics import mean
from playscout.eval.judging.text import normalise
from playscout.eval.storage.records import Outcome, ResultRow
from playscout.eval.tasks.games import (
    GameFacts,
    check_agent,
    games,
    games_view,
    load_game,
    route_games,
)
from playscout.eval.tasks.guard import BackendView
from playscout.eval.tasks.reading import read_json, read_text
from playscout.eval.tasks.registry import declare
from playscout.eval.tasks.routes import run_agent
from playscout.eval.tasks.svi import SVI, sport_of
from playscout.eval.tasks.task import AGENT_CALLS, Format, Instance, Needs, Task, TaskEnv
from playscout.eval.tasks.video_files import ask_video_files

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


class T6Task(Task):
    name = "t6"
    description = (
        "Game report writing: factual accuracy, saliency coverage, style 1-5; target report hidden."
    )
    calls = AGENT_CALLS
    target_words = 200

    def questions(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]:
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


def t6_samples(folder: Path) -> list[Instance]:
    """T6/<sport>/{single_game,multi_game}/Q*/<id>/ folders (or one of them): prompt.txt,
    metadata.json, stats.txt, log.txt, ground_truth_report.txt, coverage_facts.txt (test)."""
    if not folder.is_dir():
        raise DataFormatError(f"{folder}: T6 data is a folder of sample folders, not a file")
    samples = sorted(p.parent for p in folder.rglob("prompt.txt"))
    if not samples:
        raise DataFormatError(f"{folder.name}: no sample folder (none has a prompt.txt)")
    return [_t6_sample(folder, s) for s in samples]


def _t6_sample(root: Path, sample: Path) -> Instance:
    where = sample.relative_to(root.parent)
    meta_file = sample / "metadata.json"
    metadata = read_json(meta_file) if meta_file.is_file() else {}
    if not isinstance(metadata, dict):
        raise DataFormatError(f"{where}/metadata.json: expected a JSON object")
    for name in ("ground_truth_report.txt",):
        if not (sample / name).is_file():
            raise DataFormatError(f"{where}: no {name}")
    game_ids = metadata.get("game_ids") or (
        [metadata["game_id"]] if metadata.get("game_id") is not None else []
    )
    videos = metadata.get("video_paths") or (
        [metadata["video_path"]] if metadata.get("video_path") else []
    )
    facts_file = sample / "coverage_facts.txt"
    facts = (
        [ln.strip() for ln in read_text(facts_file).splitlines() if ln.strip()]
        if facts_file.is_file()
        else None
    )
    setting = next((p for p in sample.parts if p in ("single_game", "multi_game")), "single_game")
    template = next((p for p in sample.parts if re.fullmatch(r"Q\d+", p)), "Q?")
    instruction = _resolve_placeholders(read_text(sample / "prompt.txt").strip(), metadata)
    return Instance(
        f"t6_{setting}_{template}_{sample.name}",
        sport_of(*sample.parts),
        instruction,
        facts,
        {
            "game_ids": [str(g) for g in game_ids],
            "video_refs": [str(v) for v in videos],
            "setting": setting,
            "template": template,
            "reference": read_text(sample / "ground_truth_report.txt"),
            "stats": read_text(sample / "stats.txt") if (sample / "stats.txt").is_file() else None,
        },
    )


def _resolve_placeholders(text: str, metadata: dict[str, Any]) -> str:
    """prompt.txt's {player}, {title}, ... filled from metadata.json, as eval_writing.py does."""
    keys = {
        "player": "selected_player",
        "title": "title",
        "attribute": "attribute",
        "timeframe": "timeframe",
        "event_description": "event_description",
    }
    for placeholder, key in keys.items():
        if metadata.get(key) is not None:
            text = text.replace("{" + placeholder + "}", str(metadata[key]))
    return text


class T6Published(Task):
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
        check_agent(env, self.name)

    def resolve(self, items: list[Instance], env: TaskEnv) -> None:
        assert self.data is not None
        for inst in items:
            route_games(env, inst, list(inst.meta["game_ids"]), self.data.path)

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
            t6_samples,
            T6Published,
            kind="folder",
            example="a `T6/` folder (or any folder of sample folders)",
        ),
    ),
)
