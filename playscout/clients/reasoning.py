"""Removing a model's `<think>` reasoning from its reply, before anything reads the reply.

One definition for every reader (answer parsing here, the agent's tool-call and answer
parsing, the eval judge), because each used to strip differently and a draft tool call, answer
or verdict inside reasoning must never count anywhere. Of the variants this keeps the one that
hides the most: an unclosed block hides the rest (the model ran out of tokens while thinking);
a closing tag with no opener before it hides everything before it (chat templates such as
Qwen3's open the block in the prompt), and when there are several such tags, everything up to
the last; nested blocks are tracked by depth; tags match in any case.
"""

from __future__ import annotations

THINK_OPEN, THINK_CLOSE = "<think>", "</think>"


def strip_reasoning(text: str) -> str:
    """The visible text: `text` outside reasoning, without surrounding whitespace."""
    low = text.lower()
    kept: list[str] = []
    depth = pos = 0
    while pos < len(text):
        nxt_open = low.find(THINK_OPEN, pos)
        nxt_close = low.find(THINK_CLOSE, pos)
        if depth == 0:
            if nxt_close != -1 and (nxt_open == -1 or nxt_close < nxt_open):
                kept, pos = [], nxt_close + len(THINK_CLOSE)  # template-opened: all before it
                continue
            if nxt_open == -1:
                kept.append(text[pos:])
                break
            kept.append(text[pos:nxt_open])
            depth, pos = 1, nxt_open + len(THINK_OPEN)
            continue
        if nxt_close == -1:
            break  # unclosed: the rest is reasoning
        if nxt_open != -1 and nxt_open < nxt_close:
            depth, pos = depth + 1, nxt_open + len(THINK_OPEN)
        else:
            depth, pos = depth - 1, nxt_close + len(THINK_CLOSE)
    return "".join(kept).strip()
