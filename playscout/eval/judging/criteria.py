"""Judging an answer criterion by criterion: STARBench's rubrics (each criterion checked on
its own, §5.1; satisfied criteria add their weight, applying penalties subtract theirs) and
T6's saliency (each ground-truth fact of coverage_facts.txt covered or not, Fig. 37) and
writing quality (1-5, Fig. 38).

STARBench publishes no judge prompt, only how the judge is used (Qwen3-14B, "separately
checking each predefined rubric criterion, ... constrained to only consider the relevant fact
or event"); CRITERION_PROMPT is written from that description. T6's prompts are its
reference's (evaluation/eval_coverage.py, eval_writing.py).

Without a judge model, `fallback_criterion` decides only what text matching can: a criterion
whose fact ("Must mention that X") appears in the answer is met, one none of whose content
words appear is not, and anything in between, and every penalty ("Must not include
information not present in the video"), is unjudged (None)."""

from __future__ import annotations

import re
from typing import Any

import orjson

from playscout.clients.chat import ChatClient, ChatMessage, ChatParams, ModelError
from playscout.clients.reasoning import strip_reasoning
from playscout.corpus.sports import sport as sport_record
from playscout.eval.judging.text import normalise

CRITERION_PROMPT = """You check one criterion of a grading rubric against an answer to a question about a video. Consider only the fact or event the criterion names; ignore everything else in the answer, including its style.

Question: {question}
Answer: {answer}

Criterion ({kind}): {description}

{ask}
Reply with one JSON object on a single line: {{"satisfied": true | false, "reason": "<one short sentence>"}}"""
ASK_POSITIVE = "Does the answer satisfy the criterion (state the fact, in any wording)?"
ASK_PENALTY = (
    "This criterion is a penalty: is it violated, i.e. does the answer make the error it "
    "describes? Answer satisfied=true if the answer makes that error."
)

# eval_coverage.py's prompt; its sport sections are each sport's record (Coverage)
COVERAGE_PROMPT = """You will evaluate the factual coverage of a GENERATED REPORT against a fixed list of GROUND-TRUTH ATOMIC FACTS.

For each ground-truth fact, determine whether the generated report contains the same meaning.

## DEFINITIONS
**Covered**: The generated report explicitly states the fact OR clearly implies it with equivalent meaning, without altering any key details.
**Not Covered**: The fact is missing, too vague to confirm, contradicted, or altered in any key way.

## EQUIVALENCE RULES (STRICT)
1. **Entities**: Correct player/team names are used. Spelling variants are acceptable; completely wrong names are NOT.
2. **Directionality/Polarity**: The meaning is preserved—{directionality}, positive vs negative.
3. **Numbers**: If the fact includes any number ({numbers}), the generated report must match the number EXACTLY. Rounding, approximation, or "about X" does NOT count.
4. **Timing/Period**: If the fact specifies {timing}, the generated report must match this exactly.
5. **Specificity**: Generic statements do NOT cover specific facts.
{examples}

## PROCEDURE
For each ground-truth fact:
1. Search the generated report for a matching statement.
2. Apply the equivalence rules above.
3. Classify as **Covered** or **Not Covered**.
4. Provide a brief justification.

Format each result as:
-- [Fact text] — [Covered/Not Covered] — [Brief justification]

After all facts, provide:
Overall Score: X/Y
Where X = number of Covered facts and Y = total number of ground-truth facts.

GROUND-TRUTH FACT LIST:
{fact_list}

GENERATED REPORT:
{report}"""

_MUST = re.compile(
    r"^\s*must\s+(?:not\s+)?(?:mention|state|say|include|identify|note|explain|describe|"
    r"specify|indicate|recognise|recognize)\s+(?:that\s+)?",
    re.I,
)
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "from",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "it",
        "its",
        "this",
        "that",
        "their",
        "his",
        "her",
        "they",
        "he",
        "she",
        "them",
        "who",
        "what",
        "which",
        "when",
        "where",
        "how",
        "why",
        "there",
        "than",
        "then",
        "into",
        "onto",
        "over",
        "under",
        "after",
        "before",
        "during",
        "while",
        "not",
        "no",
    ]
)


def fact_of(description: str) -> str:
    """ "Must mention that the coach told players X" -> "the coach told players X"."""
    return _MUST.sub("", description).strip().rstrip(".")


