from __future__ import annotations

from playscout.agent.context import (
    CharEstimate,
    Meta,
    cut_observation,
    default_tokenizer,
    drop_oldest_turns,
)


def _history(n_turns: int) -> tuple[list[dict], list[Meta]]:
    msgs = [{"role": "system", "content": "s"}, {"role": "user", "content": "q"}]
    meta = [Meta(kind="system", tokens=100, turn=0), Meta(kind="question", tokens=10, turn=0)]
    for t in range(1, n_turns + 1):
        msgs += [{"role": "assistant", "content": f"a{t}"}, {"role": "user", "content": f"o{t}"}]
        meta += [
            Meta(kind="assistant", tokens=10, turn=t),
            Meta(kind="observation", tokens=90, turn=t),
        ]
    return msgs, meta


def test_drop_oldest_whole_turns_with_notice() -> None:
    msgs, meta = _history(3)  # 110 + 3*100 = 410
    out, out_meta, dropped, fits = drop_oldest_turns(
        CharEstimate(), msgs, meta, 320, lambda n: f"{n} removed"
    )
    assert fits and dropped == 1
    assert [m["content"] for m in out] == ["s", "q", "1 removed", "a2", "o2", "a3", "o3"]
    assert len(out) == len(out_meta)


def test_never_drops_system_question_or_current_turn() -> None:
    msgs, meta = _history(1)
    out, _, dropped, fits = drop_oldest_turns(CharEstimate(), msgs, meta, 50, lambda n: "x")
    assert not fits and dropped == 0 and out == msgs


def test_cut_observation_counts_tokens() -> None:
    tok = default_tokenizer()
    text = "the quick brown fox jumps " * 200
    cut, total = cut_observation(tok, text, 50)
    assert total is not None and total > 50
    assert tok.count(cut.split("\n[observation cut")[0]) <= 50
    assert cut_observation(tok, "short", 50) == ("short", None)
