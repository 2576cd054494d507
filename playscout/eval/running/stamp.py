"""The comparability stamp: may this run's number stand next to the paper's? Computed from the
content of what ran (recorded in run.json as `ran`, eval/running/ran.py), never from a name or the
preset's own flag:

- the preset is the shipped `paper` preset, by the hash of its file;
- the fully resolved settings equal the preset's (every differing key is a reason, whether
  the preset's overlay lists it or not), over every start of a resumed run;
- the policy, and the QA models and the judge are the paper's, by the served names (the agent
  may be any model: the stamp names it);
- every question has a verdict from the recorded judge (the paper's model, Fig. 42 verbatim);
- the questions are a whole release file per sport ("N of M questions" otherwise);
- each index channel was made by the paper's embedder, as the index manifest and the release
  layout say (a model only declared by a name is said to be only declared), over the
  reference's units, and its queries are embedded by the matching model;
- the corpus is the release, not playscout's simulator.

Every reason is listed; reports, the run browser and the API show them beside the number."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
ROLE_WORDS = {
    "document_llm": "document QA model",
    "caption_llm": "caption QA model",
    "vlm": "video QA model",
    "video_query": "video query tower",
    "judge": "judge",
}
JUDGE_WORDS = {"llm": "the LLM judge", "equivalence": "the deterministic equivalence judge"}
COMPARABLE = "comparable to SVI-Bench Table 15"
TEXT_CHANNELS = ("documents", "caption")


@dataclass(frozen=True)
class Stamp:
    comparable: bool
    reasons: tuple[str, ...]
    agent: str | None = None  # the agent model, which the paper lets vary: named, not checked

    def line(self) -> str:
        if not self.comparable:
            return "not comparable: " + "; ".join(self.reasons)
        return COMPARABLE + (f" (agent {self.agent})" if self.agent else "")

    def record(self) -> dict[str, Any]:
        return {"comparable": self.comparable, "reasons": list(self.reasons), "agent": self.agent}


def corpus_kind(corpus_dir: Path | str | None) -> str | None:
    """release | generated (playscout's simulator wrote it) | None (no corpus)."""
    if corpus_dir is None:
        return None
    return "generated" if (Path(corpus_dir) / SYNTH_MANIFEST).is_file() else "release"


def index_channels(backend: Any) -> dict[str, dict[str, Any]]:
    """Channel -> what made its vectors, as the index manifest records it: the spec's kind and
    model, the `identity` (release layout, built by playscout, declared, unknown) and the text
    units; and the query embedder the backend was opened with."""
    manifest = getattr(backend, "manifest", None)
    if not isinstance(manifest, Mapping):
        return {}
    entries: dict[str, dict[str, Any]] = {}
    for sport in manifest.get("sports", {}).values():
        for channel, info in sport.get("channels", {}).items():
            entries.setdefault(channel, info)
    opened = getattr(backend, "embedders", {}) or {}
    out = {}
    for channel, spec in recorded_specs(manifest).items():
        entry = entries.get(channel, {})
        query = opened.get(channel)
        qspec = query.spec() if query is not None else None
        out[channel] = {
            "kind": spec.get("kind"),
            "model": spec.get("model"),
            "identity": entry.get("identity"),
            "units": entry.get("units"),
            "query": {"kind": qspec.kind, "model": qspec.model} if qspec is not None else None,
        }
    return out


def observed_clips(backend: Any) -> int:
    """Clips with heard text (transcript, audio events) in the index: default-mode clip search
    fuses BM25 over them with the video vectors, which the reference never does."""
    manifest = getattr(backend, "manifest", None)
    if not isinstance(manifest, Mapping):
        return 0
    return sum(int(s.get("observed_clips") or 0) for s in manifest.get("sports", {}).values())


def is_model(name: str | None, wanted: Sequence[str]) -> bool:
    """Whether a served model name is one of the paper's (lower-case substrings; `_` is read
    as `-`, so `llava_next_video` and `Qwen/Qwen3-VL-8B-Thinking` match)."""
    if not name:
        return False
    norm = name.lower().replace("_", "-")
    return any(w.lower() in norm for w in wanted)


def stamp(
    preset: Mapping[str, Any] | None, ran: Mapping[str, Any] | None, *, planned: bool = False
) -> Stamp:
    """The verdict for a run's preset record and `ran` facts (run.json), whatever the preset,
    with a resume over changed questions said apart (eval/running/fingerprint.py). `planned`: before
    the run (`--strict`): what cannot be known yet (the verdicts) is not a reason."""
    verdict = _protocol_stamp(preset, ran, planned=planned)
    mixed = [f"mixed: resumed after the questions changed ({c})" for c in mixed_questions(ran)]
    return Stamp(False, (*verdict.reasons, *mixed), verdict.agent) if mixed else verdict


def mixed_questions(ran: Mapping[str, Any] | None) -> list[str]:
    """What each resume that re-ran changed questions (or dropped removed ones) recorded."""
    return [str(c) for c in (ran or {}).get("mixed_questions") or []]


def _protocol_stamp(
    preset: Mapping[str, Any] | None, ran: Mapping[str, Any] | None, *, planned: bool = False
) -> Stamp:
    """The verdict of the preset and what ran: models, index, judge, questions, corpus."""
    preset = preset or {"name": "extended", "paper_comparable": False}
    if not preset.get("paper_comparable"):
        return Stamp(False, (f"preset {preset.get('name')} is not the paper's protocol",))
    if not ran:
        return Stamp(False, ("run from before the stamp: what ran is not recorded",))
    reasons: list[str] = []
    shipped = ran.get("shipped_preset_sha256")
    if not shipped or preset.get("sha256") != shipped:
        reasons.append(
            f"preset {preset.get('name')} ({preset.get('file')}, sha256 {preset.get('sha256')}) "
            f"is not the shipped paper preset (sha256 {shipped})"
        )
    expects = ran.get("expects")
    if not expects:
        return Stamp(False, (*reasons, f"preset {preset.get('name')} states no expectations"))
    task, mode = ran.get("task"), ran.get("mode")
    if task not in expects["tasks"]:
        reasons.append(
            f"task {task}: the preset's expectations are for {', '.join(expects['tasks'])}"
        )
        return Stamp(False, tuple(reasons))
    reasons += [f"setting {d}" for d in ran.get("settings_over_preset") or []]
    for change in ran.get("mixed") or []:
        reasons.append(f"resumed with other components ({change})")
    if ran.get("policy") != expects["policy"]:
        reasons.append(f"policy {ran.get('policy')} (paper: {expects['policy']})")
    reasons += _roles(ran, expects, mode)
    reasons += _index(ran, expects, mode)
    if mode == "default" and ran.get("observed_clips"):
        reasons.append(
            f"default-mode clip search fused BM25 over {ran['observed_clips']} clips' heard text "
            "with the video vectors (paper: video vectors only)"
        )
    reasons += _judge(ran, expects, planned)
    reasons += _questions(ran)
    if expects["corpus"] == "release" and ran.get("corpus") != "release":
        what = ran.get("corpus") or "no corpus"
        reasons.append(
            f"corpus {what}"
            + (" by playscout's simulator" if what == "generated" else "")
            + " (paper: the SVI-Bench release)"
        )
    agent = (ran.get("roles") or {}).get("agent") if ran.get("policy") == "llm" else None
    return Stamp(not reasons, tuple(reasons), agent)


def _roles(ran: Mapping[str, Any], expects: Mapping[str, Any], mode: Any) -> list[str]:
    roles = ran.get("roles") or {}
    models = expects.get("models") or {}
    out = []
    for role in expects["roles"].get(mode, []):
        if role == "agent" and ran.get("policy") != "llm":
            continue  # said by the policy reason
        name = roles.get(role)
        if not name:
            out.append(ROLE_REASONS.get(role, f"no model for {role}"))
        elif role in models and not is_model(name, models[role]):
            out.append(
                f"{ROLE_WORDS.get(role, role)} {name!r} (paper: {' or '.join(models[role])})"
            )
    return out


def _index(ran: Mapping[str, Any], expects: Mapping[str, Any], mode: Any) -> list[str]:
    index = ran.get("index") or {}
    models = expects.get("models") or {}
    out = []
    for channel, want in expects["embedders"].get(mode, {}).items():
        entry = index.get(channel)
        if entry is None:
            out.append(f"the index has no {channel} vectors (paper: {want})")
            continue
        made = _made_by(channel, entry, want, expects.get("units", "reference"))
        out += made
        query = entry.get("query") or {}
        if made:
            continue  # the vectors are not the paper's: their queries are beside the point
        if channel == "visual":
            tower = query.get("model")
            wanted = models.get("video_query") or [want]
            if tower and not is_model(tower, wanted):
                out.append(f"visual queries embedded by {tower!r} (paper: {want}'s text tower)")
        elif query and query.get("kind") != want and not is_model(query.get("model"), [want]):
            out.append(
                f"{channel} queries embedded by {query.get('kind')} {query.get('model')!r} "
                f"(paper: {want})"
            )
    return out


def _made_by(channel: str, entry: Mapping[str, Any], want: str, units: str) -> list[str]:
    """What made a channel's vectors, from the manifest's identity: the release layout and a
    model playscout ran count; a name (an embedder.json, a server's model name) only declares."""
    ident = entry.get("identity")
    if not isinstance(ident, Mapping):
        return [
            f"{channel} vectors by {entry.get('kind')} {entry.get('model')}: what made them is "
            "not recorded (an index from before identities; rebuild it)"
        ]
    model, how = ident.get("model"), ident.get("how")
    if how == "unknown" or not model:
        return [
            f"{channel} vectors of unknown origin: {ident.get('why') or 'no record'} (paper: {want})"
        ]
    if not is_model(str(model), [want]):
        return [f"{channel} vectors by {model} ({how}) (paper: {want})"]
    if how == "declared":
        return [
            f"{channel} vectors only declared as {model} by {ident.get('by')}, not checked "
            f"(the release's own embeds/ folder or a model playscout runs is)"
        ]
    built_ours = how == "built" and entry.get("units") not in ("reference", "release")
    if built_ours and channel in TEXT_CHANNELS and units == "reference":
        return [
            f"{channel} vectors over playscout's {entry.get('units') or 'passages'} units "
            "(paper: the reference's units; build with --units reference)"
        ]
    return []


def _judge(ran: Mapping[str, Any], expects: Mapping[str, Any], planned: bool) -> list[str]:
    judge = ran.get("judge") or {}
    want = expects.get("models", {}).get("judge")
    if judge.get("kind") != expects["judge"]:
        how = "judged by" if judge.get("judged") else "no LLM judge configured (eval.judge):"
        return [
            f"{how} {JUDGE_WORDS.get(str(judge.get('kind')), judge.get('kind'))} "
            f"(paper: {JUDGE_WORDS.get(expects['judge'], expects['judge'])})"
        ]
    out = []
    if judge.get("prompt") != ran.get("expected_judge_prompt"):
        out.append(
            f"judge prompt {judge.get('prompt')} (paper: {ran.get('expected_judge_prompt')})"
        )
    if want and not is_model(judge.get("model"), want):
        out.append(f"judge {judge.get('model')!r} (paper: {' or '.join(want)})")
    if planned:
        return out
    if not judge.get("judged"):
        return [*out, "not judged yet: run `playscout eval judge` on it"]
    total = sum(int(q.get("run") or 0) for q in (ran.get("questions") or {}).values())
    total = total or int(judge.get("questions") or 0)
    have = int(judge.get("verdicts") or 0)
    if have < total:
        out.append(
            f"{total - have} of {total} questions have no verdict from the judge {judge.get('model')!r}"
        )
    return out


def _questions(ran: Mapping[str, Any]) -> list[str]:
    """A whole release questions file per sport: a subset cannot stand for the sport's column."""
    questions = ran.get("questions")
    if questions is None:
        return ["the questions asked are not recorded"]
    out = []
    for sport, q in questions.items():
        run, whole = q.get("run"), q.get("release")
        if whole is None:
            out.append(f"{sport}: {run} questions, not a release questions file ({q.get('why')})")
        elif run != whole or not q.get("same", True):
            out.append(f"{sport}: {run} of {whole} questions of the release's questions file")
    return out


def run_stamp(meta: Mapping[str, Any], judge: str | None = None) -> Stamp:
    """The stamp of a run.json, with the verdicts of `judge` when a report picked one."""
    ran = meta.get("ran")
    if ran and judge and (ran.get("judge") or {}).get("kind") != judge:
        by = (ran.get("judged_by") or {}).get(judge)
        facts = by if isinstance(by, dict) else {"prompt": by}
        ran = {**ran, "judge": {**facts, "kind": judge, "judged": True}}
    return stamp(meta.get("preset"), ran)


def stamp_line(record: Mapping[str, Any]) -> str:
    """A recorded stamp ({comparable, reasons, agent}) as reports and the run browser show it."""
    return Stamp(
        bool(record.get("comparable")), tuple(record.get("reasons") or ()), record.get("agent")
    ).line()
