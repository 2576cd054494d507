"""Pluggable judges: the paper's LLM answer-equivalence judge and a deterministic one."""

from playscout.eval.judges.equivalence import EquivalenceJudge, judge_equivalence
from playscout.eval.judges.judge import Judge, Verdict
from playscout.eval.judges.llm import LLMJudge, parse_verdict
from playscout.eval.judges.run import judge_run, judge_run_async, make_judge

__all__ = [
    "EquivalenceJudge",
    "Judge",
    "LLMJudge",
    "Verdict",
    "judge_equivalence",
    "judge_run",
    "judge_run_async",
    "make_judge",
    "parse_verdict",
]
