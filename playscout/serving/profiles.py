"""vLLM launch profiles: each model server as data (model, port, context, parallelism, media
limits), validated, rendered to one command line for the host and one for docker compose.

Fixes the reference's start_services (docs/reference.md §6.2): loopback host by default,
`--limit-mm-per-prompt` for the 16-frame video_qa requests, trust-remote-code only when a
profile asks for it, and a health wait (see `launch.py`).
"""

from __future__ import annotations

import ipaddress
import json
from importlib import resources
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from playscout.errors import PlayscoutError

Role = Literal["agent", "vlm", "document_qa", "caption_qa", "embedding"]
# The `playscout` flags each role's server fills (--<flag>-url/--<flag>-model).
ROLE_FLAGS = {"agent": "llm", "vlm": "vlm", "document_qa": "doc-llm", "caption_qa": "caption-llm"}
VLLM_MODULE = ("-m", "vllm.entrypoints.openai.api_server")
VIDEO_QA_FRAMES = 16


class ProfileError(PlayscoutError, ValueError):
    """A profile that does not load or validate: one line naming the file and field."""


class ServerProfile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Role
    also: list[Role] = Field(
        default_factory=list,
        description="Other roles this same server answers (the reference serves document_qa "
        "and oracle-mode video_qa from one Qwen3-VL-8B).",
    )
    model: str = Field(description="HF id or local directory.")
    served_model_name: str
    port: int = Field(ge=1024, le=65535)
    host: str = "127.0.0.1"
    max_model_len: int = Field(ge=256)
    dtype: Literal["auto", "bfloat16", "float16", "float32"] = "auto"
    tensor_parallel_size: int = Field(1, ge=1)
    enable_prefix_caching: bool = True
    gpu_memory_utilization: float | None = Field(0.9, gt=0, le=1)
    limit_mm_per_prompt: dict[str, int] | None = None
    trust_remote_code: bool = False
    runner: Literal["generate", "pooling"] = "generate"
    tool_call_parser: str | None = None
    reasoning_parser: str | None = None
    extra_args: list[str] = Field(default_factory=list)
    allow_public_host: bool = False

    @model_validator(mode="after")
    def _checks(self) -> ServerProfile:
        if not self.allow_public_host and not _loopback(self.host):
            raise ValueError(f"host {self.host} is not loopback; set allow_public_host to mean it")
        if self.role == "vlm":
            images = (self.limit_mm_per_prompt or {}).get("image", 0)
            if images < VIDEO_QA_FRAMES:
                raise ValueError(
                    f"a vlm needs limit_mm_per_prompt.image >= {VIDEO_QA_FRAMES} (video_qa "
                    f"sends {VIDEO_QA_FRAMES} frames), got {images}"
                )
        if "embedding" in self.also or self.role in self.also:
            raise ValueError("also: another role than its own, and not embedding")
        if self.role == "embedding" and self.runner != "pooling":
            raise ValueError("an embedding server needs runner: pooling")
        if "--trust-remote-code" in self.extra_args:
            raise ValueError("use trust_remote_code: true, not extra_args")
        return self

    @property
    def health_url(self) -> str:
        return f"http://{_connect_host(self.host)}:{self.port}/v1/models"

    def args(self, host: str | None = None) -> list[str]:
        """vLLM server arguments (after the program); `host` overrides for containers."""
        out = [
            "--model", self.model,
            "--served-model-name", self.served_model_name,
            "--host", host or self.host,
            "--port", str(self.port),
            "--max-model-len", str(self.max_model_len),
            "--dtype", self.dtype,
            "--tensor-parallel-size", str(self.tensor_parallel_size),
        ]  # fmt: skip
        out.append(
            "--enable-prefix-caching"
            if self.enable_prefix_caching
            else "--no-enable-prefix-caching"
        )
        if self.gpu_memory_utilization is not None:
            out += ["--gpu-memory-utilization", str(self.gpu_memory_utilization)]
        if self.limit_mm_per_prompt:
            out += ["--limit-mm-per-prompt", json.dumps(self.limit_mm_per_prompt, sort_keys=True)]
        if self.runner != "generate":
            out += ["--runner", self.runner]
        if self.tool_call_parser:
            out += ["--enable-auto-tool-choice", "--tool-call-parser", self.tool_call_parser]
        if self.reasoning_parser:
            out += ["--reasoning-parser", self.reasoning_parser]
        if self.trust_remote_code:
            out.append("--trust-remote-code")
        return out + list(self.extra_args)

    def command(self, python: str = "python") -> list[str]:
        return [python, *VLLM_MODULE, *self.args()]


