"""Prompt templates of the QA tools (paper Figs. 44-45), as .txt files so they can be read and
swapped without touching code. Placeholders are `{{name}}`, filled in one pass so that text
inside a document can never be mistaken for a placeholder.

`<name>_reference.txt` are the SVI-Bench reference's own QA prompts, verbatim (Texaser/SVI-Bench
at 2995ffc, svi_bench/tasks/t9_cross_corpus_agentic_reasoning/prompts/tools/; MIT License,
Copyright (c) 2026 SVI-Bench contributors): the paper preset sends them (`qa_prompt`)."""

from __future__ import annotations

import functools
import re
from importlib import resources

_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")


@functools.cache
def load_template(name: str) -> str:
    return resources.files(__name__).joinpath(f"{name}.txt").read_text(encoding="utf-8")


def placeholders(template: str) -> set[str]:
    return set(_PLACEHOLDER.findall(template))


def render(name: str, **values: str) -> str:
    """Every placeholder must be given and every value used: a typo is an error, not a prompt
    with a literal `{{query}}` in it."""
    template = load_template(name)
    wanted = placeholders(template)
    if wanted != set(values):
        raise KeyError(f"template {name}: needs {sorted(wanted)}, got {sorted(values)}")
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], template)


# The reference names the oracle's captions placeholder {{oracle_text}}.
_REFERENCE_KEYS = {"captions": "oracle_text"}


def qa_prompt(name: str, style: str, **values: str) -> str:
    """The QA prompt `name` in a tool context's style: the reference's verbatim text under
    `reference` (the paper preset), playscout's otherwise."""
    if style == "reference":
        return render(
            f"{name}_reference", **{_REFERENCE_KEYS.get(k, k): v for k, v in values.items()}
        )
    return render(name, **values)
