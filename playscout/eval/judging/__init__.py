"""Judging: how one answer is scored, whatever the run. The judges (the paper's LLM
answer-equivalence judge and a deterministic one; T4's 0-5 rubric judge; criterion by criterion
for STARBench and T6) and the pure metric functions (`judging.metrics`). Nothing here reads a
run directory: the judge step over a run is `running.judge`."""

from playscout.eval.judging.equivalence import EquivalenceJudge, judge_equivalence
from playscout.eval.judging.judge import Judge, Verdict
from playscout.eval.judging.llm import LLMJudge, parse_verdict

__all__ = [
    "EquivalenceJudge",
    "Judge",
    "LLMJudge",
    "Verdict",
    "judge_equivalence",
    "parse_verdict",
]
