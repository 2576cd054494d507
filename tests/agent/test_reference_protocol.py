"""Side-by-side conformance of the `paper` preset with the SVI-Bench reference protocol.

What `paper` sends is rendered for real: a Runtime built with the preset over the shared
synthetic index drives the agent, whose model is a ScriptedChatModel (the one test double: it
stands in for the model only and records each request); each request becomes the exact JSON
body the HTTP client would send (clients.wire.request_body). Every field of
reference_protocol.yaml is then compared: equal, or deviating only where the file names a
documented reference defect. `pytest -s` prints the table.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from playscout.agent.prompts import final_message, render
from playscout.agent.prompts import template as prompt_template
from playscout.clients.wire import request_body
from playscout.config import Settings
from playscout.config.presets import load_preset
from playscout.eval.judging.llm import FIG42, SYSTEM, LLMJudge
from playscout.runtime import Runtime
from playscout.tools.prompts import qa_prompt
from playscout.tools.tool import ModelSet
from tests.doubles import ScriptedChatModel, text_call
from tests.synthdata import SynthIndex

SPEC = yaml.safe_load((Path(__file__).parent / "reference_protocol.yaml").read_text())
QUESTION = "Which team won the game where the Hornets scored 46 points in the fourth quarter?"
CLIP_LINE = re.compile(
    r"^  \S+ \| score \S+ \| game \S+ \| (quarter|period|half) \d+ \| teams: .+ \| "
    r"players: .+ \| video [\d.]+ - [\d.]+$"
)


def sha(text: str) -> dict[str, Any]:
    t = text.strip()
    return {"sha256": hashlib.sha256(t.encode()).hexdigest()[:16], "chars": len(t)}


def flat_params(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """A tool schema's parameters as the yaml lists them."""
    params = schema["function"]["parameters"]
    out = []
    for name, prop in params["properties"].items():
        p: dict[str, Any] = {"name": name, "type": prop["type"]}
        if "items" in prop:
            p["items"] = prop["items"]["type"]
        if name in params.get("required", []):
            p["required"] = True
        out.append(p)
    return out


def tool_lines(system: str) -> list[str]:
    return re.search(r"<tools>\n(.*?)\n</tools>", system, re.S).group(1).splitlines()  # type: ignore[union-attr]


CLIP = "?"  # set by the fixtures: a clip of the shared index


def clip_fields(observation: str) -> Any:
    """The fields of the first clip line of a search_videos observation, as the yaml names them."""
    lines = [x for x in observation.splitlines() if x.startswith("  ")]
    if lines and CLIP_LINE.match(lines[0]) and "clock" not in lines[0]:
        return ["clip_id", "score", "game_id", "period", "teams", "players", "video_timestamps"]
    return lines[0] if lines else observation[:80]


def listed(observation: str) -> str:
    body = observation.split("Observation:\n\n", 1)[-1]
    n = int(body.split(" clips", 1)[0])
    shown = sum(x.startswith("  ") for x in body.splitlines())
    return "every hit" if n and shown == n else f"{shown} of {n}"


class Rendered:
    """What the paper preset sends, rendered once per mode."""

    def __init__(self, synth_index: SynthIndex, mode: str, model: str = "qwen3-30b-a3b") -> None:
        settings = Settings.model_validate(
            {"preset": "paper", "index": str(synth_index.index_dir),
             "agent": {"llm": {"base_url": "http://127.0.0.1:9/v1", "model": model}}}
        )  # fmt: skip
        qa = [text_call("video_qa_oracle", video_ids=[CLIP], query="Who scored?")]
        self.client = ScriptedChatModel(
            [
                text_call("search_documents", query="Hornets fourth quarter"),
                text_call("search_videos", query="Hornets dunk"),
                *(qa if mode == "oracle" else []),
                "<answer>Hornets</answer>",
            ],
            model=model,
        )
        reader = ModelSet(caption_llm=ScriptedChatModel(model="qwen3-vl"))  # the oracle reads
        self.runtime = Runtime.from_settings(
            settings, backend=synth_index.backend, llm=self.client, models=reader
        )
        ctx = self.runtime.tool_context("basketball", mode)  # type: ignore[arg-type]
        self.agent = self.runtime.agent(ctx)
        self.result = self.agent.run_sync(QUESTION)
        self.bodies = [
            request_body(model, r.messages, r.tools, r.params) for r in self.client.requests
        ]
        self.first = self.bodies[0]
        self.system = self.first["messages"][0]["content"]
        self.schemas = {json.loads(line)["function"]["name"]: json.loads(line)
                        for line in tool_lines(self.system)}  # fmt: skip
        self.lines = tool_lines(self.system)
        self.ctx = ctx
        # the observations in call order (user messages after the first)
        self.observations = [b["messages"][-1]["content"] for b in self.bodies[1:]]


