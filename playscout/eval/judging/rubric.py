"""The 0-5 rubric judge of T4 (SVI-Bench Fig. 32, as its reference runs it in
t4_strategic_reasoning_qa/evaluation/), with best-of-k: the model answers once with up to k
numbered answers ("Answer i: ..."), each answer is scored 0-5 against the ground truth, and the
best score counts.

Without a judge model, `FallbackScoreJudge` scores only what needs no reader (no answer, "not
found", the ground truth word for word, or a short factual ground truth the deterministic
equivalence judge can decide) and leaves the rest unjudged (score None), never a guess."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

import orjson
from pydantic import BaseModel

from playscout.clients.chat import ChatClient, ChatMessage, ChatParams, ModelError
from playscout.clients.reasoning import strip_reasoning
from playscout.eval.judging.equivalence import judge_equivalence
from playscout.eval.judging.text import is_not_found, normalise

# The reference's EVAL_PROMPT (evaluation/prompts.py): up to k separate answers, 50 words each.
ANSWER_PROMPT = """Watch the video and answer the following question.

Question:
{question}

Guidelines:
- Respond with up to {k} answers that you think are the most correct.
- Each answer must be separate and self contained.
- Each answer must be a maximum of 50 words.

Respond in this format exactly:
Answer i: <answer>
"""

# Fig. 32 / the reference's JUDGE_SYSTEM_PROMPT and JUDGE_PROMPT, word for word.
JUDGE_SYSTEM = """You are an expert sports analyst and a meticulous free-response evaluation assistant. Your task is to compare a **Generated Answer (Pred)** against a **Ground Truth Answer (GT)** and assign a score from 0 to 5 based strictly on content accuracy and coverage of the explicitly requested information.

## Evaluation Process

1. **Isolate the question's explicit request**: Identify precisely what the question asks. Discard any information in the GT that, while true, does not directly answer the specific question.
2. **Extract the core answer from GT**: Determine the minimal set of facts that directly and completely answers the question.
3. **Compare Pred against this core answer**: Check if the Pred provides the same essential outcome, event, or causal explanation.
4. **Crucial Rule on Conciseness**: A response that is concise but factually correct and answers the core question fully must be scored highly. Do not penalize for missing descriptive context or narrative flair that the question did not explicitly request.
5. Penalize only factual contradictions, inaccurate statements, or omissions that leave the specific question unanswered.

## Scoring Rubric

### 5 (Perfect)
- Directly and accurately answers the question with the exact core outcome/event.
- No factual errors or contradictions.
- May be concise; verbosity is not required.

### 4 (Good)
- Answers the question correctly in substance.
- May contain minor, non-essential factual errors that do not alter the core answer.
- No major contradictions.

### 3 (Fair)
- Partially answers the question or provides a vague but broadly correct direction.
- May include inaccuracies or omit a critical component of what the question asked for.
- May include limited contradictions.

### 2 (Poor)
- Touches on the topic but misses the main point of the question.
- Contains multiple factual errors or major omissions regarding the question's target.
- Shows partial but shallow understanding.

### 1 (Very Poor)
- Minimal overlap with the core answer.
- Largely incorrect or irrelevant to the question asked.
- May contain significant contradictions.

### 0 (Completely Wrong)
- No meaningful overlap with the core answer.
- Entirely incorrect or unrelated.

