"""What ran, as run.json records it (`ran`) for the comparability stamp (running/stamp.py): the
clients the run's tasks call (not the settings asked for: a test or an app may hand the
runtime its clients), every resolved setting that differs from the preset's, the questions
asked against the release's questions files, the index's channels as its manifest records
them, the corpus, the judge. `planned_stamp` is the stamp a run would get before it starts
(`eval run --strict`); `require_comparable` refuses it in one line. The entry points (the CLI,
the run service, a use case that starts runs) call these, never their own copy."""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from playscout.config import Settings, dotted_overrides
from playscout.config.presets import (
    DEFAULT_EVAL_PRESET,
    Preset,
    apply_preset,
    leaves,
    preset_record,
)
from playscout.corpus import Corpus
from playscout.eval.running.spec import RunSpec
from playscout.eval.running.stamp import (
    COMPARABLE,
    Stamp,
    corpus_kind,
    index_channels,
    observed_clips,
)
from playscout.eval.running.stamp import stamp as stamp_of
from playscout.tools.tool import ModelSet

if TYPE_CHECKING:
    from playscout.eval.tasks.task import Instance, TaskEnv
    from playscout.runtime import Runtime

# Settings that cannot change a benchmark number: where things are, how they are reached,
# how fast and with what logging. Every other resolved setting must equal the preset's.
# (Model names are not here by oversight: the roles and the judge are checked by name.)
OPERATIONAL = (
    "corpus_dir", "index", "backend", "preset",
    "embed.*", "search.device", "search.recall_*", "search.query_log*",
    "search.ann_target_recall", "search.ann_min_rows", "search.ann_queries",  # build-time only
    "*.base_url", "*.model", "*.api_key_env", "*.timeout_s", "*.max_retries",
    "qa.video_query.*",  # an embedding endpoint: its name is checked, nothing else applies
    "qa.max_concurrency", "qa.tokenizer_path", "agent.tokenizer_path",  # a closer count only
    "agent.trajectory_dir", "agent.session_db",
    "perception.*", "serving.*", "telemetry.*",
    "eval.runs_dir", "eval.cache_db", "eval.concurrency", "eval.judge_concurrency",
)  # fmt: skip


def _operational(path: str) -> bool:
    return any(fnmatch.fnmatchcase(path, pattern) for pattern in OPERATIONAL)


def settings_over_preset(settings: Settings, preset: Preset) -> list[str]:
    """Every resolved setting that differs from what `preset` resolves to for the same models
    and paths (`key=value (paper: value)`), whether the preset's overlay lists the key or not:
    the defaults of keys it leaves alone are part of the protocol too."""
    given = leaves(settings.model_dump(mode="json"))
    keep = [(k, v) for k, v in given.items() if _operational(k) and v is not None]
    base = Settings.model_validate(dotted_overrides(keep))
    expected = leaves(apply_preset(base, preset)[0].model_dump(mode="json"))
    return [
        f"{k}={given[k]!r} ({preset.name}: {expected.get(k)!r})"
        for k in sorted(given)
        if not _operational(k) and given[k] != expected.get(k)
    ]


def question_facts(
    instances: Sequence[Instance], corpus: Corpus | None, sports: Sequence[str]
) -> dict[str, dict[str, Any]]:
    """Per sport: the questions the run asks and how many the corpus' questions file has
    (`release`), and whether they are the same questions."""
    out: dict[str, dict[str, Any]] = {}
    for sport in dict.fromkeys([*sports, *(i.sport for i in instances)]):
        ids = {i.id for i in instances if i.sport == sport}
        facts: dict[str, Any] = {"run": len(ids)}
        if corpus is None:
            facts |= {"release": None, "why": "no corpus to read the release's questions file from"}
        else:
            whole = {q.id for q in corpus.questions(sport)}
            facts |= {"release": len(whole), "same": ids == whole}
        out[sport] = facts
    return out


def _model(client: Any, endpoint: Any) -> str | None:
    if client is None:
        return None
    return str(getattr(client, "model", None) or endpoint.model or type(client).__name__)


def shipped_preset_sha256() -> str:
    """The content hash of this playscout's own `paper` preset file."""
    return str(preset_record(DEFAULT_EVAL_PRESET)["sha256"])