def content_words(text: str) -> list[str]:
    return [w for w in normalise(text).split() if w not in _STOP and (len(w) > 2 or w.isdigit())]


def fallback_criterion(answer: str | None, criterion: dict[str, Any]) -> bool | None:
    """Met (True), not met (False) or unjudged (None), by text alone; penalties: None."""
    if criterion.get("is_penalty"):
        return None
    if not answer or not answer.strip():
        return False
    fact = fact_of(str(criterion.get("description", "")))
    words = content_words(fact)
    if not words:
        return None
    text = f" {normalise(answer)} "
    if f" {normalise(fact)} " in text:
        return True
    found = sum(f" {w} " in text for w in words)
    if found == len(words):
        return True
    return False if found == 0 else None


def _json_object(text: str) -> dict[str, Any] | None:
    body = strip_reasoning(text or "")
    m = re.search(r"\{.*\}", body, re.S)
    if not m:
        return None
    try:
        data = orjson.loads(m.group(0))
    except orjson.JSONDecodeError:
        return None
    return data if isinstance(data, dict) else None


class CriteriaJudge:
    """STARBench criteria and T6 coverage/writing with a judge model when there is one, the
    text fallbacks (and unjudged writing quality) when there is none."""

    def __init__(self, client: ChatClient | None, params: ChatParams | None = None) -> None:
        self.client = client
        self.params = params or ChatParams()

    @property
    def name(self) -> str:
        return "llm" if self.client is not None else "text-fallback"

    async def _ask(self, prompt: str) -> str | None:
        assert self.client is not None
        try:
            reply = await self.client.chat(
                [ChatMessage(role="user", content=prompt)], None, self.params
            )
        except ModelError:
            return None
        return reply.content

    async def criterion(
        self, question: str, answer: str | None, criterion: dict[str, Any]
    ) -> bool | None:
        if self.client is None:
            return fallback_criterion(answer, criterion)
        if not answer or not answer.strip():
            return False if not criterion.get("is_penalty") else None
        penalty = bool(criterion.get("is_penalty"))
        prompt = CRITERION_PROMPT.format(
            question=question,
            answer=answer,
            description=criterion.get("description", ""),
            kind="penalty" if penalty else str(criterion.get("category", "criterion")),
            ask=ASK_PENALTY if penalty else ASK_POSITIVE,
        )
        data = _json_object(await self._ask(prompt) or "")
        value = data.get("satisfied") if data else None
        return value if isinstance(value, bool) else None

    async def coverage(
        self, sport: str, facts: list[str], report: str | None
    ) -> tuple[int, int] | None:
        """(covered, total) facts; None = unjudged."""
        if not facts:
            return None
        if self.client is None:
            hits = [fallback_criterion(report, {"description": f}) for f in facts]
            return None if None in hits else (sum(bool(h) for h in hits), len(facts))
        hints = sport_record(sport).coverage
        prompt = COVERAGE_PROMPT.format(
            directionality=hints.directionality,
            numbers=hints.numbers,
            timing=hints.timing,
            examples=hints.examples,
            fact_list="\n".join(facts),
            report=report or "",
        )
        return coverage_score(await self._ask(prompt) or "")

    async def writing(self, instruction: str, report: str | None) -> float | None:
        """Fig. 38's final_overall score 1-5; None without a judge model (no text rule can
        grade style honestly)."""
        if self.client is None or not report:
            return None
        data = _json_object(
            await self._ask(WRITING_PROMPT.format(report=report, instruction=instruction)) or ""
        )
        final = (data or {}).get("final_overall")
        score = final.get("score") if isinstance(final, dict) else None
        return float(score) if isinstance(score, (int, float)) and 1 <= score <= 5 else None


def coverage_score(reply: str) -> tuple[int, int] | None:
    """eval_coverage.py's extract_score: "Overall Score: X/Y", else the Covered / Not Covered
    labels counted."""
    body = strip_reasoning(reply)
    m = re.search(r"Overall Score:\s*(\d+)\s*/\s*(\d+)", body)
    if m:
        return int(m.group(1)), int(m.group(2))
    covered = len(re.findall(r"—\s*Covered", body, re.I))
    not_covered = len(re.findall(r"—\s*Not Covered", body, re.I))
    total = covered + not_covered
    return (covered, total) if total else None