### Output Format (Strict JSON Structure)
The JSON must follow this structure, including the analysis steps (gt_analysis, pred_analysis, justification_cot) within the JSON object.
{
    "gt_analysis": "...",
    "pred_analysis": "...",
    "justification_cot": "...",
    "score": X
}
"""
JUDGE_USER = "Question: {question}\nGT: {gt}\nPred: {pred}\n"

_ANSWERS = re.compile(r"Answer (?:\d+|[iv]+):\s*(.+?)(?=Answer (?:\d+|[iv]+):|$)", re.DOTALL)
_SCORE = re.compile(r'"score"\s*:\s*"?(-?\d+(?:\.\d+)?)')
SHORT_GOLD_WORDS = 5  # a ground truth this short is a factoid the equivalence judge can decide


class ScoreVerdict(BaseModel):
    score: float | None  # 0-5; None = unjudged
    reason: str = ""
    raw: str | None = None


class ScoreJudge(Protocol):
    name: str

    async def score(self, question: str, gold: str, pred: str | None) -> ScoreVerdict: ...


def parse_answers(text: str | None, k: int) -> list[str]:
    """The numbered answers of one response, at most k (the reference's parse_answers)."""
    return [a.strip() for a in _ANSWERS.findall(text or "")][:k]


def parse_score(text: str) -> ScoreVerdict:
    """The judge's JSON {.., "score": X}; a score outside 0-5 or no score is unjudged."""
    body = strip_reasoning(text or "")
    value: float | None = None
    m = re.search(r"\{.*\}", body, re.S)
    if m:
        try:
            data = orjson.loads(m.group(0))
            raw_score = data.get("score") if isinstance(data, dict) else None
            value = float(raw_score) if raw_score is not None else None
        except (orjson.JSONDecodeError, TypeError, ValueError):
            value = None
    if value is None:
        found = _SCORE.search(body)
        value = float(found.group(1)) if found else None
    if value is None:
        return ScoreVerdict(score=None, reason="no score in the judge's reply", raw=text)
    if not 0 <= value <= 5:
        return ScoreVerdict(score=None, reason=f"score {value:g} outside 0-5", raw=text)
    return ScoreVerdict(score=value, reason="judge", raw=text)


class LLMScoreJudge:
    """Fig. 32 over any OpenAI-compatible model (the paper: DeepSeek-V3)."""

    name = "llm-rubric"

    def __init__(self, client: ChatClient, params: ChatParams) -> None:
        self.client = client
        self.params = params

    async def score(self, question: str, gold: str, pred: str | None) -> ScoreVerdict:
        if pred is None or not pred.strip():
            return ScoreVerdict(score=0.0, reason="no answer")
        messages = [
            ChatMessage(role="system", content=JUDGE_SYSTEM),
            ChatMessage(
                role="user", content=JUDGE_USER.format(question=question, gt=gold, pred=pred)
            ),
        ]
        try:
            reply = await self.client.chat(messages, None, self.params)
        except ModelError as e:
            return ScoreVerdict(score=None, reason=f"judge call failed: {e}")
        return parse_score(reply.content)


class FallbackScoreJudge:
    """What can be scored 0-5 without reading for meaning; everything else is unjudged."""

    name = "rubric-fallback"

    async def score(self, question: str, gold: str, pred: str | None) -> ScoreVerdict:
        return fallback_score(question, gold, pred)


def fallback_score(question: str, gold: str, pred: str | None) -> ScoreVerdict:
    if pred is None or not pred.strip():
        return ScoreVerdict(score=0.0, reason="no answer")
    if is_not_found(pred) and not is_not_found(gold):
        return ScoreVerdict(score=0.0, reason="says it cannot answer; the ground truth does")
    if normalise(pred) == normalise(gold):
        return ScoreVerdict(score=5.0, reason="the ground truth word for word")
    if len(normalise(gold).split()) <= SHORT_GOLD_WORDS:
        v = judge_equivalence(question, gold, pred)
        if v.verdict is not None:
            score = 5.0 if v.verdict == "right" else 0.0
            return ScoreVerdict(score=score, reason=f"short ground truth: {v.reason}")
    return ScoreVerdict(
        score=None, reason="free-text answer: needs a judge model (eval.judge) to score 0-5"
    )


def best_of_k(scores: Sequence[float | None]) -> float | None:
    """The best candidate's score. No candidates scores 0 (the reference); an unjudged
    candidate could have been the best, so the best is known only if a judged one reached 5
    or every candidate was judged."""
    if not scores:
        return 0.0
    judged = [s for s in scores if s is not None]
    if judged and (max(judged) >= 5.0 or len(judged) == len(scores)):
        return max(judged)
    return None
