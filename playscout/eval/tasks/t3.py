"""T3 compositional retrieval: rank a query's positive clip within its candidate pool with
search_videos, scored by R@K and MedR. On the synthetic corpus (T3Task) the pool is drawn from
the corpus' clips; on the published annotation files (T3Published) the pool must be clips of
the index (its file stems are clip ids), else the query is missing_input."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import model_validator

from playscout.eval.judging.metrics import retrieval_metrics, zero_based_rank
from playscout.eval.storage.records import Outcome, ResultRow
from playscout.eval.tasks.reading import NonEmpty, Record, read_json, records
from playscout.eval.tasks.registry import declare
from playscout.eval.tasks.routes import direct_call
from playscout.eval.tasks.svi import sport_of
from playscout.eval.tasks.synthetic import clip_facts, rng_for
from playscout.eval.tasks.task import Format, Instance, Needs, Task, TaskEnv


class T3Task(Task):
    name = "t3"
    description = "Compositional clip retrieval: R@K over a candidate pool, via search_videos."
    calls = frozenset({"search_videos"})

    def questions(self, env: TaskEnv, sports: Sequence[str], limit: int | None) -> list[Instance]:
        out: list[Instance] = []
        pool_size = env.eval.retrieval_pool
        for sport in sports:
            facts = clip_facts(env.need_corpus(), sport)
            ids = [f.clip_id for f in facts]
            for f in facts[: limit or 10]:
                ev = f.events[0]
                attrs = ev.get("attributes") or {}
                parts = [str(ev.get("player") or ""), str(ev.get("type") or "")]
                parts += [str(v) for v in attrs.values() if isinstance(v, str)][:2]
                tier = sum(bool(p) for p in parts)
                rng = rng_for(f.clip_id, "t3")
                negatives = [i for i in ids if i != f.clip_id]
                rng.shuffle(negatives)
                pool = sorted([f.clip_id, *negatives[: pool_size - 1]])
                query = re.sub(
                    r"[^A-Za-z0-9\s]", " ", " ".join(p for p in parts if p)
                )  # see note in report
                out.append(
                    Instance(
                        f"t3_{f.clip_id}",
                        sport,
                        " ".join(query.split()),
                        f.clip_id,
                        {"pool": pool, "tier": tier},
                    )
                )
        return out

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        pool = inst.meta["pool"]
        ctx = env.ctx(inst.sport, video_top_k=min(1000, len(pool)), observation_clips=10)
        args = {"query": inst.prompt, "video_ids": pool}
        result, rec = await direct_call(env, ctx, "search_videos", args, trajectory)
        ranked = [h.clip_id for h in getattr(result.data, "hits", [])]
        rank = ranked.index(inst.gold) + 1 if inst.gold in ranked else None
        return rec.updated(answer=ranked[0] if ranked else None, rank=rank, pool_size=len(pool))

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        scored = [r for r in records if r.status != "error"]
        ranks = [zero_based_rank(r.rank, r.pool_size or 0) for r in scored]
        return {
            **retrieval_metrics(ranks),
            "not_retrieved": sum(r.rank is None for r in scored),
            "errors": len(records) - len(scored),
            "ranks": "0-based, as the reference (MedR 0 = the positive first)",
        }


class T3Entry(Record):
    """T3/data/<split>/<sport>_<split>.json entry (docs/reference.md §8)."""

    video: str | None = None
    image: str | None = None
    caption: NonEmpty
    is_positive: bool
    hn_bin: str | None = None

    @model_validator(mode="after")
    def _has_media(self) -> T3Entry:
        if not (self.video or self.image):
            raise ValueError("needs a video (or image) path")
        return self


def t3_queries(path: Path) -> list[Instance]:
    """One query per positive; the pool is every entry's video."""
    entries = records(path, read_json(path), T3Entry, "entry")
    pool = [str(e.video or e.image) for e in entries]
    return [
        Instance(
            f"t3_{i}",
            sport_of(path.name, pool[i]),
            e.caption,
            pool[i],
            {"pool_refs": pool, "hn_bin": e.hn_bin},
        )
        for i, e in enumerate(entries)
        if e.is_positive
    ]


class T3Published(Task):
    name = "t3"
    description = (
        "Compositional retrieval: R@K of a published query over its pool, via search_videos."
    )
    needs = Needs(corpus="required", judge="R@K over the pool")

    def resolve(self, items: list[Instance], env: TaskEnv) -> None:
        """A pool video is ranked only if it is a clip of the index (its file stem is the clip
        id); else the query is missing_input, never ranked over a smaller pool."""
        backend = env.runtime.require_backend()
        known: dict[tuple[str, str], bool] = {}
        for inst in items:
            ids = [Path(p).stem for p in inst.meta["pool_refs"]]
            unknown = [i for i in ids if not self._known(backend, inst.sport, i, known)]
            if unknown:
                inst.missing = (
                    f"{len(unknown)} of {len(ids)} pool videos are not clips of the index "
                    f"(first: {unknown[0]}); index the T3 pool as clips first"
                )
                continue
            inst.meta["pool"] = ids
            inst.gold = Path(str(inst.gold)).stem

    @staticmethod
    def _known(backend: Any, sport: str, clip_id: str, cache: dict[tuple[str, str], bool]) -> bool:
        if (sport, clip_id) not in cache:
            cache[(sport, clip_id)] = backend.get_clips(sport, [clip_id])[0] is not None
        return cache[(sport, clip_id)]

    async def route(self, inst: Instance, env: TaskEnv, trajectory: Path) -> Outcome:
        return await T3Task().route(inst, env, trajectory)

    def score(self, records: list[ResultRow]) -> dict[str, Any]:
        return {
            **T3Task().score(records),
            "per_hn_bin": dict(Counter(r.meta.get("hn_bin") for r in records)),
        }


T3 = declare(
    "t3",
    metric="R@K and MedR of the positive over its candidate pool",
    generated=T3Task,
    published=(
        Format(
            "T3 annotation JSON",
            "[{video|image, caption, is_positive, hn_bin}]",
            "SVI-Bench T3 data/{split}/<sport>_<split>.json (docs/published-data.md)",
            t3_queries,
            T3Published,
            example="`T3/data/<split>/<sport>_<split>.json`",
        ),
    ),
)
