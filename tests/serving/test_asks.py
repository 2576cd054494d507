"""An admitted ask always leaves a trajectory that says what happened, even when its client
left before the run's task took its first step (then `run_ask` never ran to record it)."""

from __future__ import annotations

import asyncio

import pytest

from playscout.agent import read_trajectory
from playscout.serving.asks import CLIENT_GONE, AskCancelled, AskRun
from playscout.usecases import AskRequest, prepare_ask


def test_a_run_cancelled_before_it_started_is_recorded(app_factory):
    state = app_factory().state.serving
    ask = AskRequest(question="who scored?", policy="workflow", mode="oracle")
    req = prepare_ask(ask, runtime=state.runtime)

    async def admit_and_drop() -> AskRun:
        run = AskRun(state, req)
        run.cancel(CLIENT_GONE)  # same tick: the task has not started
        with pytest.raises(AskCancelled):
            await run.result()
        await asyncio.sleep(0)  # the task's done callbacks
        return run

    run = asyncio.run(admit_and_drop())
    assert not run.started and state.limiter.in_use == 0
    events = read_trajectory(run.path)
    assert [e.type for e in events] == ["run_start", "error"]
    assert events[0].question == "who scored?" and events[0].policy == "workflow"
    assert events[1].kind == "cancelled" and events[1].message == "cancelled: client disconnected"