def facts(
    spec: RunSpec,
    runtime: Runtime,
    client: Any,
    models: ModelSet,
    judge: bool,
    questions: dict[str, dict[str, Any]] | None,
) -> dict[str, Any]:
    """What the stamp reads. `judge`: an LLM judge is configured (`eval judge` picks it)."""
    settings, preset = runtime.settings, runtime.preset
    qa = settings.qa
    judge_model = settings.eval.judge.model or None
    return {
        "task": spec.task,
        "mode": spec.mode,
        "policy": spec.policy,
        "shipped_preset_sha256": shipped_preset_sha256(),
        "settings_over_preset": settings_over_preset(settings, preset),
        "roles": {
            "agent": _model(client, settings.agent.llm) if spec.policy == "llm" else None,
            "document_llm": _model(models.document_llm, qa.document_llm),
            "vlm": _model(models.vlm, qa.vlm),
            "caption_llm": _model(models.caption_llm, qa.caption_llm),
        },
        "index": index_channels(runtime.backend) if runtime.backend is not None else None,
        "observed_clips": observed_clips(runtime.backend) if runtime.backend is not None else 0,
        "corpus": corpus_kind(settings.corpus_dir),
        "questions": questions,
        "judge": {
            "kind": "llm" if judge else "equivalence",
            "prompt": preset.judge_prompt,
            "model": judge_model if judge else None,
            "judged": False,
        },
        "expects": preset.expects.model_dump(mode="json") if preset.expects else None,
        "expected_judge_prompt": preset.judge_prompt,
    }


def what_ran(spec: RunSpec, env: TaskEnv, instances: Sequence[Instance]) -> dict[str, Any]:
    """The facts of a run that is starting, over the clients its tasks call."""
    questions = question_facts(instances, env.corpus, spec.sports)
    return facts(spec, env.runtime, env.client, env.models, env.judge is not None, questions)


def planned_stamp(
    spec: RunSpec, runtime: Runtime, instances: Sequence[Instance] | None = None
) -> Stamp:
    """The stamp the run would get, before it starts (`eval run --strict`): the judge is the
    one configured, since `eval judge` picks the LLM judge when there is one; the verdicts
    are not known yet. `instances`: the questions it will ask (None: not known here)."""
    questions = (
        question_facts(instances, runtime.corpus, spec.sports) if instances is not None else None
    )
    judge = runtime.settings.eval.judge.configured
    ran = facts(spec, runtime, runtime.llm, runtime.models, judge, questions)
    return stamp_of(runtime.preset_record(), ran, planned=True)


def require_comparable(
    spec: RunSpec, runtime: Runtime, instances: Sequence[Instance] | None = None
) -> Stamp:
    """`--strict`: a run that could not be comparable is refused before its first question
    (a PreflightError: one line, exit 2 / HTTP 400), with every reason."""
    from playscout.runtime.preflight import PreflightError

    verdict = planned_stamp(spec, runtime, instances)
    if not verdict.comparable:
        n = len(verdict.reasons)
        raise PreflightError(
            f"--strict: this run could not be {COMPARABLE} ({n} reason{'s' * (n > 1)}): "
            + "; ".join(verdict.reasons)
        )
    return verdict


def merge_resume(old: dict[str, Any], now: dict[str, Any]) -> None:
    """A resume is stamped from every setting it ran with: what differs from the preset at any
    start stays a reason, and a resume with other components (models, index, corpus) makes a
    mixed run. `old` is run.json as first written, updated in place."""
    before, after = old.get("ran"), now.get("ran")
    if not before or not after:
        return
    changed = [
        f"{key}: {before.get(key)} then {after.get(key)}"
        for key in ("roles", "index", "corpus", "observed_clips")
        if before.get(key) != after.get(key)
    ]
    if changed:
        before.setdefault("mixed", []).extend(changed)
    seen = before.setdefault("settings_over_preset", [])
    seen += [d for d in after.get("settings_over_preset") or [] if d not in seen]
    if after.get("questions") is not None:
        before["questions"] = after["questions"]
    deviations = old.setdefault("preset", {}).setdefault("deviations", [])
    deviations += [
        d for d in (now.get("preset") or {}).get("deviations") or [] if d not in deviations
    ]
    for key in ("settings", "eval_settings", "models"):  # where the models are now (eval judge)
        if key in now:
            old[key] = now[key]
