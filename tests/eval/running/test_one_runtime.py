"""An eval run builds one Runtime (with its QA clients and its tracer) and hands it to its
tasks; the response cache wraps that Runtime's clients. Before, `eval run` built three
Runtimes per run (the CLI's for preflight, the runner's, and TaskEnv's copy of 13 fields),
QA clients twice and the tracer three times."""

from __future__ import annotations

import shlex
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from playscout.cli.main import app
from playscout.config import AgentSettings, EvalSettings, ModelEndpoint, Settings
from playscout.eval.running.cache import CachingChatClient, ResponseCache
from playscout.eval.running.runner import build_env, eval_runtime, run_eval
from playscout.eval.running.spec import RunSpec
from tests.doubles import ScriptedChatModel
from tests.synthdata import SynthIndex

SPORTS = ("basketball",)  # the shared synthetic index's sport


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many Runtimes, QA model sets (models_from_settings) and tracers were built."""
    from playscout import runtime
    from playscout.agent import tracing
    from playscout.tools import registry

    counts: Counter[str] = Counter()
    init = runtime.Runtime.__init__

    def runtime_init(self: Any, *args: Any, **kwargs: Any) -> None:
        counts["Runtime"] += 1
        init(self, *args, **kwargs)

    monkeypatch.setattr(runtime.Runtime, "__init__", runtime_init)
    for module, name in ((tracing, "otlp_tracer"), (registry, "models_from_settings")):
        real = getattr(module, name)

        def counted(*args: Any, _real: Any = real, _name: str = name, **kwargs: Any) -> Any:
            counts[_name] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(module, name, counted)
    return counts


ONCE = {"Runtime": 1, "otlp_tracer": 1, "models_from_settings": 1}


def test_eval_run_builds_one_runtime(
    built: Counter[str], synth_index: SynthIndex, tmp_path: Path
) -> None:
    run = shlex.split("eval run --task t9 --mode oracle --policy workflow --limit 1 --no-cache")
    paths = {"--index": synth_index.index_dir, "--corpus": synth_index.corpus_dir}
    run += [str(part) for option in paths.items() for part in option] + ["--out", str(tmp_path)]
    result = CliRunner().invoke(app, run)
    assert result.exit_code == 0, result.output
    assert dict(built) == ONCE


def test_run_eval_without_a_runtime_builds_one(
    built: Counter[str], settings: Settings, tmp_path: Path
) -> None:
    spec = RunSpec(
        task="t9", mode="oracle", policy="workflow", sports=SPORTS, limit=1, out_dir=tmp_path / "r"
    )
    uncached = settings.model_copy(update={"eval": EvalSettings(cache_db=None)})
    assert run_eval(spec, uncached).statuses
    assert dict(built) == ONCE


def test_the_cache_wraps_the_runtimes_clients(settings: Settings, tmp_path: Path) -> None:
    spec = RunSpec(
        task="t9", mode="oracle", policy="llm", sports=SPORTS, limit=1, out_dir=tmp_path / "r"
    )
    runtime = eval_runtime(spec, settings, needs_index=False, client=ScriptedChatModel())
    cache = ResponseCache(tmp_path / "cache.sqlite")
    try:
        env = build_env(spec, runtime, cache)
        assert env.runtime is runtime and env.settings is runtime.settings
        assert isinstance(env.client, CachingChatClient) and env.client.inner is runtime.llm
        assert env.backend is runtime.backend and env.preset is runtime.preset
    finally:
        cache.close()


def test_an_llm_run_answers_again_from_the_cache(
    settings: Settings, synth_index: SynthIndex, tmp_path: Path
) -> None:
    """Two runs over one cache file: the second one's agent calls never reach the model (only
    temperature-0 calls are cached, so the agent's temperature is set)."""
    cached = Settings(
        corpus_dir=settings.corpus_dir,
        index=settings.index,
        agent=AgentSettings(llm=ModelEndpoint(temperature=0.0)),
        eval=EvalSettings(cache_db=tmp_path / "c.sqlite"),
    )
    model = ScriptedChatModel()
    first = RunSpec(
        task="t9", mode="oracle", policy="llm", sports=SPORTS, limit=1, out_dir=tmp_path / "a"
    )
    one = run_eval(first, cached, client=model, backend=synth_index.backend)
    calls = len(model.requests)
    second = first.model_copy(update={"out_dir": tmp_path / "b"})
    two = run_eval(second, cached, client=model, backend=synth_index.backend)
    assert calls > 0 and one.cache_misses == calls and one.cache_hits == 0
    assert len(model.requests) == calls and two.cache_hits == calls