WRITING_PROMPT = """You are an expert sports analyst and a meticulous long-form report evaluation assistant.
Your task is to evaluate how well a Report satisfies the REPORT_INSTRUCTION specifically in terms of writing style, formatting, persona adherence, narrative coherence, and writing flow.

Crucial Constraints:
- You DO NOT generate your own report. You only analyze and score the Pred report.
- You MUST follow a strict Chain-of-Thought (CoT) procedure for every evaluation category below:
  * task_input_analysis: Identify style, formatting, persona, tone, and perspective required by the REPORT_INSTRUCTION.
  * report_analysis: Analyze the Pred report's tone, structure, flow, formatting, and stylistic elements.
  * justification_cot: Explicitly compare the Pred report against the stylistic/formatting instructions. Provide step-by-step reasoning.
  * score: Assign a score from 1 to 5 based on the rubric.

EVALUATION CATEGORIES AND PROCEDURES

## STYLISTIC & PERSONA ADHERENCE

FOCUS:
- Does the report successfully adopt the requested Writing Style (e.g., Analytical, Journalistic, Dramatic)?
- Does it successfully adopt the requested Perspective/Audience (e.g., Scout, Fan, Neutral Analyst)?
- Does it adhere to formatting constraints (word count, paragraph form, bullets, etc.)?

PROCEDURE:
- task_input_analysis: Identify required style, persona, formatting.
- report_analysis: Analyze tone, vocabulary, narrative approach, formatting.
- justification_cot: Evaluate consistency with required style/persona; check formatting constraint adherence.

SCORING GUIDE:
- 5: Perfect stylistic alignment; consistent persona; flawless formatting.
- 4: Strong alignment; minor tone or formatting inconsistencies.
- 3: Mixed or inconsistent style/persona; noticeable formatting problems.
- 2: Minimal adherence; generic tone; major formatting issues.
- 1: Does not follow style/persona/format at all.

## NARRATIVE COHERENCE & QUALITY

FOCUS:
- Coherence: Is the report logically structured?
- Flow: Do ideas transition smoothly?
- Clarity & Fluency: Is writing professional, readable, and non-repetitive?
- Synthesis: Does the report integrate ideas into a cohesive narrative?

PROCEDURE:
- task_input_analysis: N/A
- report_analysis: Evaluate structure, transitions, clarity, grammar, repetition, and synthesis.
- justification_cot: Provide detailed reasoning on coherence, flow, and clarity.

SCORING GUIDE:
- 5: Highly coherent, smooth, and professional; strong synthesis.
- 4: Clear and mostly smooth; minor repetition or structural issues.
- 3: Generally readable but with noticeable disruptions in flow, clarity, or structure.
- 2: Poor flow or clarity; disjointed or difficult to follow.
- 1: Incoherent, broken language; severely unclear.

## FINAL HOLISTIC SCORE

The final_overall score MUST reflect overall stylistic and narrative quality.

ERROR SEVERITY:
- Minor Error: Small style/flow/formatting issues.
- Major Error: Broken flow, inconsistent persona, major formatting failures.
- Critical Error: Completely incoherent or disregards all stylistic and formatting rules.

SCORING GUIDE:
- 5 (Excellent): Highly reliable, coherent, consistent style/persona; only a few minor flaws.
- 4 (Good): Strong overall; may contain several minor errors or one major error.
- 3 (Acceptable): Some value, but multiple major issues or notable weaknesses.
- 2 (Poor): Style/flow significantly flawed; text not useful without heavy revision.
- 1 (Very Poor): Incoherent or completely ignores style/format requests.

OUTPUT FORMAT (STRICT JSON STRUCTURE)
{{
  "stylistic_persona_adherence": {{
    "task_input_analysis": "...",
    "report_analysis": "...",
    "justification_cot": "...",
    "score": X
  }},
  "narrative_coherence_quality": {{
    "task_input_analysis": "...",
    "report_analysis": "...",
    "justification_cot": "...",
    "score": X
  }},
  "final_overall": {{
    "justification_cot": "...",
    "score": X
  }}
}}

Do NOT include any extra keys.
Do NOT output explanations outside the JSON object.
Ensure the JSON is valid.

REPORT TO ANALYZE:
{report}

REPORT_INSTRUCTION:
{instruction}
"""