@pytest.fixture(scope="module", autouse=True)
def a_clip(synth_index: SynthIndex) -> None:
    global CLIP
    CLIP = next(iter(synth_index.corpus.iter_clips(synth_index.sport))).clip_id


@pytest.fixture(scope="module")
def default(synth_index: SynthIndex) -> Rendered:
    return Rendered(synth_index, "default")


@pytest.fixture(scope="module")
def oracle(synth_index: SynthIndex) -> Rendered:
    return Rendered(synth_index, "oracle")


@pytest.fixture(scope="module")
def gpt5(synth_index: SynthIndex) -> Rendered:
    return Rendered(synth_index, "default", model="gpt-5.2")


def rendered_fields(d: Rendered, o: Rendered, g: Rendered) -> dict[str, Any]:
    """Every field of the yaml, as the paper preset renders it."""
    preset = load_preset("paper")
    s = d.runtime.settings
    desc = {n: sc["function"]["description"] for n, sc in {**d.schemas, **o.schemas}.items()}
    env = d.system.split("# Environment\n", 1)[1].split("\n\n# Tools", 1)[0]
    observation = d.bodies[1]["messages"][-1]
    judge = LLMJudge(ScriptedChatModel(['{"verdict": "Right"}']), prompt=preset.judge_prompt)
    qwen_template = prompt_template("react_qwen")
    return {
        "tools.default.names": list(d.schemas),
        "tools.oracle.names": list(o.schemas),
        **{
            f"tools.{n}.parameters": flat_params(sc) for n, sc in {**d.schemas, **o.schemas}.items()
        },
        **{f"tools.{n}.description": desc[n] for n in desc},
        "tools.video_qa.templates": desc["video_qa"],
        "tools.video_qa_oracle.description": desc["video_qa_oracle"].split("\n\nExample:\n")[0],
        "tools.examples.format": "playscout compact text"
        if "| filters:" in desc["search_documents"] and '"doc_id":' not in desc["search_documents"]
        else "json",
        "tools_section.text": render("tools_reference", tool_lines="{{tool_lines}}"),
        "tools_section.json_style": "json.dumps defaults, ASCII-escaped"
        if all(line == json.dumps(json.loads(line)) for line in d.lines)
        else "other",
        "system_prompt.template": qwen_template,
        "system_prompt.template_gpt5": prompt_template("react_gpt5"),
        "system_prompt.env_desc": "each source described, and the canonical team list"
        if "[Entity Reference]: The following teams" in env and "no description file" not in env
        else env,
        "system_prompt.layout": "template with env_desc, then the tool section"
        if d.system.startswith(qwen_template.split("{{env_desc}}")[0])
        and d.system.endswith(render("tools_reference", tool_lines="\n".join(d.lines)))
        else "other",
        "messages.first_call": [m["role"] for m in d.first["messages"]],
        "first_user_message": "the question, verbatim"
        if d.first["messages"][1]["content"] == QUESTION
        else d.first["messages"][1]["content"],
        "tool_protocol": "text"
        if "tools" not in d.first and "<tool_call>" in d.system
        else "native",
        "generation.temperature": d.first["temperature"],
        "generation.top_p": d.first["top_p"],
        "generation.max_tokens": d.first["max_tokens"],
        "generation.stop": d.first["stop"],
        "generation.gpt5": {
            "temperature": g.first["temperature"],
            "max_completion_tokens": g.first["max_completion_tokens"],
            "reasoning_effort": g.first["reasoning_effort"],
        },
        "loop.max_llm_calls": s.agent.max_llm_calls,
        "context.max_tokens": s.agent.max_context_tokens,
        "context.pruning": s.agent.prune_context,
        "context.observation_cut": "none" if s.agent.observation_tokens is None else "cut",
        "observation.wrapper": "<tool_response> Observation:\n\n{observation}\n</tool_response>"
        if observation["role"] == "user"
        and observation["content"].startswith("<tool_response> Observation:\n\n")
        and observation["content"].endswith("\n</tool_response>")
        else observation["content"][:40],
        "observation.body": "json"
        if observation["content"].split("Observation:\n\n", 1)[-1].startswith(("[", "{"))
        else "playscout compact text",
        "observation.search_videos.fields": clip_fields(
            o.observations[1]
        ),  # the shared index: captions only
        "observation.search_videos.listed": listed(o.observations[1]),
        "observation.video_qa_oracle.notes": "none"
        if not re.search(r"^note:|ground-truth", o.observations[2], re.M)
        else o.observations[2],
        "qa.prompt.document_qa": qa_prompt(
            "document_qa", d.ctx.style, document_content="{{document_content}}", query="{{query}}"
        ),
        "qa.prompt.video_qa": qa_prompt("video_qa", d.ctx.style, query="{{query}}"),
        "qa.prompt.video_qa_oracle": qa_prompt(
            "video_qa_oracle", o.ctx.style, captions="{{oracle_text}}", query="{{query}}"
        ),
        "qa.max_ids": s.qa.max_ids,
        "search.default_mode": "video vectors fused with transcript BM25 (RRF) when the index has transcripts",
        "final_message": final_message(preset),
        "truncated_message": render(preset.truncated_prompt or ""),
        "corrective_message": render(preset.corrective_prompt),
        "answer.forced_final": preset.forced_final,
        "answer.bare_fallback_ends": preset.bare_fallback_ends,
        "search.document_top_k": s.search.document_top_k,
        "search.video_top_k": s.search.video_top_k,
        "search.highlight_chars": s.search.highlight_chars,
        "oracle.search": s.search.caption_search,
        "qa.frames_per_clip": s.qa.frames_per_clip,
        "qa.frame_long_side": s.qa.frame_long_side,
        "qa.generation": {
            "temperature": s.qa.document_llm.temperature,
            "max_tokens": s.qa.document_llm.max_tokens,
        },
        "judge.prompt": judge.template,
        "judge.system": SYSTEM,
        "judge.max_tokens": s.eval.judge_max_tokens,
    }


