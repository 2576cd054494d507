"""What each eval task tells preflight it needs (Task.calls -> runtime Needs)."""

from __future__ import annotations

import pytest

from playscout.config.presets import DEFAULT_EVAL_PRESET, load_preset
from playscout.eval.running.preflight import run_needs
from playscout.eval.running.spec import RunSpec
from playscout.eval.tasks.registry import get_task, task_names
from playscout.eval.tasks.task import AGENT
from playscout.runtime.preflight import Needs
from playscout.tools.registry import ALL_TOOLS


@pytest.mark.parametrize("name", task_names(generated=True))
def test_every_task_says_what_it_calls(name: str) -> None:
    calls = get_task(name).calls
    assert calls <= {t.name for t in ALL_TOOLS} | {AGENT}, calls
    assert AGENT not in calls or calls == {AGENT}


def _needs(task: str, **spec: object) -> Needs:
    spec_ = RunSpec.model_validate({"task": task, "out_dir": "r", "sports": ["basketball"], **spec})
    return run_needs(get_task(task), spec_, load_preset(DEFAULT_EVAL_PRESET))


def test_agent_tasks_need_the_model_and_clip_search() -> None:
    needs = _needs("t9", sports=["basketball", "hockey"], policy="llm")
    assert needs.agent and not needs.direct and needs.sports == ("basketball", "hockey")
    assert {"search_videos", "video_qa", "document_qa"} <= needs.tools
    assert not _needs("t9", policy="workflow").agent


def test_direct_tasks_need_only_their_tools() -> None:
    t3 = _needs("t3", policy="llm", mode="oracle")
    assert (t3.agent, t3.direct, t3.tools, t3.mode) == (False, True, {"search_videos"}, "oracle")
    t2 = _needs("t2")
    assert t2.tools == {"video_qa"} and t2.direct and t2.roles() == ["video_qa"]
    assert _needs("t7").sports == ()  # needs no index
