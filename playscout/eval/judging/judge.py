"""The judge interface: one verdict per (question, gold, prediction). A verdict of None is
"unjudged" (the judge could not decide, failed, or replied nonsense) and is reported as such,
never silently folded into Wrong as the reference did (defect 14)."""

from __future__ import annotations

from typing import Literal, Protocol

from pydantic import BaseModel

VerdictLabel = Literal["right", "wrong"]


class Verdict(BaseModel):
    verdict: VerdictLabel | None
    reason: str = ""
    raw: str | None = None


class Judge(Protocol):
    name: str

    async def judge(
        self, question: str, gold: str, pred: str | None, sport: str | None = None
    ) -> Verdict: ...
