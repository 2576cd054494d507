"""Every registered task with generated questions runs end to end offline on the small
synthetic corpus; EXPECTED pins a headline metric of the tasks it names."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from playscout.eval import RunSpec, run_eval
from playscout.eval.storage.store import load_results
from playscout.eval.tasks.guard import BackendView
from playscout.eval.tasks.registry import get_task, task_names

SPORTS = ("basketball",)  # the shared synthetic index's sport


def _offline(task: str, run: Path, **spec: Any) -> RunSpec:
    """The task over the shared index, offline (oracle mode, the workflow policy)."""
    return RunSpec(task=task, mode="oracle", policy="workflow", sports=SPORTS, out_dir=run, **spec)


EXPECTED = {
    "t1": "avg_score", "t2": "accuracy", "t3": "MedR", "t4": "avg_score",
    "t5": "calibration_error", "t6": "saliency", "t7": "video_miou", "t8": "goal_accuracy",
    "gameplayqa": "per_entity_type", "starbench": "rubric_score_pct", "lcric": "regression_l1",
}  # fmt: skip


@pytest.mark.parametrize("name", [n for n in task_names(generated=True) if n != "t9"])
def test_task_runs_offline(name, tmp_path, settings, eval_settings, synth_backend) -> None:
    run = tmp_path / name
    spec = _offline(name, run, concurrency=4, limit=2)
    s = run_eval(spec, settings.model_copy(update={"eval": eval_settings}), backend=synth_backend)
    rows = load_results(run)
    assert rows and s.ran == len(rows)
    assert not [r for r in rows if r.status == "error" and "internal error" in str(r.error)]
    metrics = get_task(name).score(rows)
    assert metrics and EXPECTED.get(name, next(iter(metrics))) in metrics


def test_t3_retrieves_positive_in_pool(tmp_path, settings, eval_settings, synth_backend) -> None:
    run = tmp_path / "t3"
    spec = _offline("t3", run, concurrency=2, limit=3)
    run_eval(spec, settings.model_copy(update={"eval": eval_settings}), backend=synth_backend)
    rows = load_results(run)
    assert all(r.status == "answered" for r in rows)
    assert all(r.rank is not None and r.pool_size and r.rank <= r.pool_size for r in rows)


def test_guard_hides_report(synth_backend) -> None:
    gid = synth_backend.search_documents("basketball", "points", None, 5)[0].record.game_id
    view = BackendView(hide_doc_ids={f"{gid}_espn_report"}).wrap(synth_backend)
    assert view.get_documents("basketball", [f"{gid}_espn_report"]) == [None]
    hits = view.search_documents("basketball", "routed improved", None, 50)
    assert f"{gid}_espn_report" not in {h.doc_id for h in hits}
    assert synth_backend.get_documents("basketball", [f"{gid}_espn_report"])[0] is not None
