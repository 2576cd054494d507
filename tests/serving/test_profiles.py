"""Model-server profiles: validation, rendering, the health wait against real local HTTP
servers, and agreement with docker/compose.yml."""

from __future__ import annotations

import http.server
import itertools
import json
import threading
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from playscout.cli.serve import serve_app
from playscout.serving.launch import ServerNotReady, wait_ready
from playscout.serving.profiles import (
    ProfileError,
    ProfileSet,
    ServerProfile,
    builtin_profiles,
    compose_services,
    load_profile,
)

ROOT = Path(__file__).resolve().parents[2]
BASE = {
    "role": "agent",
    "model": "m",
    "served_model_name": "m",
    "port": 8100,
    "max_model_len": 4096,
}


@pytest.mark.parametrize("name", builtin_profiles())
def test_builtin_profiles_validate(name):
    profiles = load_profile(name)
    for server in profiles.servers.values():
        assert server.host == "127.0.0.1" and not server.trust_remote_code
        if server.role == "vlm":
            assert (server.limit_mm_per_prompt or {})["image"] >= 16


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"host": "0.0.0.0"}, "not loopback"),
        ({"role": "vlm"}, "limit_mm_per_prompt.image >= 16"),
        ({"role": "vlm", "limit_mm_per_prompt": {"image": 4}}, "got 4"),
        ({"role": "embedding"}, "runner: pooling"),
        ({"extra_args": ["--trust-remote-code"]}, "trust_remote_code: true"),
        ({"port": 80}, "greater than or equal"),
        ({"dtype": "int3"}, "dtype"),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_bad_profiles_fail_with_one_line(tmp_path, change, needle):
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump({"name": "p", "servers": {"a": {**BASE, **change}}}))
    with pytest.raises(ProfileError) as err:
        load_profile(path)
    assert needle in str(err.value) and "\n" not in str(err.value)


def test_shared_ports_rejected():
    with pytest.raises(ValueError, match="share port 8100"):
        ProfileSet(name="p", servers={"a": ServerProfile(**BASE), "b": ServerProfile(**BASE)})


def test_unknown_profile_names_the_builtins():
    with pytest.raises(ProfileError, match=r"built in: .*qwen3"):
        load_profile("nope")


def test_command_rendering():
    vlm = ServerProfile(
        **{**BASE, "role": "vlm", "limit_mm_per_prompt": {"image": 16, "video": 0}},
        tensor_parallel_size=2, trust_remote_code=True, tool_call_parser="hermes",
    )  # fmt: skip
    cmd = vlm.command("py")
    assert cmd[:3] == ["py", "-m", "vllm.entrypoints.openai.api_server"]
    pairs = dict(itertools.pairwise(cmd))
    assert pairs["--host"] == "127.0.0.1" and pairs["--port"] == "8100"
    assert pairs["--max-model-len"] == "4096" and pairs["--tensor-parallel-size"] == "2"
    assert json.loads(pairs["--limit-mm-per-prompt"]) == {"image": 16, "video": 0}
    assert "--enable-prefix-caching" in cmd and "--trust-remote-code" in cmd
    assert pairs["--tool-call-parser"] == "hermes" and "--enable-auto-tool-choice" in cmd
    plain = ServerProfile(**BASE, enable_prefix_caching=False).command()
    assert "--trust-remote-code" not in plain and "--no-enable-prefix-caching" in plain
    assert "--limit-mm-per-prompt" not in plain


def test_dry_run_prints_commands():
    r = CliRunner().invoke(
        serve_app, ["models", "--profile", "qwen3", "--dry-run", "--python", "py"]
    )
    assert r.exit_code == 0, r.output
    lines = [ln for ln in r.output.splitlines() if ln.startswith("py -m vllm")]
    assert len(lines) == 4 and all("--host 127.0.0.1" in ln for ln in lines)
    assert '--limit-mm-per-prompt \'{"image": 16, "video": 0}\'' in r.output
    bad = CliRunner().invoke(serve_app, ["models", "--profile", "nope", "--dry-run"])
    assert bad.exit_code == 2 and "no profile 'nope'" in bad.output


class _Models(http.server.BaseHTTPRequestHandler):
    """A real HTTP server that answers 503 for the first `ready_after` polls, then 200."""

    polls = 0
    ready_after = 3

    def do_GET(self) -> None:
        type(self).polls += 1
        ready = self.path == "/v1/models" and type(self).polls > type(self).ready_after
        body = json.dumps({"object": "list", "data": [{"id": "m"}]} if ready else {}).encode()
        self.send_response(200 if ready else 503)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def _serve(ready_after: int):
    handler = type("H", (_Models,), {"polls": 0, "ready_after": ready_after})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, handler, f"http://127.0.0.1:{server.server_address[1]}/v1/models"


def test_wait_ready_after_n_polls():
    server, handler, url = _serve(ready_after=3)
    try:
        waited = wait_ready(url, timeout_s=10, interval_s=0.05)
        assert handler.polls == 4 and 0.1 <= waited < 5
    finally:
        server.shutdown()


def test_wait_ready_times_out_with_a_message():
    server, handler, url = _serve(ready_after=10**9)
    try:
        with pytest.raises(ServerNotReady, match=r"vlm not ready after 1.5 s .*last: HTTP 503"):
            wait_ready(url, timeout_s=1.5, interval_s=0.05, name="vlm")
        assert handler.polls >= 2
    finally:
        server.shutdown()


def test_wait_ready_stops_when_the_process_dies():
    with pytest.raises(ServerNotReady, match="exited before it was ready"):
        wait_ready("http://127.0.0.1:9/v1/models", timeout_s=30, alive=lambda: False)


def test_compose_vllm_services_match_the_profile():
    compose = yaml.safe_load((ROOT / "docker/compose.yml").read_text())
    expected = compose_services(load_profile("qwen3"))
    for name, service in expected.items():
        got = compose["services"][name]
        assert got["command"] == service["command"], name
        assert got["entrypoint"] == service["entrypoint"] and got["ports"] == service["ports"]
        assert got["healthcheck"]["test"] == service["healthcheck"]["test"]
    assert {k for k in compose["services"] if k.startswith("vllm-")} == set(expected)


def test_the_paper_profile_serves_the_papers_qa_stack_as_the_stamp_names_it():
    """LLaVA-NeXT-Video for video QA, Qwen3-VL-8B for document and caption QA (one server), by
    served names the stamp accepts as the paper's; `serve models` prints the flags."""
    from playscout.config.presets import load_preset
    from playscout.eval.running.stamp import is_model

    profile = load_profile("paper")
    expects = load_preset("paper").expects
    assert expects is not None
    served = {}
    for server in profile.servers.values():
        for role in (server.role, *server.also):
            served[role] = server.served_model_name
    assert is_model(served["vlm"], expects.models["vlm"])
    assert is_model(served["document_qa"], expects.models["document_llm"])
    assert is_model(served["caption_qa"], expects.models["caption_llm"])
    flags = profile.playscout_flags()
    assert flags[flags.index("--caption-llm-model") + 1] == "qwen3-vl-8b-thinking"
    assert flags[flags.index("--caption-llm-url") + 1] == "http://127.0.0.1:8095/v1"
    result = CliRunner().invoke(serve_app, ["models", "--profile", "paper", "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "# playscout flags: --llm-url http://127.0.0.1:8093/v1" in result.output
    # the earlier GPU profile's QA models are not the paper's
    other = {s.role: s.served_model_name for s in load_profile("qwen3").servers.values()}
    assert not is_model(other["document_qa"], expects.models["document_llm"])
