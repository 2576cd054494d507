"""Tool descriptions are templates: every number a description states is a `{{section.field}}`
of the setting that decides it (`{{search.document_top_k}}`, `{{qa.frames_per_clip}}`), so the
model is never told "top 20 documents" when the run returns 5. The registry's one-line
descriptions and the preset description files (playscout/tools/descriptions/) are filled the
same way, in one pass, and a placeholder nothing fills is a ToolSpecError when the tools are
set up, never a literal `{{...}}` in a prompt."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from importlib import resources

from pydantic import BaseModel

from playscout.config import QASettings, SearchSettings
from playscout.corpus.sports import period_words
from playscout.tools.errors import ToolSpecError
from playscout.tools.tool import Tool

DESCRIPTIONS = "descriptions"  # playscout/tools/descriptions/<name>.txt
_FIELD = re.compile(r"\{\{([\w.]+)\}\}")
_SECTIONS: dict[str, type[BaseModel]] = {"search": SearchSettings, "qa": QASettings}


def _period_words() -> str:
    """Every registered sport's word for a period, once each: `quarter/period/half`."""
    return "/".join(dict.fromkeys(period_words().values()))


TEXT_FIELDS: dict[str, Callable[[], str]] = {
    # Sport wording, from the sport records (corpus/sports): a new sport's word appears here.
    "period_words": _period_words,
    # What a clip window spans in the T9 layout, not a setting.
    "clip_seconds": lambda: "10-15",
}
"""Fields that are words, not settings."""

INCLUDES = {"templates": "video_qa_templates"}
"""Fields filled with a whole description file (the shared video-QA question templates)."""


@functools.cache
def description_text(name: str) -> str:
    try:
        path = resources.files("playscout.tools").joinpath(f"{DESCRIPTIONS}/{name}.txt")
        return path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        raise ToolSpecError(
            f"no tool description {name!r} (looked for playscout/tools/{DESCRIPTIONS}/{name}.txt)"
        ) from None


def fields(template: str) -> set[str]:
    return set(_FIELD.findall(template))


def _known(key: str) -> bool:
    section, _, name = key.partition(".")
    model = _SECTIONS.get(section)
    return (
        key in TEXT_FIELDS or key in INCLUDES or (model is not None and name in model.model_fields)
    )


def unknown_fields(template: str) -> list[str]:
    """The placeholders of `template` that no setting, word or file fills."""
    return sorted(k for k in fields(template) if not _known(k))


def fill(template: str, search: SearchSettings, qa: QASettings, where: str) -> str:
    """`template` with every placeholder filled from these settings; `where` names it in the
    one-line error an unknown placeholder gives."""

    def value(match: re.Match[str]) -> str:
        key = match.group(1)
        if not _known(key):
            raise ToolSpecError(f"{where} has an unknown placeholder {{{{{key}}}}}")
        if key in TEXT_FIELDS:
            return TEXT_FIELDS[key]()
        if key in INCLUDES:
            return description_text(INCLUDES[key])
        section, _, name = key.partition(".")
        return str(getattr({"search": search, "qa": qa}[section], name))

    return _FIELD.sub(value, template)


def render_description(name: str, search: SearchSettings, qa: QASettings) -> str:
    """A preset's description file, filled from the run's settings."""
    return fill(description_text(name), search, qa, f"tool description {name!r}")


def described(tools: Sequence[Tool], search: SearchSettings, qa: QASettings) -> tuple[Tool, ...]:
    """The tools with their descriptions filled from the run's settings (a description already
    filled is left as it is)."""
    return tuple(
        t
        if not fields(t.description)
        else replace(t, description=fill(t.description, search, qa, f"tool {t.name!r}"))
        for t in tools
    )
