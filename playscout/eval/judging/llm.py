"""The paper's answer-equivalence LLM judge (Figure 42): verbatim under the `paper` preset,
with the question added under `extended` (the reference left it out, defect 14; adding it makes
another instrument). The model is configurable and the completion budget is one a reasoning
model cannot exhaust. Replies are parsed as JSON first, then by their first word; anything else
is unjudged."""

from __future__ import annotations

import re

import orjson

from playscout.clients.chat import ChatClient, ChatMessage, ChatParams, ModelError
from playscout.clients.reasoning import strip_reasoning
from playscout.eval.judging.judge import Verdict

SYSTEM = (
    "You are a strict grader. Return only a valid JSON object with keys 'verdict' and 'reason'."
)
FIG42 = """You are grading a Q&A pair about sports (basketball, soccer, or hockey). Interpret domain-specific terms according to their standard meaning in the relevant sport.

Ground Truth: {gt_answer}
Prediction: {pred_answer}

Task: Decide whether the Prediction conveys the same information as the Ground Truth.

Rules:
- Wording can differ. Focus on semantic meaning, not exact phrasing.
- Synonyms, paraphrases, and extra context are fine as long as they do not change the meaning.
- The Prediction must cover the key information in the Ground Truth. If it drops a required detail that changes the meaning, mark Wrong.
- For numerical answers, the numeric value must match exactly.
- If the Prediction says "Not found", "I cannot find...", or similar, and the Ground Truth is a specific value, mark Wrong.
- "0" is a valid numeric answer and is NOT equivalent to "not found".

Return exactly one JSON object on a single line:
{{"verdict": "Right" | "Wrong", "reason": "<one short sentence>"}}
"""
"""Figure 42 verbatim (the reference's prompts/eval/judge_prompt.txt): the instrument the paper
validated, used by the `paper` preset."""

FIG42_QUESTION = (
    FIG42.replace("Ground Truth: {gt_answer}", "Question: {question}\nGround Truth: {gt_answer}")
    .replace("as the Ground Truth.", "as the Ground Truth, as an answer to the Question.")
    .rstrip("\n")
)
"""Figure 42 with the question added (the reference left it out, defect 14): a different
instrument from the one the paper validated, used by the `extended` preset."""

PROMPTS = {"fig42": FIG42, "fig42_question": FIG42_QUESTION}

_JSON = re.compile(r"\{.*\}", re.S)


def parse_verdict(text: str) -> Verdict:
    body = strip_reasoning(text or "")
    m = _JSON.search(body)
    if m:
        try:
            data = orjson.loads(m.group(0))
        except orjson.JSONDecodeError:
            data = None
        if isinstance(data, dict):
            v = str(data.get("verdict", "")).strip().lower()
            if v in ("right", "wrong"):
                return Verdict(verdict=v, reason=str(data.get("reason", "")), raw=text)
    first = re.sub(r"[^a-z]", "", (body.split() or [""])[0].lower())
    if first in ("right", "wrong"):
        return Verdict(verdict=first, reason="first word", raw=text)
    return Verdict(verdict=None, reason="unparseable judge reply", raw=text)


class LLMJudge:
    """`params`: the judge endpoint's generation settings (temperature, reasoning effort, the
    budget; eval/running/judge.make_judge takes them from eval.judge), sent as the endpoint says,
    the budget as `max_completion_tokens` for the GPT-5 family (clients/wire.py). Each verdict
    records `model`, the model that gave it."""

    name = "llm"

    def __init__(
        self,
        client: ChatClient,
        params: ChatParams | None = None,
        prompt: str = "fig42_question",
        model: str | None = None,
    ) -> None:
        if prompt not in PROMPTS:
            raise ValueError(f"unknown judge prompt {prompt!r}; use one of {', '.join(PROMPTS)}")
        self.client = client
        self.prompt = prompt
        self.model = model or str(getattr(client, "model", "") or "") or None
        self.template = PROMPTS[prompt]
        self.params = params or ChatParams(temperature=0.0, max_tokens=2048)

    @property
    def instrument(self) -> str:
        """What a verdict depends on besides the answer: the prompt and the judging model (a
        verdict of another model is judged again)."""
        return f"{self.prompt}|{self.model}" if self.model else self.prompt

    async def judge(
        self, question: str, gold: str, pred: str | None, sport: str | None = None
    ) -> Verdict:
        if pred is None or not pred.strip():
            return Verdict(verdict="wrong", reason="no answer")
        prompt = self.template.format(question=question, gt_answer=gold, pred_answer=pred)
        messages = [
            ChatMessage(role="system", content=SYSTEM),
            ChatMessage(role="user", content=prompt),
        ]
        try:
            reply = await self.client.chat(messages, None, self.params)
        except ModelError as e:
            return Verdict(verdict=None, reason=f"judge call failed: {e}")
        return parse_verdict(reply.content)
