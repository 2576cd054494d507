"""T5 calibration as the SVI-Bench reference computes it (its T5 `evaluation/calc_ce.py`).

Every option of every question is one sample: its probability goes into one of `bins`
equal-width bins (bin = min(int(p * bins), bins - 1), so p = 1.0 lands in the last), and it
counts as correct when it is the gold option. Per bin, acc = share of gold options and
conf = mean probability; an empty bin has acc = conf = 0. The primary value is the unweighted
mean over all bins, empty ones included: CE = (1/B) sum_i |acc_i - conf_i|. The weighted
variant, sum_i (n_i/N) |acc_i - conf_i| with N the number of options, is reported beside it.
docs/metrics.md works both by hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel

OptionProbs = Mapping[
    str, float
]  # option label -> probability (the reference's option_probabilities)


class CalibrationBin(BaseModel):
    lower: float
    upper: float
    n: int
    confidence: float
    accuracy: float


class Calibration(BaseModel):
    ce: float  # primary: unweighted mean over bins
    weighted_ce: float
    samples: int  # options scored (N)
    questions: int
    bins: list[CalibrationBin]


def calibration_error(
    option_probs: Sequence[OptionProbs | None], gold: Sequence[str], bins: int = 5
) -> Calibration | None:
    """`option_probs[i]` is question i's probability per option (None: the question errored
    and is skipped, as the reference skips entries with an error); `gold[i]` its gold label.
    None when no option was scored (the reference divides by zero there)."""
    if len(option_probs) != len(gold):
        raise ValueError("option_probs and gold differ in length")
    if bins < 1:
        raise ValueError("need at least one bin")
    members: list[list[tuple[float, int]]] = [[] for _ in range(bins)]
    questions = 0
    for probs, g in zip(option_probs, gold, strict=True):
        if not probs:
            continue
        questions += 1
        for option, p in probs.items():
            members[min(int(p * bins), bins - 1)].append((p, 1 if option == g else 0))
    total = sum(len(m) for m in members)
    if total == 0:
        return None
    stats = []
    for i, m in enumerate(members):
        n = len(m)
        stats.append(
            CalibrationBin(
                lower=i / bins,
                upper=(i + 1) / bins,
                n=n,
                confidence=sum(p for p, _ in m) / n if n else 0.0,
                accuracy=sum(c for _, c in m) / n if n else 0.0,
            )
        )
    gaps = [abs(b.accuracy - b.confidence) for b in stats]
    return Calibration(
        ce=sum(gaps) / bins,
        weighted_ce=sum(b.n / total * gap for b, gap in zip(stats, gaps, strict=True)),
        samples=total,
        questions=questions,
        bins=stats,
    )


def chosen_option_probs(
    n_options: int, choice: int | None, confidence: float | None
) -> list[float]:
    """Option probabilities from a verbalised answer: the chosen option gets its stated
    confidence and the others share the rest equally; no choice (or no stated confidence)
    is the uniform distribution. Used where a model gives one option and one confidence
    instead of the option-letter softmax the reference reads."""
    uniform = [1.0 / n_options] * n_options
    if choice is None or confidence is None or not 0 <= choice < n_options:
        return uniform
    c = max(0.0, min(1.0, confidence))
    rest = (1.0 - c) / (n_options - 1) if n_options > 1 else 0.0
    return [c if i == choice else rest for i in range(n_options)]


def brier_score(probs: Sequence[Sequence[float]], gold: Sequence[int]) -> float | None:
    """Mean over items of sum_k (p_k - [k == gold])^2."""
    if not probs:
        return None
    total = 0.0
    for p, g in zip(probs, gold, strict=True):
        total += sum((pk - (1.0 if k == g else 0.0)) ** 2 for k, pk in enumerate(p))
    return total / len(probs)