def compare(field: str, spec: dict[str, Any], ours: Any) -> tuple[bool, str]:
    """(as expected, what ours is) for one field."""
    check, ref = spec["check"], spec["reference"]
    if check == "sha256":
        got = sha(ours)
        return got == ref, f"sha256 {got['sha256']}, {got['chars']} chars"
    if check == "facts":
        missing = [f for f in ref if not re.search(f.split(" => ", 1)[1], ours)]
        return not missing, "all facts present" if not missing else f"missing: {missing}"
    if check == "templates":
        lines = [line for line in ours.splitlines() if line.startswith("- ") and '"' in line]
        counts = {}
        for sport in ("Basketball", "Hockey", "Soccer"):
            block = ours.split(f"{sport}:\n", 1)[1].split("\n\n", 1)[0]
            counts[sport.lower()] = sum(line.startswith("- ") for line in block.splitlines())
        got = {**counts, "total": len(lines), **{"sha256": sha("\n".join(lines))["sha256"]}}
        return got == ref, json.dumps(got)
    expected = spec.get("paper", ref)
    return ours == expected, json.dumps(ours) if not isinstance(ours, str) else ours


def test_paper_preset_sends_the_reference_protocol(
    default: Rendered, oracle: Rendered, gpt5: Rendered
) -> None:
    ours = rendered_fields(default, oracle, gpt5)
    assert set(ours) == set(SPEC["fields"]), set(ours) ^ set(SPEC["fields"])
    rows, failures = [], []
    for field, spec in SPEC["fields"].items():
        ok, shown = compare(field, spec, ours[field])
        verdict = (
            f"deviating: defect {spec['defect']}"
            if "defect" in spec
            else f"deviating: {spec['reason']}"
            if "reason" in spec
            else "equal"
        )
        assert spec["check"] != "facts" or "reason" in spec, (
            f"{field}: a paraphrase needs its reason"
        )
        rows.append((field, verdict, shown))
        if not ok:
            failures.append(f"{field}: {shown}")
    width = max(len(f) for f, _, _ in rows)
    print(f"\nconformance of preset paper with {SPEC['source']}")
    for field, verdict, shown in rows:
        print(f"{field:<{width}}  {verdict:<60.60}  {shown[:60]}")
    print(f"fields {len(rows)}, equal {sum(v == 'equal' for _, v, _ in rows)}, deviating "
          f"{sum(v != 'equal' for _, v, _ in rows)}")  # fmt: skip
    assert not failures, failures
    # a deviation needs a named defect or a stated reason, and only where the value differs;
    # a row with neither is a claim of equality
    for field, spec in SPEC["fields"].items():
        if "paper" in spec:
            assert spec.get("defect") or spec.get("reason"), field
            assert spec["paper"] != spec["reference"], field


def test_the_run_records_the_preset_and_no_deviation(default: Rendered) -> None:
    assert default.result.status == "answered"
    start = default.result.events[0]
    assert start.preset == "paper" and start.preset_version == 1
    assert start.preset_deviations == []
    assert start.tools == ["search_documents", "document_qa", "video_qa", "search_videos"]


def test_fig42_is_verbatim_and_leaves_the_question_out() -> None:
    client = ScriptedChatModel(['{"verdict": "Right", "reason": "same"}'], model="judge")
    v = asyncio.run(LLMJudge(client, prompt="fig42").judge("Who scored?", "A", "B"))
    assert v.verdict == "right"
    assert client.requests[0].prompt == FIG42.format(gt_answer="A", pred_answer="B")
    assert "Who scored?" not in client.requests[0].prompt
