"""Valid-call rate of a served model under one tool-call setup: the real agent, a real server.

    .venv/bin/python scripts/vllm/tool_call_probe.py --url http://127.0.0.1:8861/v1 \
        --model smollm2 --protocol structured --n 10 --label baseline [--max-tokens 192] \
        [--extra '{"repetition_penalty": 1.2}'] [--set agent.llm.temperature=0.6]

Each of the first N oracle questions of a sport runs the agent for `--calls` model calls (the
last is the forced final answer). Printed, one JSON line: tool-offering turns, replies parsed
as a call, calls a tool ran without error (the eval report's "valid tool call"), final_answer
calls, and the share of episodes with at least one valid call. `--extra` goes into every
request body (vLLM sampling knobs the settings do not carry); `--set` overrides settings.
Trajectories land in OUT/LABEL/ for reading.
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from playscout.agent import read_trajectory
from playscout.agent.trajectory import ErrorEvent, ModelCall, Observation, ToolCallEvent
from playscout.clients.chat import ChatParams
from playscout.clients.openai_chat import OpenAIChatClient
from playscout.config import Settings
from playscout.corpus import Corpus
from playscout.runtime import Runtime

ROOT = Path(__file__).resolve().parents[2]


class ExtraBodyClient(OpenAIChatClient):
    """Adds fixed fields to every request body (the probe's sampling variations)."""

    def __init__(self, *args: Any, extra: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.extra = extra

    async def chat(self, messages, tools=None, params=None):  # type: ignore[no-untyped-def]
        params = params or self.default_params
        params = params.model_copy(update={"extra_body": {**params.extra_body, **self.extra}})
        return await super().chat(messages, tools=tools, params=params)


def _setting(pairs: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        key, _, raw = pair.partition("=")
        try:
            value: Any = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        node = out
        *parents, leaf = key.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = value
    return out


def _merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out = dict(a)
    for k, v in b.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def episode_counts(path: Path) -> dict[str, int]:
    events = read_trajectory(path)
    calls = [e for e in events if isinstance(e, ModelCall)]
    return {
        "offering_turns": sum(1 for c in calls if c.forced_final is None),
        "parsed_calls": sum(isinstance(e, ToolCallEvent) for e in events),
        "valid_calls": sum(isinstance(e, Observation) and e.error is None for e in events),
        "protocol_errors": sum(isinstance(e, ErrorEvent) and e.kind == "protocol" for e in events),
        "completion_tokens": sum(c.completion_tokens for c in calls),
        "length_cut": sum(c.finish_reason == "length" for c in calls),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--protocol", choices=["structured", "native", "text"], required=True)
    ap.add_argument("--preset", default="extended")
    ap.add_argument("--corpus", default=str(ROOT / "var/c30"))
    ap.add_argument("--index", default=str(ROOT / "var/i30"))
    ap.add_argument("--sport", default="basketball")
    ap.add_argument("--n", type=int, default=10)
    ap.add_argument("--calls", type=int, default=2, help="model calls per episode")
    ap.add_argument("--max-tokens", type=int, default=192)
    ap.add_argument("--max-context", type=int, default=7600)
    ap.add_argument(
        "--tokenizer", default=str(ROOT / "var/models/smollm2-135m-instruct/tokenizer.json")
    )
    ap.add_argument("--extra", default="{}", help="JSON merged into every request body")
    ap.add_argument("--set", action="append", default=[], help="setting=value (JSON value)")
    ap.add_argument("--bounds", default="", help="chars,item_chars,items for strict schemas")
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--label", default="probe")
    ap.add_argument("--out", default=str(ROOT / "var/probe"))
    a = ap.parse_args()

    base = {
        "preset": a.preset,
        "index": a.index,
        "corpus_dir": a.corpus,
        "agent": {
            "max_llm_calls": a.calls,
            "max_context_tokens": a.max_context,
            "tool_protocol": a.protocol,
            "tokenizer_path": a.tokenizer,
            "llm": {"base_url": a.url, "model": a.model, "max_tokens": a.max_tokens,
                    "timeout_s": 600, "max_retries": 1},
        },
    }  # fmt: skip
    if a.bounds:
        from playscout.agent.policies import llm

        chars, item, items = (int(x) for x in a.bounds.split(","))
        llm.STRICT_MAX_CHARS, llm.STRICT_MAX_ITEM_CHARS, llm.STRICT_MAX_ITEMS = chars, item, items
    settings = Settings.model_validate(_merge(base, _setting(a.set)))
    runtime = Runtime.from_settings(settings, need_llm=False)
    endpoint = runtime.settings.agent.llm
    client = ExtraBodyClient(
        endpoint.base_url,
        endpoint.model,
        timeout_s=endpoint.timeout_s,
        max_retries=endpoint.max_retries,
        default_params=ChatParams.from_endpoint(endpoint),
        extra=json.loads(a.extra),
    )
    questions = Corpus(Path(a.corpus)).questions(a.sport)[: a.n]
    out = Path(a.out) / a.label
    out.mkdir(parents=True, exist_ok=True)
    totals: dict[str, int] = {}
    with_valid = with_call = 0
    t0 = time.perf_counter()

    def one(i: int) -> Path:
        agent = runtime.agent(runtime.tool_context(a.sport, "oracle"), "llm", llm=client)
        path = out / f"{i:02d}.jsonl"
        agent.run_sync(questions[i].question, trajectory=path)
        return path

    with ThreadPoolExecutor(a.concurrency) as pool:
        paths = list(pool.map(one, range(len(questions))))
    for path in paths:
        counts = episode_counts(path)
        for k, v in counts.items():
            totals[k] = totals.get(k, 0) + v
        with_valid += counts["valid_calls"] > 0
        with_call += counts["parsed_calls"] > 0
    n = len(questions)
    print(json.dumps({
        "label": a.label, "protocol": a.protocol, "preset": a.preset, "n": n,
        "extra": json.loads(a.extra), "set": a.set, "max_tokens": a.max_tokens, "bounds": a.bounds,
        **totals,
        "episodes_with_parsed_call": round(with_call / n, 2) if n else None,
        "episodes_with_valid_call": round(with_valid / n, 2) if n else None,
        "valid_per_offering_turn": round(totals["valid_calls"] / totals["offering_turns"], 2)
        if totals.get("offering_turns") else None,
        "wall_s": round(time.perf_counter() - t0, 1),
    }))  # fmt: skip


if __name__ == "__main__":
    main()
