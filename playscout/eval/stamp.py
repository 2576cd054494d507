"""The comparability stamp: may this run's number stand next to the paper's? Computed from
what actually ran (recorded in run.json as `ran`), never from the preset's name alone: the
policy, every model role the mode calls, the index's embedder per channel, the judge that
produced the verdicts and the corpus. A run is comparable only when its preset is the paper's,
nothing deviates from it and every fact meets the preset's `expects`; otherwise every reason is
listed, and reports, the run browser and the API show them beside the number."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playscout.config.presets import Preset
from playscout.search.kind import recorded_specs
from playscout.synthetic.writer import SYNTH_MANIFEST

# What a missing role means for the run, in the reason's words.
ROLE_REASONS = {
    "agent": "no agent model (agent.llm)",
    "document_llm": "no document QA model (qa.document_llm): the offline extractive reader "
    "answered document_qa",
    "caption_llm": "no caption QA model (qa.caption_llm): the offline extractive reader "
    "answered video_qa_oracle",
    "vlm": "no video QA model (qa.vlm): video_qa could not look at a clip",
}
JUDGE_WORDS = {"llm": "the LLM judge", "equivalence": "the deterministic equivalence judge"}
COMPARABLE = "comparable to SVI-Bench Table 15"


@dataclass(frozen=True)
class Stamp:
    comparable: bool
    reasons: tuple[str, ...]

    def line(self) -> str:
        return COMPARABLE if self.comparable else "not comparable: " + "; ".join(self.reasons)

    def record(self) -> dict[str, Any]:
        return {"comparable": self.comparable, "reasons": list(self.reasons)}


def corpus_kind(corpus_dir: Path | str | None) -> str | None:
    """release | generated (playscout's simulator wrote it) | None (no corpus)."""
    if corpus_dir is None:
        return None
    return "generated" if (Path(corpus_dir) / SYNTH_MANIFEST).is_file() else "release"


def index_channels(backend: Any) -> dict[str, dict[str, Any]]:
    """Channel -> {kind, model} of the embedder that made the index's vectors (its manifest)."""
    manifest = getattr(backend, "manifest", None)
    if not isinstance(manifest, Mapping):
        return {}
    return {
        channel: {"kind": spec.get("kind"), "model": spec.get("model")}
        for channel, spec in recorded_specs(manifest).items()
    }


def observed_clips(backend: Any) -> int:
    """Clips with heard text (transcript, audio events) in the index: default-mode clip search
    fuses BM25 over them with the video vectors, which the reference never does."""
    manifest = getattr(backend, "manifest", None)
    if not isinstance(manifest, Mapping):
        return 0
    return sum(int(s.get("observed_clips") or 0) for s in manifest.get("sports", {}).values())


def ran_facts(
    *,
    task: str,
    mode: str,
    policy: str,
    preset: Preset,
    roles: Mapping[str, str | None],
    backend: Any,
    corpus_dir: Path | str | None,
    judge: str,
) -> dict[str, Any]:
    """What the stamp reads, as run.json records it. `roles`: role -> the model that answered
    (None: not configured); `judge`: the judge kind the verdicts will come from."""
    return {
        "task": task,
        "mode": mode,
        "policy": policy,
        "roles": dict(roles),
        "index": index_channels(backend) if backend is not None else None,
        "observed_clips": observed_clips(backend),
        "corpus": corpus_kind(corpus_dir),
        "judge": {"kind": judge, "prompt": preset.judge_prompt, "judged": False},
        "expects": preset.expects.model_dump(mode="json") if preset.expects else None,
        "expected_judge_prompt": preset.judge_prompt,
    }


def _made_by(spec: Mapping[str, Any], want: str) -> bool:
    return want == "any" or any(
        want.lower() in str(spec.get(k) or "").lower() for k in ("kind", "model")
    )


def stamp(preset: Mapping[str, Any] | None, ran: Mapping[str, Any] | None) -> Stamp:
    """The verdict for a run's preset record and `ran` facts (run.json), whatever the preset,
    with a resume over changed questions said apart (eval/fingerprint.py)."""
    verdict = _protocol_stamp(preset, ran)
    mixed = [f"mixed: resumed after the questions changed ({c})" for c in mixed_questions(ran)]
    return Stamp(False, (*verdict.reasons, *mixed)) if mixed else verdict


def mixed_questions(ran: Mapping[str, Any] | None) -> list[str]:
    """What each resume that re-ran changed questions (or dropped removed ones) recorded."""
    return [str(c) for c in (ran or {}).get("mixed_questions") or []]


def _protocol_stamp(preset: Mapping[str, Any] | None, ran: Mapping[str, Any] | None) -> Stamp:
    """The verdict of the preset and what ran: models, index, judge, corpus."""
    preset = preset or {"name": "extended", "paper_comparable": False}
    if not preset.get("paper_comparable"):
        return Stamp(False, (f"preset {preset.get('name')} is not the paper's protocol",))
    reasons = [f"setting over the preset: {d}" for d in preset.get("deviations") or []]
    if not ran:
        return Stamp(False, (*reasons, "run from before the stamp: what ran is not recorded"))
    expects = ran.get("expects")
    if not expects:
        return Stamp(False, (*reasons, f"preset {preset.get('name')} states no expectations"))
    task, mode = ran.get("task"), ran.get("mode")
    if task not in expects["tasks"]:
        reasons.append(
            f"task {task}: the preset's expectations are for {', '.join(expects['tasks'])}"
        )
        return Stamp(False, tuple(reasons))
    for change in ran.get("mixed") or []:
        reasons.append(f"resumed with other components ({change})")
    if ran.get("policy") != expects["policy"]:
        reasons.append(f"policy {ran.get('policy')} (paper: {expects['policy']})")
    roles = ran.get("roles") or {}
    for role in expects["roles"].get(mode, []):
        if role == "agent" and ran.get("policy") != "llm":
            continue  # said by the policy reason
        if not roles.get(role):
            reasons.append(ROLE_REASONS.get(role, f"no model for {role}"))
    index = ran.get("index")
    for channel, want in expects["embedders"].get(mode, {}).items():
        spec = (index or {}).get(channel)
        if spec is None:
            reasons.append(f"the index has no {channel} vectors (paper: {want})")
        elif not _made_by(spec, want):
            reasons.append(
                f"{channel} vectors by {spec.get('kind')} {spec.get('model')} (paper: {want})"
            )
    if mode == "default" and ran.get("observed_clips"):
        reasons.append(
            f"default-mode clip search fused BM25 over {ran['observed_clips']} clips' heard text "
            "with the video vectors (paper: video vectors only)"
        )
    judge = ran.get("judge") or {}
    if judge.get("kind") != expects["judge"]:
        how = "judged by" if judge.get("judged") else "no LLM judge configured (eval.judge):"
        reasons.append(
            f"{how} {JUDGE_WORDS.get(str(judge.get('kind')), judge.get('kind'))} "
            f"(paper: {JUDGE_WORDS.get(expects['judge'], expects['judge'])})"
        )
    elif judge.get("prompt") != ran.get("expected_judge_prompt"):
        reasons.append(
            f"judge prompt {judge.get('prompt')} (paper: {ran.get('expected_judge_prompt')})"
        )
    if expects["corpus"] == "release" and ran.get("corpus") != "release":
        what = ran.get("corpus") or "no corpus"
        reasons.append(
            f"corpus {what}"
            + (" by playscout's simulator" if what == "generated" else "")
            + " (paper: the SVI-Bench release)"
        )
    return Stamp(not reasons, tuple(reasons))


def run_stamp(meta: Mapping[str, Any], judge: str | None = None) -> Stamp:
    """The stamp of a run.json, with the verdicts of `judge` when a report picked one."""
    ran = meta.get("ran")
    if ran and judge and (ran.get("judge") or {}).get("kind") != judge:
        prompt = (ran.get("judged_by") or {}).get(judge)
        ran = {**ran, "judge": {"kind": judge, "prompt": prompt, "judged": True}}
    return stamp(meta.get("preset"), ran)


def stamp_line(record: Mapping[str, Any]) -> str:
    """A recorded stamp ({comparable, reasons}) as reports and the run browser show it."""
    return Stamp(bool(record.get("comparable")), tuple(record.get("reasons") or ())).line()
