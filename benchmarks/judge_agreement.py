"""How often the offline equivalence judge agrees with a careful reader: the hand-labelled set
tests/eval/judge_labels.jsonl (question, gold, answer, sport, verdict right/wrong/unclear, and
a fixed split: tune or heldout, by question, so held-out golds were never looked at while
tuning), judged with the aliases the sport records and tests/eval/judge_entities.json give.

    python benchmarks/judge_agreement.py [--labels PATH] [--errors]

Per split it prints: rows; clear rows (labelled right or wrong); the judge's decisions on
them; agreement over those decisions; abstention over clear rows; confident errors (a
decision against the label, the number that matters most); and, over the rows labelled
unclear, how many the judge decided anyway. --errors lists each confident error.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playscout.corpus.sports import sport as sport_record
from playscout.eval.judging import judge_equivalence
from playscout.eval.judging.text import name_aliases

ROOT = Path(__file__).resolve().parents[1]
LABELS = ROOT / "tests" / "eval" / "judge_labels.jsonl"
ENTITIES = ROOT / "tests" / "eval" / "judge_entities.json"


@dataclass
class Tally:
    rows: int = 0
    clear: int = 0
    decided: int = 0
    agree: int = 0
    unclear: int = 0
    unclear_decided: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)

    @property
    def agreement(self) -> float:
        return self.agree / self.decided if self.decided else 0.0

    @property
    def abstention(self) -> float:
        return 1 - self.decided / self.clear if self.clear else 0.0


def load_labels(path: Path = LABELS) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def sport_aliases(path: Path = ENTITIES) -> dict[str, dict[str, str]]:
    """What judges/run.run_aliases builds from an index: the sport's nickname table plus the
    unique team last words and player surnames of the corpus."""
    ents = json.loads(path.read_text())
    return {
        s: name_aliases(e["teams"], e["players"], sport_record(s).team_aliases)
        for s, e in ents.items()
    }


def score(rows: list[dict[str, Any]], aliases: dict[str, dict[str, str]]) -> dict[str, Tally]:
    out: dict[str, Tally] = {}
    for r in rows:
        v = judge_equivalence(
            r["question"], r["gold"], r["answer"], aliases.get(r["sport"])
        ).verdict
        for key in (r["split"], "all"):
            t = out.setdefault(key, Tally())
            t.rows += 1
            if r["verdict"] == "unclear":
                t.unclear += 1
                t.unclear_decided += v is not None
                continue
            t.clear += 1
            if v is None:
                continue
            t.decided += 1
            if v == r["verdict"]:
                t.agree += 1
            elif key == "all":
                t.errors.append({**r, "judge": v})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--labels", type=Path, default=LABELS)
    ap.add_argument("--errors", action="store_true", help="list each confident error")
    args = ap.parse_args()
    tallies = score(load_labels(args.labels), sport_aliases())
    print(f"{'split':8} {'rows':>5} {'clear':>5} {'decided':>7} {'agree':>7} {'abstain':>7} "
          f"{'errors':>6} {'unclear decided':>16}")  # fmt: skip
    for key in ("tune", "heldout", "all"):
        t = tallies.get(key, Tally())
        print(
            f"{key:8} {t.rows:5} {t.clear:5} {t.decided:7} {t.agreement:7.1%} "
            f"{t.abstention:7.1%} {t.decided - t.agree:6} {t.unclear_decided:>8}/{t.unclear}"
        )
    if args.errors:
        for e in tallies.get("all", Tally()).errors:
            print(f"[{e['split']}] gold={e['gold']!r} answer={e['answer']!r} "
                  f"label={e['verdict']} judge={e['judge']}")  # fmt: skip


if __name__ == "__main__":
    main()