class ProfileSet(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    description: str = ""
    servers: dict[str, ServerProfile]

    def playscout_flags(self) -> list[str]:
        """The `ask` / `eval run` / `serve` flags that point each role at its server."""
        out: list[str] = []
        for server in self.servers.values():
            for role in (server.role, *server.also):
                if role in ROLE_FLAGS:
                    base = server.health_url.removesuffix("/models")
                    flag = ROLE_FLAGS[role]
                    out += [f"--{flag}-url", base, f"--{flag}-model", server.served_model_name]
        return out

    @model_validator(mode="after")
    def _unique_ports(self) -> ProfileSet:
        seen: dict[int, str] = {}
        for key, server in self.servers.items():
            if server.port in seen:
                raise ValueError(f"servers {seen[server.port]} and {key} share port {server.port}")
            seen[server.port] = key
        return self


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _connect_host(host: str) -> str:
    return "127.0.0.1" if host in ("0.0.0.0", "::") else host


def builtin_profiles() -> list[str]:
    root = resources.files("playscout.serving").joinpath("profiles")
    return sorted(p.name[:-5] for p in root.iterdir() if p.name.endswith(".yaml"))


def load_profile(name_or_path: str | Path) -> ProfileSet:
    """A built-in profile by name (`qwen3`) or a YAML file by path."""
    path = Path(name_or_path)
    if path.suffix in (".yaml", ".yml"):
        if not path.is_file():
            raise ProfileError(f"{path}: no such profile file")
        text, where = path.read_text("utf-8"), str(path)
    else:
        if str(name_or_path) not in builtin_profiles():
            raise ProfileError(
                f"no profile {str(name_or_path)!r}; built in: {', '.join(builtin_profiles())}"
            )
        res = (
            resources.files("playscout.serving")
            .joinpath("profiles")
            .joinpath(f"{name_or_path}.yaml")
        )
        text, where = res.read_text("utf-8"), f"profile {name_or_path}"
    try:
        return ProfileSet.model_validate(yaml.safe_load(text) or {})
    except yaml.YAMLError as e:
        raise ProfileError(f"{where}: not YAML ({str(e).splitlines()[0]})") from None
    except ValidationError as e:
        first = e.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "profile"
        raise ProfileError(f"{where}: {loc}: {first['msg']}") from None


def compose_services(profiles: ProfileSet, image: str = "vllm/vllm-openai:latest") -> dict:
    """The compose `services` entries for these servers: same arguments, bound to 0.0.0.0
    inside the container (other containers must reach it), published on host loopback only."""
    services: dict[str, dict] = {}
    for key, server in profiles.servers.items():
        services[f"vllm-{key.replace('_', '-')}"] = {
            "image": image,
            "entrypoint": ["python3", *VLLM_MODULE],
            "command": server.args(host="0.0.0.0"),
            "ports": [f"127.0.0.1:{server.port}:{server.port}"],
            "volumes": ["hf-cache:/root/.cache/huggingface"],
            "ipc": "host",
            "healthcheck": {
                "test": ["CMD", "curl", "-fsS", f"http://localhost:{server.port}/v1/models"],
                "interval": "15s",
                "timeout": "5s",
                "retries": 60,
                "start_period": "120s",
            },
            "deploy": {
                "resources": {
                    "reservations": {
                        "devices": [
                            {
                                "driver": "nvidia",
                                "count": server.tensor_parallel_size,
                                "capabilities": ["gpu"],
                            }
                        ]
                    }
                }
            },
        }
    return services
