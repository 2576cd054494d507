"""Judging as a separate, re-runnable step over a run directory. Each verdict is appended to
judgements.jsonl keyed by (question id, judge) with a hash of what was judged, so re-running
only judges new or changed answers (and an all-cached run still leaves a complete file, unlike
the reference)."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from playscout.config import EvalSettings, TelemetrySettings
from playscout.eval.errors import RunError
from playscout.eval.judging.equivalence import EquivalenceJudge
from playscout.eval.judging.judge import Judge
from playscout.eval.judging.llm import LLMJudge
from playscout.eval.running.tracing import judge_span
from playscout.eval.storage.records import ResultRow
from playscout.eval.storage.store import judgements_store, load_results, require_run_dir


def judged_hash(row: ResultRow, instrument: str = "") -> str:
    """What a verdict depends on: a changed answer (or gold, or judge prompt) is judged again."""
    parts = (row.qid, row.question, row.gold, row.answer) + ((instrument,) if instrument else ())
    text = "|||".join(str(v) for v in parts)
    return hashlib.sha256(text.encode()).hexdigest()


def make_judge(
    kind: str,
    settings: EvalSettings | None = None,
    prompt: str = "fig42_question",
    aliases: Mapping[str, Mapping[str, str]] | None = None,
) -> Judge:
    """'equivalence' (with `aliases` per sport) | 'llm' (needs settings.judge configured;
    `prompt` is the preset's judge_prompt)."""
    settings = settings or EvalSettings()
    if kind == "equivalence":
        return EquivalenceJudge(aliases)
    if kind == "llm":
        if not settings.judge.configured:
            raise RunError(
                "the llm judge needs a model: set PLAYSCOUT_EVAL__JUDGE__BASE_URL and "
                "PLAYSCOUT_EVAL__JUDGE__MODEL, or use --judge equivalence"
            )
        from playscout.clients.chat import ChatParams
        from playscout.eval.running.cache import CachingChatClient, ResponseCache
        from playscout.runtime import chat_client

        client: Any = chat_client(settings.judge)
        if settings.cache_db is not None:
            client = CachingChatClient(client, ResponseCache(settings.cache_db))
        params = ChatParams.from_endpoint(settings.judge, max_tokens=settings.judge_max_tokens)
        return LLMJudge(client, params, prompt, settings.judge.model)
    raise RunError(f"unknown judge {kind!r}; use llm or equivalence")


async def judge_run_async(
    run_dir: Path,
    judge: Judge,
    concurrency: int = 16,
    tracer: Any = None,
    telemetry: TelemetrySettings | None = None,
) -> dict[str, int]:
    """`tracer`: each new verdict is also a `judge` span (eval/running/tracing.py)."""
    store = judgements_store(require_run_dir(run_dir))
    done = {k: r.get("hash") for k, r in store.latest().items()}
    rows = [r for r in load_results(run_dir) if r.judgeable]
    instrument = getattr(judge, "instrument", "")
    model = getattr(judge, "model", None)
    todo = [r for r in rows if done.get((r.qid, judge.name)) != judged_hash(r, instrument)]
    sem = asyncio.Semaphore(concurrency)

    async def one(row: ResultRow) -> None:
        async with sem:
            v = await judge.judge(row.question, str(row.gold), row.answer, row.sport)
        store.append(
            {
                "qid": row.qid,
                "judge": judge.name,
                "hash": judged_hash(row, instrument),
                "verdict": v.verdict,
                "reason": v.reason,
                "raw": v.raw,
                "model": model,
            }
        )
        judge_span(
            tracer,
            telemetry or TelemetrySettings(),
            run_dir.name,
            row,
            judge.name,
            v.verdict,
            v.reason,
        )

    await asyncio.gather(*(one(r) for r in todo))
    latest = [v for k, v in store.latest().items() if k[1] == judge.name]
    given = sum(v["verdict"] is not None and v.get("model") == model for v in latest)
    record_judge(run_dir, judge.name, getattr(judge, "prompt", None), model, given, len(rows))
    return {
        "judged_now": len(todo),
        "cached": len(rows) - len(todo),
        "right": sum(v["verdict"] == "right" for v in latest),
        "wrong": sum(v["verdict"] == "wrong" for v in latest),
        "unjudged": sum(v["verdict"] is None for v in latest),
    }


def record_judge(
    run_dir: Path,
    kind: str,
    prompt: str | None,
    model: str | None = None,
    verdicts: int = 0,
    questions: int = 0,
) -> None:
    """run.json learns which judge (kind, prompt, model) produced verdicts and how many of the
    judged questions have one from it, and its stamp is redone: the judge is part of what
    makes a number comparable (eval/running/stamp.py)."""
    import orjson

    from playscout.eval.running.stamp import run_stamp
    from playscout.eval.storage.store import RUN_JSON, write_json_atomic

    path = Path(run_dir) / RUN_JSON
    meta = orjson.loads(path.read_bytes())
    ran = meta.get("ran")
    if not ran:
        return  # a run from before the stamp: nothing recorded to redo it from
    facts = {"prompt": prompt, "model": model, "verdicts": verdicts, "questions": questions}
    ran.setdefault("judged_by", {})[kind] = facts
    ran["judge"] = {"kind": kind, **facts, "judged": True}
    meta["stamp"] = run_stamp(meta).record()
    write_json_atomic(path, meta)


def judge_run(
    run_dir: Path,
    judge: Judge,
    concurrency: int = 16,
    tracer: Any = None,
    telemetry: TelemetrySettings | None = None,
) -> dict[str, int]:
    return asyncio.run(judge_run_async(Path(run_dir), judge, concurrency, tracer, telemetry))


def run_preset(run_dir: Path) -> str:
    """The preset a run was made with (run.json); runs from before presets: extended."""
    import orjson

    from playscout.config.presets import DEFAULT_PRODUCT_PRESET
    from playscout.eval.storage.store import RUN_JSON, require_run_dir

    meta = orjson.loads((require_run_dir(run_dir) / RUN_JSON).read_bytes())
    preset = meta.get("preset")
    return str(preset.get("name") if isinstance(preset, dict) else DEFAULT_PRODUCT_PRESET)


def run_aliases(run_dir: Path) -> dict[str, dict[str, str]]:
    """Name aliases per sport for the deterministic judge: the team nickname tables and the
    unique surnames and team last words of the run's index, when it can still be opened
    (else the nickname tables alone)."""
    import orjson

    from playscout.corpus.sports import sport as sport_record
    from playscout.eval.judging.text import name_aliases
    from playscout.eval.storage.store import RUN_JSON

    meta = orjson.loads((Path(run_dir) / RUN_JSON).read_bytes())
    index = (meta.get("settings") or {}).get("index")
    backend = None
    if index:
        try:
            from playscout.runtime import open_index

            backend = open_index(index)
        except Exception:  # the index moved or is gone: judge with the nickname tables
            backend = None
    out = {}
    for sport in meta.get("sports") or []:
        teams, players = backend.entities(sport) if backend is not None else ([], [])
        out[sport] = name_aliases(teams, players, sport_record(sport).team_aliases)
    return out


# The judge endpoint's fields a run records and `eval judge` carries (the key stays in the env).
_JUDGE_FIELDS = (
    "base_url", "model", "api_key_env", "temperature", "top_p", "max_tokens",
    "reasoning_effort", "timeout_s", "max_retries",
)  # fmt: skip


def run_judge_settings(run_dir: Path) -> dict[str, Any]:
    """The LLM judge a run was made with (run.json's eval.judge and eval.judge_max_tokens), as
    settings for `eval judge`, so a run is judged by the judge it names unless flags or --set
    say otherwise. Empty when the run had no LLM judge, or its URL was stored redacted."""
    import orjson

    from playscout.eval.storage.store import RUN_JSON

    path = Path(run_dir) / RUN_JSON
    if not path.is_file():
        return {}  # not a run: `eval judge` says so once the settings are read
    meta = orjson.loads(path.read_bytes())
    ev = (meta.get("settings") or {}).get("eval") or {}
    judge = ev.get("judge") or {}
    if not (judge.get("base_url") and judge.get("model")) or "***@" in str(judge["base_url"]):
        return {}
    carried: dict[str, Any] = {"judge": {k: judge[k] for k in _JUDGE_FIELDS if k in judge}}
    if ev.get("judge_max_tokens") is not None:
        carried["judge_max_tokens"] = ev["judge_max_tokens"]
    return {"eval": carried}
