"""Paper-shaped T9 runs through the CLI, every model a scripted OpenAI-compatible server, for
the stamp's tests (tests/eval/running/test_stamp.py) and its before/after table
(scripts/stamp_cases.py).

`ScriptedPaperModels` is one FakeOpenAIServer that serves every role by the model name a
request names: the agent (search, then answer), the QA models (a JSON answer), the judge (a
Fig. 42 verdict, or a reply with none). The text and video query towers are the stand-ins of
tests/embed (FakeEmbeddingServer for BGE-M3, ScriptedTextTower for InternVideo2's text tower),
and the corpus and index are the release's layout (tests/release_layout.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.clients.fake_openai_server import FakeOpenAIServer, Reply, echo_answer
from tests.doubles import text_call

VERDICT = '{"verdict": "Right", "reason": "same value"}'
NO_VERDICT = "I would need to think about this more."


@dataclass
class ScriptedPaperModels:
    agent: str = "qwen3-32b"
    qa: str = "Qwen/Qwen3-VL-8B-Thinking"
    vlm: str = "llava_next_video_sports_100k"
    judge: str = "gpt-5.2"
    judge_reply: str = VERDICT
    search: str = "search_documents"  # the agent's one call: search_documents or search_videos
    query: str = "fourth quarter"
    server: FakeOpenAIServer = field(init=False)

    def __post_init__(self) -> None:
        names = list(dict.fromkeys([self.agent, self.qa, self.vlm, self.judge]))
        self.server = FakeOpenAIServer(self._reply, models=names)

    def _reply(self, body: dict[str, Any]) -> Reply:
        model = body.get("model")
        if model == self.judge and "Ground Truth:" in str(body["messages"][-1]["content"]):
            return Reply.chat(self.judge_reply, model=model)
        if model == self.agent:
            seen = any("<tool_response>" in str(m.get("content")) for m in body["messages"])
            if seen:
                return Reply.chat("<answer>Charlotte Hornets</answer>", model=model)
            return Reply.chat(text_call(self.search, query=self.query), model=model)
        return echo_answer(body)

    def __enter__(self) -> ScriptedPaperModels:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()

    def flags(self) -> list[str]:
        url = self.server.url
        return [
            "--llm-url", url, "--llm-model", self.agent,
            "--doc-llm-url", url, "--doc-llm-model", self.qa,
            "--caption-llm-url", url, "--caption-llm-model", self.qa,
            "--vlm-url", url, "--vlm-model", self.vlm,
            "--judge-url", url, "--judge-model", self.judge,
        ]  # fmt: skip

    def judge_requests(self) -> list[dict[str, Any]]:
        return [
            r["body"]
            for r in self.server.requests
            if r["body"] and r["body"].get("model") == self.judge
        ]


def run_args(
    corpus: Path, index: Path, out: Path, mode: str, models: ScriptedPaperModels, *more: str
) -> list[str]:
    return ["eval", "run", "--task", "t9", "--mode", mode, "--sport", "basketball",
            "--index", str(index), "--corpus", str(corpus), "--out", str(out), "--no-cache",
            *models.flags(), *more]  # fmt: skip


def stamp_of(run: Path) -> dict[str, Any]:
    return dict(json.loads((run / "run.json").read_text())["stamp"])
